// A real haproxy for the tests of several replicas: Debian's package (bash .ci/run installs it), run in the foreground
// on loopback with a config written for the test, as a child of the test, stopped by its PID.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

export interface Haproxy {
  url: string;
  stop(): Promise<void>;
}

/** Starts haproxy with `config` (its bind address must be 127.0.0.1:`port`) and waits until it accepts. */
export async function startHaproxy(config: string, port: number): Promise<Haproxy> {
  if (spawnSync('haproxy', ['-v'], { stdio: 'ignore' }).status !== 0) {
    throw new Error('haproxy is not installed: `apt-get install -y --no-install-recommends haproxy` (bash .ci/run does it)');
  }
  const dir = mkdtempSync(join(tmpdir(), 'forgeops-haproxy-'));
  const file = join(dir, 'haproxy.cfg');
  writeFileSync(file, config);
  let output = '';
  const child = spawn('haproxy', ['-db', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d: Buffer) => { output += d.toString(); });
  child.stderr!.on('data', (d: Buffer) => { output += d.toString(); });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Bounded: 200 tries of 25 ms.
  for (let i = 0; ; i++) {
    if (await accepts(port)) break;
    if (child.exitCode !== null) throw new Error(`haproxy exited with ${child.exitCode}: ${output}`);
    if (i >= 200) throw new Error(`haproxy did not accept on ${port} within 5 s: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
