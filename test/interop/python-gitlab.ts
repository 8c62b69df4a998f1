// Runs the python-gitlab scripts of test/interop/python against a sandbox and hands back what each step gave or raised.
import { execFile, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { RequestRecord } from '../../src/sandbox/faults.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { installCommand, TEST_DEPENDENCIES } from '../../tools/test-deps.mjs';

/** Debian's Python: python3-gitlab installs for it alone (a pyenv or venv python3 earlier on PATH does not see it). */
export const DEBIAN_PYTHON = '/usr/bin/python3';
const SCRIPTS = fileURLToPath(new URL('./python/', import.meta.url));
/** -E: no PYTHONPATH or PYTHONHOME from the environment; -s: no user site-packages; -B: no __pycache__ in the tree. */
const PYTHON_FLAGS = ['-E', '-s', '-B'];

/**
 * The python-gitlab version `python` imports. When it imports none, fails with the package and the command that
 * installs it: the interop tests are part of npm test and CI, so a machine without it must not pass them silently.
 */
export function pythonGitlabVersion(python = DEBIAN_PYTHON): string {
  const probe = spawnSync(python, [...PYTHON_FLAGS, '-c', 'import gitlab; print(gitlab.__version__)'], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  if (probe.status === 0) return probe.stdout.trim();
  const why = probe.error ? probe.error.message : probe.stderr.trim().split('\n').at(-1);
  const needed = TEST_DEPENDENCIES.filter((dep) => dep.debian === 'python3-gitlab');
  throw new Error(
    `The interop tests need python-gitlab importable by ${python} (${why}). Install Debian's package as root, ` +
      `then run the tests again:\n  ${installCommand(needed)}\n(npm test installs it by itself when run as root with apt-get.)`,
  );
}

/** Set once python-gitlab was found, so the check runs before the first script only. */
let pythonGitlabFound = false;

/** A python-gitlab error as a script sees it. */
export interface PythonError {
  class: string;
  response_code: number | null;
  /** The service's message as python-gitlab parsed it: a string, or the object of a validation error. */
  message: unknown;
  trace: string;
}

type StepResult = { ok: true; value: unknown } | { ok: false; error: PythonError };

export interface ScriptRun {
  script: string;
  steps: Record<string, StepResult>;
  /** Requests the sandbox received while the script ran, in order. */
  requests: RequestRecord[];
  stderr: string;
}

/**
 * Runs one script as a separate process (asynchronously: the sandbox answers on this process's event loop) with
 * the sandbox's URL and demo tokens, and parses the JSON of its steps. A script that dies is a failed test, with its
 * stderr. Fails first, saying what to install, when python-gitlab is missing.
 */
export async function runScript(
  sandbox: Sandbox,
  script: string,
  facts: Record<string, unknown> = {},
): Promise<ScriptRun> {
  // Without python-gitlab every script dies on its import: say what to install instead.
  if (!pythonGitlabFound) {
    pythonGitlabVersion();
    pythonGitlabFound = true;
  }
  const before = sandbox.requests.all().length;
  const env = {
    PATH: '/usr/bin:/bin',
    LANG: 'C.UTF-8',
    SANDBOX_URL: sandbox.url,
    SANDBOX_TOKENS: JSON.stringify(sandbox.tokens),
    SANDBOX_FACTS: JSON.stringify(facts),
  };
  const { stdout, stderr } = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
    execFile(
      DEBIAN_PYTHON,
      [...PYTHON_FLAGS, script],
      { cwd: SCRIPTS, env, timeout: 25_000, maxBuffer: 16 * 1024 * 1024 },
      (error, out, err) => {
        if (error) reject(new Error(`${script} failed (${error.message}):\n${err}`));
        else resolve({ stdout: out, stderr: err });
      },
    );
  });
  let steps: Record<string, StepResult>;
  try {
    steps = JSON.parse(stdout) as Record<string, StepResult>;
  } catch {
    throw new Error(`${script} printed no JSON:\n${stdout}\n${stderr}`);
  }
  return { script, steps, requests: sandbox.requests.all().slice(before), stderr };
}

/**
 * The value a step returned (whatever JSON the script printed); a step that raised fails the test with
 * python-gitlab's error and where it came from.
 */
export function step<T = any>(run: ScriptRun, name: string): T {
  const result = run.steps[name];
  if (!result) throw new Error(`${run.script}: no step named ${name} ran`);
  if (!result.ok) {
    const { error } = result;
    throw new Error(
      `${run.script}, step ${name}: ${error.class}${error.response_code ? ` ${error.response_code}` : ''}: ` +
        `${JSON.stringify(error.message)}\n${error.trace}`,
    );
  }
  return result.value as T;
}
