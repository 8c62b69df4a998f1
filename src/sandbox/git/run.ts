// Runs the git program for the sandbox: no shell, isolated from the machine's git configuration, binary-safe.
import { spawn } from 'node:child_process';

/** A git command that exited with a non-zero status; stderr says why in git's words. */
export class GitCommandError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly exitCode: number | null,
    readonly stderr: string,
    readonly stdout: Buffer,
  ) {
    super(`git ${args[0] ?? ''} failed (${exitCode ?? 'signal'}): ${stderr.trim().split('\n').slice(-3).join(' | ')}`);
    this.name = 'GitCommandError';
  }
}

export interface RunOptions {
  /** Bytes written to git's stdin. */
  input?: Buffer | string;
  /** Extra environment, e.g. GIT_INDEX_FILE or author identity. */
  env?: Record<string, string>;
  /** Exit codes that are answers rather than failures (e.g. 1 for `merge-base --is-ancestor`). */
  okCodes?: number[];
  /** Work tree for the few commands that need one. */
  cwd?: string;
}

export interface RunResult {
  stdout: Buffer;
  stderr: string;
  exitCode: number;
}

// Options that keep every call independent of the machine and quiet in the background.
const FIXED_CONFIG = [
  '-c',
  'gc.auto=0',
  '-c',
  'maintenance.auto=false',
  '-c',
  'core.quotePath=false',
  '-c',
  'advice.detachedHead=false',
  '-c',
  'init.defaultBranch=main',
  '-c',
  'protocol.file.allow=always',
];

/**
 * Only PATH is taken from the process: a GIT_DIR or GIT_INDEX_FILE set by whoever started us (a git hook, say)
 * must never leak into the sandbox's repositories, nor the machine's or user's git config.
 */
function gitEnv(gitDir: string | null, extra: Record<string, string> | undefined): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: '/nonexistent',
    LC_ALL: 'C',
    TZ: 'UTC',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_LITERAL_PATHSPECS: '1',
    GIT_AUTHOR_NAME: 'Sandbox',
    GIT_AUTHOR_EMAIL: 'sandbox@localhost',
    GIT_COMMITTER_NAME: 'Sandbox',
    GIT_COMMITTER_EMAIL: 'sandbox@localhost',
    ...(gitDir === null ? {} : { GIT_DIR: gitDir }),
    ...extra,
  };
}

/** Runs `git <args>` against the repository at gitDir (null: no repository, e.g. for init). */
export async function runGit(
  gitDir: string | null,
  args: readonly string[],
  options: RunOptions = {},
): Promise<RunResult> {
  const result = await runProgram('git', [...FIXED_CONFIG, ...args], {
    input: options.input,
    env: gitEnv(gitDir, options.env),
    cwd: options.cwd ?? gitDir ?? undefined,
  });
  if (result.exitCode === 0 || (result.exitCode !== null && options.okCodes?.includes(result.exitCode))) {
    return { stdout: result.stdout, stderr: result.stderr, exitCode: result.exitCode };
  }
  throw new GitCommandError(args, result.exitCode, result.stderr, result.stdout);
}

/** Runs a program without a shell, feeding it `input` and collecting its output whatever its exit status. */
export function runProgram(
  command: string,
  args: readonly string[],
  options: { input?: Buffer | string; env: NodeJS.ProcessEnv; cwd?: string },
): Promise<{ stdout: Buffer; stderr: string; exitCode: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: options.env, cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    // The program may exit before reading all of stdin (e.g. on a bad argument); the exit code tells the story.
    child.stdin.on('error', () => undefined);
    child.on('error', reject);
    child.on('close', (code) => {
      resolve({ stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8'), exitCode: code });
    });
    child.stdin.end(options.input ?? '');
  });
}
