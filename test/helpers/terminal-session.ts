// The built CLI's terminal chat on a pseudo-terminal (util-linux `script`), read as a person sees it: escape
// sequences removed, typed keys sent as a terminal sends them.
import { spawn, type ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** The built CLI (npm run build writes it). */
export const cli = `${root}dist/cli.js`;
/** No CODEHOST_* (the CLI brings its own sandbox unless the test names one), no colour, the run's temp directory. */
export const bareEnv = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: process.env.HOME ?? '/tmp',
  TMPDIR: tmpdir(),
  NO_COLOR: '1',
};

export /** The chat on a pseudo-terminal. */
class TerminalSession {
  private readonly child: ChildProcess;
  private text = '';
  private readonly exited: Promise<number | null>;

  constructor(env: Record<string, string> = {}) {
    this.child = spawn('script', ['-qfec', `${process.execPath} ${cli} chat`, '/dev/null'], {
      cwd: '/',
      env: { ...bareEnv, TERM: 'xterm', ...env },
    });
    const read = (chunk: Buffer) => {
      this.text += chunk
        .toString('utf8')
        .replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '')
        .replace(/\r/g, '');
    };
    this.child.stdout!.on('data', read);
    this.child.stderr!.on('data', read);
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
  }

  /** Everything shown since `from`. */
  shown(from = 0): string {
    return this.text.slice(from);
  }

  get length(): number {
    return this.text.length;
  }

  type(keys: string): void {
    this.child.stdin!.write(keys);
  }

  /** Waits (bounded) until `pattern` shows after `from`; returns where the match ends. */
  async waitFor(pattern: RegExp, from = 0, timeoutMs = 20_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = pattern.exec(this.text.slice(from));
      if (match) return from + match.index + match[0].length;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}; the screen so far:\n${this.text}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Types `keys`, then waits (bounded) until `pattern` shows after `from`; returns where the match ends. */
  typeAndWaitFor(keys: string, pattern: RegExp, from: number, timeoutMs?: number): Promise<number> {
    this.type(keys);
    return this.waitFor(pattern, from, timeoutMs);
  }

  /** Types the keys that end the chat (Ctrl+D unless told) and gives its exit code. */
  leave(keys = '\x04'): Promise<number | null> {
    this.type(keys);
    return this.exitCode();
  }

  async exitCode(timeoutMs = 10_000): Promise<number | null> {
    const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), timeoutMs).unref());
    const result = await Promise.race([this.exited, timer]);
    if (result === 'timeout') throw new Error(`the chat did not exit; the screen so far:\n${this.text}`);
    return result;
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }
}
