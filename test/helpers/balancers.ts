// Real balancers for the tests of several replicas: haproxy and nginx from Debian's packages (bash .ci/run installs
// them), each run in the foreground on loopback with a config written for the test, as a child of the test, stopped
// by its PID.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listensOn, type PortReservation } from '../../tools/ports.mjs';
import { onOutput } from './child-output.js';

export { reservePort } from '../../tools/ports.mjs';

export interface Balancer {
  url: string;
  stop(): Promise<void>;
}

/**
 * Runs `command args…` until its own socket listens on `port` (bounded), and stops it by PID. A port that merely
 * accepts is not enough: chosen beforehand, it may have gone to another test's server, which would answer instead.
 */
async function runBalancer(
  name: string,
  command: string,
  args: (dir: string, file: string) => string[],
  config: string,
  at: number | PortReservation,
): Promise<Balancer> {
  if (spawnSync(command, ['-v'], { stdio: 'ignore' }).status !== 0) {
    throw new Error(
      `${name} is not installed: \`apt-get install -y --no-install-recommends ${name === 'nginx' ? 'nginx-light' : name}\` (bash .ci/run does it)`,
    );
  }
  const dir = mkdtempSync(join(tmpdir(), `forgeops-${name}-`));
  const file = join(dir, `${name}.conf`);
  writeFileSync(file, config);
  const port = typeof at === 'number' ? at : at.port;
  if (typeof at !== 'number') await at.release();
  let output = '';
  const child = spawn(command, args(dir, file), { stdio: ['ignore', 'pipe', 'pipe'] });
  onOutput(child, (chunk) => {
    output += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  // Bounded: 200 tries of 25 ms.
  for (let i = 0; ; i++) {
    if (child.pid !== undefined && listensOn(child.pid, port)) break;
    const failure =
      child.exitCode !== null
        ? `${name} exited with ${child.exitCode} (was port ${port} taken by another program since it was chosen?)`
        : i >= 200
          ? `${name} did not listen on ${port} within 5 s`
          : undefined;
    if (failure) {
      await stop();
      throw new Error(`${failure}: ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return { url: `http://127.0.0.1:${port}`, stop };
}

/** haproxy with `config` (its bind address must be 127.0.0.1:`port`; reserved with reservePort, held till then). */
export function startHaproxy(config: string, port: number | PortReservation): Promise<Balancer> {
  return runBalancer('haproxy', 'haproxy', (_dir, file) => ['-db', '-f', file], config, port);
}

/** nginx with `config` (it must listen on 127.0.0.1:`port`), its pid and error log in a directory of its own. */
export function startNginx(config: string, port: number | PortReservation): Promise<Balancer> {
  return runBalancer(
    'nginx',
    'nginx',
    (dir, file) => [
      '-p',
      dir,
      '-c',
      file,
      '-e',
      join(dir, 'error.log'),
      '-g',
      `daemon off; pid ${join(dir, 'nginx.pid')};`,
    ],
    config,
    port,
  );
}
