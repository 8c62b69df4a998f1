// Loopback ports for the programs tests and benches start: one free now (freePort; onFreePort starts the program again
// on a new one if another program was given it first), or one chosen beforehand for a program started later (a
// balancer whose address its replicas must know first), held by a listener of ours until the program starts and
// counted as the program's only once its own socket listens there (read from /proc, Linux). Left free, in a parallel
// test run, such a port may go to another test's server, which answers in the program's place.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer } from 'node:net';

/** A free loopback port, held until `release()` frees it for the program meant for it (just before it starts). */
export async function reservePort() {
  const holder = createServer();
  await new Promise((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const { port } = holder.address();
  return { port, release: () => new Promise((resolve) => holder.close(() => resolve())) };
}

/**
 * A loopback port free now, for a program that binds it at once (one told of it in advance: reservePort). Another
 * program may still be given it before that bind: start the program with onFreePort, which chooses again then.
 */
export async function freePort() {
  const reserved = await reservePort();
  await reserved.release();
  return reserved.port;
}

/** What a program says when its port was taken: forgeops ("port N on H is in use"), Node, and redis-server or haproxy. */
const PORT_TAKEN = /is in use|EADDRINUSE|Address already in use/;

/**
 * What `start(port)` answers, on a port free when chosen: for a program that must know its port before it listens
 * (one that can bind port 0 and say which port it got needs none of this). Between the choice and the bind, another
 * program of a parallel test run may be given that port; a start that fails so (its error says the port is in use)
 * is tried again on a new port, `attempts` times in all, and then its last error is thrown. Any other error is thrown
 * at once. `start` must stop whatever it started before it throws: a retry starts it all again.
 */
export async function onFreePort(start, attempts = 3) {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      return await start(port);
    } catch (error) {
      if (attempt >= attempts || !PORT_TAKEN.test(error instanceof Error ? error.message : String(error))) throw error;
    }
  }
}

/** The inodes of the sockets listening on `port`, any address, IPv4 and IPv6. */
function listeningInodes(port) {
  const inodes = new Set();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    // Columns: sl, local_address (hex address:hex port), rem_address, st (0A is LISTEN), …, inode (the tenth).
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10 || fields[3] !== '0A') continue;
      if (Number.parseInt(fields[1].split(':').at(-1), 16) === port) inodes.add(fields[9]);
    }
  }
  return inodes;
}

/** True when process `pid` holds a socket listening on `port`; false while it does not (yet), or is gone. */
export function listensOn(pid, port) {
  const inodes = listeningInodes(port);
  if (inodes.size === 0) return false;
  let descriptors;
  try {
    descriptors = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false;
  }
  return descriptors.some((fd) => {
    try {
      const socket = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      return socket !== null && inodes.has(socket[1]);
    } catch {
      return false;
    }
  });
}
