// A real redis-server for the tests that need one: Debian's package (bash .ci/run installs it), started on loopback
// as a child of the test with nothing saved to disk, and stopped by its PID.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createConnection } from 'node:net';
import { freePort } from './balancers.js';

export interface RedisServer {
  url: string;
  port: number;
  /** Stops the server (SIGTERM to its PID) and waits for it to exit. */
  stop(): Promise<void>;
}

/** One PING over a raw connection: true on +PONG. */
function pong(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.setTimeout(200);
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => { socket.destroy(); resolve(data.toString().startsWith('+PONG')); });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => { socket.destroy(); resolve(false); });
  });
}

export function redisInstalled(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** Starts a redis-server; on `port` when given (a Redis that comes back where it was), else on a free port. */
export async function startRedis(options: { port?: number } = {}): Promise<RedisServer> {
  if (!redisInstalled()) {
    throw new Error('redis-server is not installed: `apt-get install -y --no-install-recommends redis-server` (bash .ci/run does it)');
  }
  const port = options.port ?? await freePort();
  const child: ChildProcess = spawn('redis-server', [
    '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--loglevel', 'warning',
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Bounded: 200 tries of 25 ms.
  for (let i = 0; i < 200; i++) {
    if (await pong(port)) break;
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode} before answering`);
    await new Promise((resolve) => setTimeout(resolve, 25));
    if (i === 199) throw new Error('redis-server did not answer PING within 5 s');
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async stop() {
      if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGTERM');
      await exited;
    },
  };
}
