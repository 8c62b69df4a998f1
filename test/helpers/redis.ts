// A real redis-server for the tests that need one: Debian's package (bash .ci/run installs it), started on loopback
// as a child of the test with nothing saved to disk (or, to be stopped and started again, saved to a directory of
// its own), and stopped by its PID.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { RedisStore } from '../../src/state/redis-store.js';
import { listensOn, onFreePort } from '../../tools/ports.mjs';
import { onOutput } from './child-output.js';

export interface RedisServer {
  url: string;
  port: number;
  /**
   * Stops the server (SIGTERM to its PID) and waits for it to exit. `forNow`: its saved data (keepData) is kept for
   * start(); otherwise it is deleted.
   */
  stop(options?: { forNow?: boolean }): Promise<void>;
  /**
   * Starts a stopped server again on the same port (Redis back after an outage). With `keepData` it comes back
   * with what it held when stopped for now, as a Redis that saves on shutdown does; else empty.
   */
  start(): Promise<void>;
}

/** One PING over a raw connection: true on +PONG. */
function pong(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.setTimeout(200);
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

export function redisInstalled(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

interface Running {
  child: ChildProcess;
  exited: Promise<void>;
}

async function spawnRedis(port: number, dataDir: string | undefined): Promise<Running> {
  // A save point makes redis-server save its data when stopped by SIGTERM (its own default on shutdown); the hour
  // keeps it from saving on its own while a test runs.
  const persistence = dataDir ? ['--dir', dataDir, '--dbfilename', 'dump.rdb', '--save', '3600 1'] : ['--save', ''];
  const child: ChildProcess = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      ...persistence,
      '--appendonly',
      'no',
      '--daemonize',
      'no',
      '--loglevel',
      'warning',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  // Its log (stdout) says why it stopped: "Address already in use" when another program was given the port first.
  let output = '';
  onOutput(child, (chunk) => {
    output += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Closed once its output is all read: its last words may come after its exit.
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  // Bounded: 200 tries of 25 ms. Its own socket must listen there, not just any that answers PING: another test's
  // redis-server, given the port first, would answer in its place.
  for (let i = 0; ; i++) {
    if (child.pid !== undefined && listensOn(child.pid, port) && (await pong(port))) return { child, exited };
    const failure =
      child.exitCode !== null || child.signalCode !== null
        ? `redis-server exited with ${child.exitCode ?? child.signalCode} before answering`
        : i >= 200
          ? 'redis-server did not answer PING within 5 s'
          : undefined;
    if (failure) {
      // Stopped before saying so: a caller starting it again on another port leaves nothing running behind.
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await closed;
      throw new Error(`${failure}: ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * Starts a redis-server; on `port` when given (a Redis that comes back where it was), else on a free port.
 * keepData: it saves to a directory of its own when stopped and reads it back when started again.
 */
export async function startRedis(options: { port?: number; keepData?: boolean } = {}): Promise<RedisServer> {
  if (!redisInstalled()) {
    throw new Error(
      'redis-server is not installed: `apt-get install -y --no-install-recommends redis-server` (bash .ci/run does it)',
    );
  }
  const dataDir = options.keepData ? mkdtempSync(join(tmpdir(), 'forgeops-redis-')) : undefined;
  const start = async (port: number) => ({ port, running: await spawnRedis(port, dataDir) });
  // A free port, chosen again if another program was given it before redis-server bound it; a port given is kept.
  const first = await (options.port === undefined ? onFreePort(start) : start(options.port)).catch((error: unknown) => {
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    throw error;
  });
  const { port } = first;
  let running: Running | undefined = first.running;
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async stop({ forNow = false } = {}) {
      const stopping = running;
      running = undefined;
      if (stopping) {
        if (stopping.child.exitCode === null && stopping.child.pid !== undefined)
          process.kill(stopping.child.pid, 'SIGTERM');
        await stopping.exited;
      }
      if (dataDir && !forNow) rmSync(dataDir, { recursive: true, force: true });
    },
    async start() {
      running ??= await spawnRedis(port, dataDir);
    },
  };
}

/**
 * A redis-server for this test file, started before its tests and stopped after them, and the stores opened on it
 * (each its own connection, as a replica's), closed before it stops.
 */
export function useRedis(options: { keepData?: boolean } = {}) {
  let redis: RedisServer | undefined;
  const stores: RedisStore[] = [];
  beforeAll(async () => {
    redis = await startRedis(options);
  });
  afterAll(async () => {
    for (const store of stores) await store.close();
    await redis?.stop();
  });
  return {
    get server(): RedisServer {
      if (!redis) throw new Error('redis-server is not started yet (use it inside a test)');
      return redis;
    },
    /** A store on this server whose keys start with `keyPrefix`. */
    async open(keyPrefix: string): Promise<RedisStore> {
      const store = await RedisStore.open(this.server.url, { keyPrefix });
      stores.push(store);
      return store;
    },
  };
}
