// The built CLI's terminal chat as people use it: one-shot commands and their exit status, --json, --yes, and a real
// terminal session on a pty (util-linux `script`): prompt, a command, tab completion, y/N answered no, history.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bareEnv, cli, TerminalSession } from '../helpers/terminal-session.js';

function chat(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [cli, 'chat', ...args], {
    cwd: '/',
    env: { ...bareEnv, ...env },
    encoding: 'utf8',
    timeout: 30_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

describe('forgeops chat "<command>" (one shot)', () => {
  it('prints help and exits 0', () => {
    const out = chat(['help']);
    expect(out.status).toBe(0);
    expect(out.stdout).toMatch(/Usage: <command> \[values\] \[key=value …\]/);
    expect(out.stdout).toMatch(/pipeline list/);
  });

  it('lists pipelines as readable text, never JSON', () => {
    const out = chat(['pipeline list acme/web']);
    expect(out.status).toBe(0);
    const lines = out.stdout.split('\n');
    expect(lines[0]).toMatch(/^\d+ pipelines$/);
    expect(lines[1]).toMatch(/^ {2}#\d+ {2}(running|pending|success|failed|canceled|skipped) · /);
    expect(out.stdout).not.toMatch(/[{"]/);
    expect(out.stderr).toBe('');
  });

  it('takes the command as several words too', () => {
    const out = chat(['pipeline', 'get', 'acme/web', '1']);
    expect(out.status).toBe(0);
    expect(out.stdout.split('\n')[0]).toBe('✓ Pipeline #1: success');
  });

  it('exits 1 with the explanation on stderr when the call fails or the line is wrong', () => {
    const missing = chat(['pipeline get acme/web 999999']);
    expect(missing.status).toBe(1);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(/^✗ Get pipeline failed\n\n {2}404 Pipeline Not Found/);
    const typo = chat(['pipline list acme/web']);
    expect(typo.status).toBe(1);
    expect(typo.stderr).toMatch(/Did you mean: pipeline list\?/);
    const bad = chat(['pipeline get acme/web pipeline_id=abc']);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/pipeline_id/);
    expect(bad.stderr).toMatch(/Usage: pipeline get <id> <pipeline_id>/);
  });

  it("prints the operation's data as JSON with --json", () => {
    const out = chat(['pipeline list acme/web per_page=2', '--json']);
    expect(out.status).toBe(0);
    const data = JSON.parse(out.stdout) as Array<{ id: number; status: string }>;
    expect(data).toHaveLength(2);
    expect(data[0]).toMatchObject({ id: expect.any(Number), status: expect.any(String) });
  });

  it('refuses a call that needs approval when there is no terminal to ask, and runs it with --yes', () => {
    const refused = chat(['pipeline delete acme/web 1']);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/The exact call:\n\s+project: "acme\/web"\n\s+pipeline_id: 1/);
    expect(refused.stderr).toMatch(/Not run: .*Nothing was changed\. .*--yes/);
    const approved = chat(['pipeline delete acme/web 1', '--yes']);
    expect(approved.status).toBe(0);
    expect(approved.stderr).toMatch(/\[y\/N\] yes \(--yes\)/);
    expect(approved.stdout).toBe('✓ Deleted pipeline #1 in acme/web\n');
  });

  it('answers an unknown option with the usage line and status 2', () => {
    const out = chat(['help', '--jsn']);
    expect(out.status).toBe(2);
    expect(out.stderr).toMatch(/unknown option '--jsn' for 'forgeops chat'; did you mean --json\?/);
  });
});

describe('forgeops chat with lines piped in', () => {
  const piped = (input: string, ...args: string[]) =>
    spawnSync(process.execPath, [cli, 'chat', ...args], {
      cwd: '/',
      env: bareEnv,
      encoding: 'utf8',
      timeout: 30_000,
      input,
    });

  it('reads every line, and refuses a call that needs a human: no line of a pipe answers a question (one rule with one shot)', () => {
    const out = piped('use acme/web\npipeline delete 1\ny\npipeline get 1\n');
    expect(out.status).toBe(0);
    expect(out.stdout).toMatch(
      /Default project: acme\/web[\s\S]*The exact call:[\s\S]*Not run: this call needs a y\/N answer and there is no terminal to ask on\. Nothing was changed\./,
    );
    // The "y" was read as a command of its own, not as an answer; the pipeline is still there.
    expect(out.stdout).toMatch(/Unknown command "y"[\s\S]*✓ Pipeline #1: success/);
    expect(out.stdout).not.toMatch(/Deleted pipeline #1 in acme\/web/);
  });

  it('runs such a call with --yes, which approves in advance every call that asks', () => {
    const out = piped('pipeline delete acme/web 1\npipeline get acme/web 1\n', '--yes');
    expect(out.stdout).toMatch(
      /Run exactly this call\? \[y\/N\] yes \(--yes\)\n[\s\S]*✓ Deleted pipeline #1 in acme\/web[\s\S]*404 Pipeline Not Found/,
    );
  });
});

describe('forgeops chat stopped by a SIGINT from outside', () => {
  it('stops the running command as Ctrl+C does, and the session goes on', async () => {
    const child = spawn(process.execPath, [cli, 'chat'], { cwd: '/', env: bareEnv, stdio: ['pipe', 'pipe', 'pipe'] });
    let shown = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      shown += chunk.toString('utf8');
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const waitFor = async (pattern: RegExp, from: number): Promise<number> => {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const match = pattern.exec(shown.slice(from));
        if (match) return from + match.index + match[0].length;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}; shown so far:\n${shown}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    try {
      let at = await waitFor(/forgeops> $/, 0);
      child.stdin!.write('pipeline wait acme/web 10 timeout_seconds=300\n');
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      process.kill(child.pid!, 'SIGINT');
      at = await waitFor(/Stopped \(Ctrl\+C\); nothing was changed\.\n\nforgeops> $/, at);
      child.stdin!.write('pipeline get acme/web 1\n');
      at = await waitFor(/✓ Pipeline #1: success[\s\S]*forgeops> $/, at);
      child.stdin!.end();
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});

describe('forgeops chat (a real terminal session)', () => {
  const sessions: TerminalSession[] = [];
  /** A chat on a pseudo-terminal, killed after the test. */
  const open = (env: Record<string, string> = {}) => {
    const term = new TerminalSession(env);
    sessions.push(term);
    return term;
  };
  const dirs: string[] = [];
  afterEach(() => {
    for (const s of sessions.splice(0)) s.kill();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('prompts, runs a command, completes with Tab, changes nothing when an approval request is answered no, and leaves on Ctrl+D', async () => {
    const term = open();
    let at = await term.waitFor(/forgeops> $/);
    term.type('pipeline get acme/web 1\r');
    at = await term.waitFor(/✓ Pipeline #1: success[\s\S]*forgeops> $/, at);

    term.type('pipeline del\t');
    at = await term.waitFor(/pipeline delete/, at);
    term.type(' acme/web 1\r');
    at = await term.waitFor(
      /The exact call:\n\s+project: "acme\/web"\n\s+pipeline_id: 1[\s\S]*Run exactly this call\? \[y\/N\] $/,
      at,
    );
    term.type('n\r');
    at = await term.waitFor(/Not run; nothing was changed\.\n[\s\S]*forgeops> $/, at);
    term.type('pipeline get acme/web 1\r');
    at = await term.waitFor(/✓ Pipeline #1: success[\s\S]*forgeops> $/, at);

    term.type('use acme/web\r');
    at = await term.waitFor(/Default project: acme\/web[\s\S]*forgeops acme\/web> $/, at);
    term.type('\x04');
    expect(await term.exitCode()).toBe(0);
  });

  it('says who it acts as, against the sandbox becomes another demo user with `as` (keeping what was done), and completes usernames', async () => {
    const term = open();
    let at = await term.waitFor(/forgeops> $/);
    expect(term.shown()).toMatch(/^forgeops chat on the embedded sandbox as @alice \(Alice Martin\)\./m);
    expect(term.shown()).toContain('Demo users: root, alice, bob, carol, dave, erin; `as <user>` acts as another.');
    // Something done as alice stays in the sandbox when the chat acts as someone else.
    term.type('branch create acme/web branch=as-test ref=main\r');
    at = await term.waitFor(/as-test[\s\S]*forgeops> $/, at);
    term.type('as @bob\r');
    at = await term.waitFor(/Now acting as @bob \(Bob Chen\), the sandbox's demo developer\.[\s\S]*forgeops> $/, at);
    term.type('user me\r');
    at = await term.waitFor(/Bob Chen[\s\S]*forgeops> $/, at);
    term.type('branch get acme/web as-test\r');
    at = await term.waitFor(/as-test[\s\S]*forgeops> $/, at);
    expect(term.shown(at - 200)).not.toMatch(/404/);
    // Tab completes a username from the service.
    term.type('project member remove acme/web @er\t');
    at = await term.waitFor(/@erin/, at);
    term.type('\x15');
    term.type('as nobody\r');
    at = await term.waitFor(
      /No demo user "nobody": one of root, alice, bob, carol, dave, erin\.[\s\S]*forgeops> $/,
      at,
    );
    term.type('\x04');
    expect(await term.exitCode()).toBe(0);
  });

  it('reads a ``` block over several lines with a continuation prompt, as help promises', async () => {
    const term = open();
    let at = await term.waitFor(/forgeops> $/);
    term.type('file create acme/web notes.txt branch=main commit_message="Add notes" content=```\r');
    at = await term.waitFor(/\.\.\. $/, at);
    term.type('first line\r');
    at = await term.waitFor(/\.\.\. $/, at);
    term.type('second line``` --dry-run\r');
    at = await term.waitFor(/Dry run: Create file[\s\S]*forgeops> $/, at);
    expect(term.shown()).toContain('"content": "first line\\nsecond line"');
    expect(term.shown()).not.toMatch(/Unclosed ``` block/);
  });

  it('drops a "command, y" pair pasted in one write: the y came before the question, so nothing runs until a y typed after it', async () => {
    const term = open();
    let at = await term.waitFor(/forgeops> $/);
    term.type('pipeline delete acme/web 1\ry\r');
    at = await term.waitFor(
      /Ignored a line typed before this question was shown; answer it now\.\nRun exactly this call\? \[y\/N\] $/,
      at,
    );
    // Nothing ran: the pipeline is untouched while the question waits.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(term.shown(at)).toBe('');
    term.type('y\r');
    at = await term.waitFor(/✓ Deleted pipeline #1 in acme\/web[\s\S]*forgeops> $/, at);
    term.type('pipeline get acme/web 1\r');
    at = await term.waitFor(/404 Pipeline Not Found[\s\S]*forgeops> $/, at);
    expect(term.shown().match(/Deleted pipeline #1 in acme\/web/g)).toHaveLength(1);
    term.type('\x04');
    expect(await term.exitCode()).toBe(0);
  });

  it('keeps answers out of the history: ↑ after declining recalls the command, and yes means y or yes only', async () => {
    const term = open();
    let at = await term.waitFor(/forgeops> $/);
    term.type('pipeline delete acme/web 1\r');
    at = await term.waitFor(/\[y\/N\] $/, at);
    term.type(' y\r');
    at = await term.waitFor(/Not run; nothing was changed\.\n[\s\S]*forgeops> $/, at);
    term.type('\x1b[A');
    at = await term.waitFor(/pipeline delete acme\/web 1$/, at);
    term.type('\r');
    at = await term.waitFor(/\[y\/N\] $/, at);
    term.type('YES\r');
    at = await term.waitFor(/✓ Deleted pipeline #1 in acme\/web[\s\S]*forgeops> $/, at);
    term.type('\x04');
    expect(await term.exitCode()).toBe(0);
  });

  it("never prints a CI variable's value unless revealed, and a reveal asks first", async () => {
    const term = open();
    let at = await term.waitFor(/forgeops> $/);
    term.type('variable create acme key=AWS_KEY value=AKIAIOSFODNN7EXAMPLE\r');
    at = await term.waitFor(/AWS_KEY[\s\S]*forgeops> $/, at);
    term.type('variable get acme AWS_KEY\r');
    at = await term.waitFor(/<secret, 20 characters, sha256 [0-9a-f]{8}…>[\s\S]*forgeops> $/, at);
    term.type('variable list acme\r');
    at = await term.waitFor(/AWS_KEY[\s\S]*forgeops> $/, at);
    // The terminal echoes the line the human typed; nothing forgeops printed carries the value.
    const printed = () =>
      term
        .shown()
        .split('\n')
        .filter((line) => !line.startsWith('forgeops> variable create'))
        .join('\n');
    expect(printed()).not.toContain('AKIAIOSFODNN7EXAMPLE');
    term.type('variable get acme AWS_KEY reveal=true\r');
    at = await term.waitFor(/unmasked[\s\S]*\[y\/N\] $/, at);
    expect(printed()).not.toContain('AKIAIOSFODNN7EXAMPLE');
    term.type('y\r');
    at = await term.waitFor(/AKIAIOSFODNN7EXAMPLE[\s\S]*forgeops> $/, at);
    term.type('\x04');
    expect(await term.exitCode()).toBe(0);
  });

  it('stops a long command on Ctrl+C and keeps the session; Ctrl+C at a question is no; twice at an empty prompt leaves', async () => {
    const term = open();
    let at = await term.waitFor(/forgeops> $/);
    // Pipeline #10 is the demo's running production deploy: waiting for it would last minutes.
    term.type('pipeline wait acme/web 10 timeout_seconds=300\r');
    at = await term.waitFor(/timeout_seconds=300\n/, at);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    term.type('\x03');
    at = await term.waitFor(/Stopped \(Ctrl\+C\); nothing was changed\.\n[\s\S]*forgeops> $/, at, 5_000);
    term.type('pipeline delete acme/web 1\r');
    at = await term.waitFor(/\[y\/N\] $/, at);
    term.type('\x03');
    at = await term.waitFor(/Not run; nothing was changed\.\n[\s\S]*forgeops> $/, at);
    term.type('pipeline get acme/web 1\r');
    at = await term.waitFor(/✓ Pipeline #1: success[\s\S]*forgeops> $/, at);
    term.type('pipeline li');
    term.type('\x03');
    at = await term.waitFor(/forgeops> $/, at);
    expect(term.shown(at)).toBe('');
    term.type('\x03');
    at = await term.waitFor(/\(To leave, press Ctrl\+C again, or Ctrl\+D, or type exit\.\)\nforgeops> $/, at);
    term.type('\x03');
    expect(await term.exitCode()).toBe(0);
  });

  it('approves with y, and keeps the history in FORGEOPS_DATA_DIR', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'chat-history-'));
    dirs.push(dataDir);
    const term = open({ FORGEOPS_DATA_DIR: dataDir });
    let at = await term.waitFor(/forgeops> $/);
    term.type('pipeline delete acme/web 1\r');
    at = await term.waitFor(/\[y\/N\] $/, at);
    term.type('y\r');
    at = await term.waitFor(/✓ Deleted pipeline #1 in acme\/web[\s\S]*forgeops> $/, at);
    term.type('pipeline get acme/web 1\r');
    at = await term.waitFor(/✗ Get pipeline failed\n\n\s+404 Pipeline Not Found[\s\S]*forgeops> $/, at);
    term.type('\x03');
    at = await term.waitFor(/To leave, press Ctrl\+C again[\s\S]*forgeops> $/, at);
    term.type('\x03');
    expect(await term.exitCode()).toBe(0);
    expect(readFileSync(join(dataDir, 'chat-history'), 'utf8')).toBe(
      'pipeline delete acme/web 1\npipeline get acme/web 1\n',
    );
  });
});
