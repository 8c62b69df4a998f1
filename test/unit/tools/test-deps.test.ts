// npm test on a fresh machine: what the suite needs beyond npm packages is installed when it can be, named exactly when not.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureTestDependencies, TEST_DEPENDENCIES } from '../../../tools/test-deps.mjs';

const SCRIPT = join(import.meta.dirname, '../../../tools/test-deps.mjs');
const scratch: string[] = [];
afterEach(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A machine that has only the programs named (and node): a PATH of one folder holding links to them. */
function machineWith(programs: Record<string, string>): { bin: string; aptLog: string } {
  const dir = mkdtempSync(join(tmpdir(), 'forgeops-test-deps-'));
  scratch.push(dir);
  const bin = join(dir, 'bin');
  const aptLog = join(dir, 'apt.log');
  mkdirSync(bin);
  symlinkSync(process.execPath, join(bin, 'node'));
  for (const [name, target] of Object.entries(programs)) symlinkSync(target, join(bin, name));
  // apt-get that records each call and installs nothing: the script must notice that it is still missing.
  writeFileSync(join(bin, 'apt-get'), `#!/bin/sh\necho "$@" >> ${aptLog}\n`);
  chmodSync(join(bin, 'apt-get'), 0o755);
  return { bin, aptLog };
}

describe("the test suite's machine dependencies", () => {
  it('names every program a test starts by name, with its Debian package', () => {
    const packages = TEST_DEPENDENCIES.map((dep) => dep.debian);
    expect(packages).toEqual(
      expect.arrayContaining([
        'git',
        'bzip2',
        'openssl',
        'redis-server',
        'haproxy',
        'nginx-light',
        'python3-gitlab',
        'chromium',
      ]),
    );
  });

  it.skipIf(process.getuid?.() !== 0)(
    'as root with apt-get, installs exactly what is missing, then checks again (the script, as npm test runs it)',
    () => {
      const { bin, aptLog } = machineWith({ git: '/usr/bin/git' });
      const run = spawnSync(process.execPath, [SCRIPT], { env: { PATH: bin }, encoding: 'utf8', timeout: 60_000 });
      const calls = readFileSync(aptLog, 'utf8').trim().split('\n');
      expect(calls[0]).toBe('update -qq');
      expect(calls[1]).toBe(
        'install -y -qq --no-install-recommends bzip2 openssl redis-server haproxy nginx-light' +
          (spawnSync('/usr/bin/python3', ['-c', 'import gitlab']).status === 0 ? '' : ' python3-gitlab') +
          ' chromium',
      );
      // The fake apt-get installed nothing: the run fails and says what is still missing, rather than going on.
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(
        'Still missing after apt-get install: bzip2, openssl, redis-server, haproxy, nginx-light',
      );
      expect(run.stderr).toMatch(/Still missing after apt-get install: .*chromium\./);
    },
  );

  it('with everything there, installs nothing and passes', () => {
    const calls: string[][] = [];
    const ok = ensureTestDependencies({
      has: () => true,
      probe: () => true,
      isRoot: true,
      run: (c, a) => calls.push([c, ...a]),
      log: () => {},
    });
    expect(ok).toBe(true);
    expect(calls).toEqual([]);
  });

  it('without root, installs nothing and names the one command to run, and why each package is needed', () => {
    const lines: string[] = [];
    const calls: string[][] = [];
    const ok = ensureTestDependencies({
      has: (program) => program !== 'redis-server' && program !== 'haproxy' && program !== 'chromium',
      probe: () => false,
      isRoot: false,
      run: (c, a) => calls.push([c, ...a]),
      log: (line) => lines.push(line),
    });
    expect(ok).toBe(false);
    expect(calls).toEqual([]);
    const said = lines.join('\n');
    expect(said).toContain(
      "sudo sh -c 'apt-get update && apt-get install -y --no-install-recommends redis-server haproxy python3-gitlab chromium'",
    );
    expect(said).toContain('redis-server: the shared-state tests run a real Redis');
    expect(said).toContain('python3-gitlab: the interop tests drive the sandbox with python-gitlab');
    expect(said).toContain('chromium: the browser tests load the triage view into a host page in headless Chromium');
  });

  it('when apt-get fails, says so and what to run by hand', () => {
    const lines: string[] = [];
    const ok = ensureTestDependencies({
      has: (program) => program !== 'nginx',
      probe: () => true,
      isRoot: true,
      run: () => {
        throw new Error('E: Unable to locate package nginx-light');
      },
      log: (line) => lines.push(line),
    });
    expect(ok).toBe(false);
    expect(lines.join('\n')).toContain(
      'Installing nginx-light failed (E: Unable to locate package nginx-light). Run it by hand, then npm test again:\n  apt-get update && apt-get install -y --no-install-recommends nginx-light',
    );
  });
});
