// The machine's programs the test suite needs beyond npm packages: finds what is missing, installs it from Debian's
// packages when it can (root with apt-get), and otherwise names exactly what to run. Used by `npm test` and .ci/run.
import { execFileSync, spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * What the tests need, why, how to tell it is there, and the Debian package that brings it. `check` gives the
 * program to find on PATH, or a command whose success says the thing is there (a Python module).
 */
export const TEST_DEPENDENCIES = [
  { why: 'the sandbox keeps repositories as real git repositories', program: 'git', debian: 'git' },
  { why: 'the sandbox writes .tar.bz2 archives', program: 'bzip2', debian: 'bzip2' },
  { why: 'the private-CA test makes its certificates', program: 'openssl', debian: 'openssl' },
  { why: 'the shared-state tests run a real Redis', program: 'redis-server', debian: 'redis-server' },
  { why: 'the tests of several replicas put a real haproxy in front of them', program: 'haproxy', debian: 'haproxy' },
  { why: 'the tests of several replicas put a real nginx in front of them', program: 'nginx', debian: 'nginx-light' },
  {
    why: 'the interop tests drive the sandbox with python-gitlab, a client nobody here wrote',
    // Debian's module is importable by Debian's Python only (a pyenv python3 earlier on PATH does not see it).
    probe: ['/usr/bin/python3', ['-c', 'import gitlab']],
    debian: 'python3-gitlab',
  },
  // Debian's build, driven by playwright-core: no browser is downloaded at npm install.
  {
    why: 'the browser tests load the triage view into a host page in headless Chromium',
    program: 'chromium',
    debian: 'chromium',
  },
];

/** Whether `program` is an executable file in one of PATH's folders: the tests start each one by name. */
export function onPath(program, path = process.env.PATH ?? '') {
  return path
    .split(delimiter)
    .filter(Boolean)
    .some((folder) => {
      try {
        accessSync(join(folder, program), constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
}

function probeSucceeds([command, args]) {
  return spawnSync(command, args, { stdio: 'ignore', timeout: 30_000 }).status === 0;
}

/** The dependencies not on this machine. */
export function missingDependencies({ has = onPath, probe = probeSucceeds } = {}) {
  return TEST_DEPENDENCIES.filter((dep) => (dep.program ? !has(dep.program) : !probe(dep.probe)));
}

/** The one command that installs `missing` on Debian, as a person would type it. */
export function installCommand(missing) {
  return `apt-get update && apt-get install -y --no-install-recommends ${missing.map((dep) => dep.debian).join(' ')}`;
}

/**
 * Installs what is missing when this process may (root, apt-get on PATH); otherwise says what to run and why.
 * Returns whether everything is there now. `run` and the checks are injectable so the decision can be tested.
 */
export function ensureTestDependencies({
  has = onPath,
  probe = probeSucceeds,
  isRoot = process.getuid?.() === 0,
  run = (command, args) => execFileSync(command, args, { stdio: ['ignore', 'ignore', 'inherit'] }),
  log = (line) => process.stderr.write(`${line}\n`),
} = {}) {
  const missing = missingDependencies({ has, probe });
  if (missing.length === 0) return true;
  const names = missing.map((dep) => dep.debian).join(', ');
  const reasons = missing.map((dep) => `  ${dep.debian}: ${dep.why}`).join('\n');
  if (!isRoot || !has('apt-get')) {
    log(
      `The tests need programs this machine lacks:\n${reasons}\n` +
        `Install them${isRoot ? '' : ' as root'} (Debian or Ubuntu), then run npm test again:\n  ${isRoot ? '' : "sudo sh -c '"}${installCommand(missing)}${isRoot ? '' : "'"}`,
    );
    return false;
  }
  log(`Installing what the tests need from Debian's packages: ${names}`);
  try {
    run('apt-get', ['update', '-qq']);
    run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing.map((dep) => dep.debian)]);
  } catch (error) {
    log(
      `Installing ${names} failed (${error.message}). Run it by hand, then npm test again:\n  ${installCommand(missing)}`,
    );
    return false;
  }
  const still = missingDependencies({ has, probe });
  if (still.length > 0) {
    log(`Still missing after apt-get install: ${still.map((dep) => dep.debian).join(', ')}.`);
    return false;
  }
  return true;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  // apt must never stop to ask a question: npm test and CI have no one at the keyboard.
  process.exitCode = ensureTestDependencies({
    run: (command, args) =>
      execFileSync(command, args, {
        stdio: ['ignore', 'ignore', 'inherit'],
        env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      }),
  })
    ? 0
    : 1;
}
