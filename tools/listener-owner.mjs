// Whether a process itself listens on a TCP port, read from /proc (Linux). A program started on a port chosen
// beforehand (freePort, then the program binds it) is up only once its own socket listens there: in a parallel test
// run another test's server may have been given the same port meanwhile, and answer in its place.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

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
