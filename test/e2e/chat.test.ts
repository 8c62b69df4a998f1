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
  /** A chat on a pseudo-terminal, killed after the test, at its first prompt; `at` is where that prompt ends. */
  const openAtPrompt = async (env: Record<string, string> = {}) => {
    const term = new TerminalSession(env);
    sessions.push(term);
    return { term, at: await term.waitFor(/forgeops> $/) };
  };
  const dirs: string[] = [];
  afterEach(() => {
    for (const s of sessions.splice(0)) s.kill();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('prompts, runs a command, completes with Tab, changes nothing when an approval request is answered no, and leaves on Ctrl+D', async () => {
    let { term, at } = await openAtPrompt();
    at = await term.typeAndWaitFor('pipeline get acme/web 1\r', /✓ Pipeline #1: success[\s\S]*forgeops> $/, at);

    at = await term.typeAndWaitFor('pipeline del\t', /pipeline delete/, at);
    at = await term.typeAndWaitFor(
      ' acme/web 1\r',
      /The exact call:\n\s+project: "acme\/web"\n\s+pipeline_id: 1[\s\S]*Run exactly this call\? \[y\/N\] $/,
      at,
    );
    at = await term.typeAndWaitFor('n\r', /Not run; nothing was changed\.\n[\s\S]*forgeops> $/, at);
    at = await term.typeAndWaitFor('pipeline get acme/web 1\r', /✓ Pipeline #1: success[\s\S]*forgeops> $/, at);

    at = await term.typeAndWaitFor('use acme/web\r', /Default project: acme\/web[\s\S]*forgeops acme\/web> $/, at);
    expect(await term.leave()).toBe(0);
  });

  it('says who it acts as, against the sandbox becomes another demo user with `as` (keeping what was done), and completes usernames', async () => {
    let { term, at } = await openAtPrompt();
    expect(term.shown()).toMatch(/^forgeops chat on the embedded sandbox as @alice \(Alice Martin\)\./m);
    expect(term.shown()).toContain('Demo users: root, alice, bob, carol, dave, erin; `as <user>` acts as another.');
    // Something done as alice stays in the sandbox when the chat acts as someone else.
    at = await term.typeAndWaitFor('branch create acme/web branch=as-test ref=main\r', /as-test[\s\S]*forgeops> $/, at);
    at = await term.typeAndWaitFor(
      'as @bob\r',
      /Now acting as @bob \(Bob Chen\), the sandbox's demo developer\.[\s\S]*forgeops> $/,
      at,
    );
    at = await term.typeAndWaitFor('user me\r', /Bob Chen[\s\S]*forgeops> $/, at);
    at = await term.typeAndWaitFor('branch get acme/web as-test\r', /as-test[\s\S]*forgeops> $/, at);
    // A 404 as a word: the sandbox's port may hold the digits (34049).
    expect(term.shown(at - 200)).not.toMatch(/\b404\b|not found/i);
    // Tab completes a username from the service.
    at = await term.typeAndWaitFor('project member remove acme/web @er\t', /@erin/, at);
    term.type('\x15');
    at = await term.typeAndWaitFor(
      'as nobody\r',
      /No demo user "nobody": one of root, alice, bob, carol, dave, erin\.[\s\S]*forgeops> $/,
      at,
    );
    expect(await term.leave()).toBe(0);
  });

  it('reads a ``` block over several lines with a continuation prompt, as help promises', async () => {
    let { term, at } = await openAtPrompt();
    at = await term.typeAndWaitFor(
      'file create acme/web notes.txt branch=main commit_message="Add notes" content=```\r',
      /\.\.\. $/,
      at,
    );
    at = await term.typeAndWaitFor('first line\r', /\.\.\. $/, at);
    at = await term.typeAndWaitFor('second line``` --dry-run\r', /Dry run: Create file[\s\S]*forgeops> $/, at);
    expect(term.shown()).toContain('"content": "first line\\nsecond line"');
    expect(term.shown()).not.toMatch(/Unclosed ``` block/);
  });

  it('drops a "command, y" pair pasted in one write: the y came before the question, so nothing runs until a y typed after it', async () => {
    let { term, at } = await openAtPrompt();
    term.type('pipeline delete acme/web 1\ry\r');
    at = await term.waitFor(
      /Ignored a line typed before this question was shown; answer it now\.\nRun exactly this call\? \[y\/N\] $/,
      at,
    );
    // Nothing ran: the pipeline is untouched while the question waits.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(term.shown(at)).toBe('');
    at = await term.typeAndWaitFor('y\r', /✓ Deleted pipeline #1 in acme\/web[\s\S]*forgeops> $/, at);
    at = await term.typeAndWaitFor('pipeline get acme/web 1\r', /404 Pipeline Not Found[\s\S]*forgeops> $/, at);
    expect(term.shown().match(/Deleted pipeline #1 in acme\/web/g)).toHaveLength(1);
    expect(await term.leave()).toBe(0);
  });

  it('keeps answers out of the history: ↑ after declining recalls the command, and yes means y or yes only', async () => {
    let { term, at } = await openAtPrompt();
    at = await term.typeAndWaitFor('pipeline delete acme/web 1\r', /\[y\/N\] $/, at);
    at = await term.typeAndWaitFor(' y\r', /Not run; nothing was changed\.\n[\s\S]*forgeops> $/, at);
    at = await term.typeAndWaitFor('\x1b[A', /pipeline delete acme\/web 1$/, at);
    at = await term.typeAndWaitFor('\r', /\[y\/N\] $/, at);
    at = await term.typeAndWaitFor('YES\r', /✓ Deleted pipeline #1 in acme\/web[\s\S]*forgeops> $/, at);
    expect(await term.leave()).toBe(0);
  });

  it("never prints a CI variable's value unless revealed, and a reveal asks first", async () => {
    let { term, at } = await openAtPrompt();
    at = await term.typeAndWaitFor(
      'variable create acme key=AWS_KEY value=AKIAIOSFODNN7EXAMPLE\r',
      /AWS_KEY[\s\S]*forgeops> $/,
      at,
    );
    at = await term.typeAndWaitFor(
      'variable get acme AWS_KEY\r',
      /<secret, 20 characters, sha256 [0-9a-f]{8}…>[\s\S]*forgeops> $/,
      at,
    );
    at = await term.typeAndWaitFor('variable list acme\r', /AWS_KEY[\s\S]*forgeops> $/, at);
    // The terminal echoes the line the human typed; nothing forgeops printed carries the value.
    const printed = () =>
      term
        .shown()
        .split('\n')
        .filter((line) => !line.startsWith('forgeops> variable create'))
        .join('\n');
    expect(printed()).not.toContain('AKIAIOSFODNN7EXAMPLE');
    at = await term.typeAndWaitFor('variable get acme AWS_KEY reveal=true\r', /unmasked[\s\S]*\[y\/N\] $/, at);
    expect(printed()).not.toContain('AKIAIOSFODNN7EXAMPLE');
    at = await term.typeAndWaitFor('y\r', /AKIAIOSFODNN7EXAMPLE[\s\S]*forgeops> $/, at);
    expect(await term.leave()).toBe(0);
  });

  it('stops a long command on Ctrl+C and keeps the session; Ctrl+C at a question is no; twice at an empty prompt leaves', async () => {
    let { term, at } = await openAtPrompt();
    // Pipeline #10 is the demo's running production deploy: waiting for it would last minutes.
    at = await term.typeAndWaitFor('pipeline wait acme/web 10 timeout_seconds=300\r', /timeout_seconds=300\n/, at);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    at = await term.typeAndWaitFor('\x03', /Stopped \(Ctrl\+C\); nothing was changed\.\n[\s\S]*forgeops> $/, at, 5_000);
    at = await term.typeAndWaitFor('pipeline delete acme/web 1\r', /\[y\/N\] $/, at);
    at = await term.typeAndWaitFor('\x03', /Not run; nothing was changed\.\n[\s\S]*forgeops> $/, at);
    at = await term.typeAndWaitFor('pipeline get acme/web 1\r', /✓ Pipeline #1: success[\s\S]*forgeops> $/, at);
    term.type('pipeline li');
    at = await term.typeAndWaitFor('\x03', /forgeops> $/, at);
    expect(term.shown(at)).toBe('');
    at = await term.typeAndWaitFor(
      '\x03',
      /\(To leave, press Ctrl\+C again, or Ctrl\+D, or type exit\.\)\nforgeops> $/,
      at,
    );
    expect(await term.leave('\x03')).toBe(0);
  });

  it('approves with y, and keeps the history in FORGEOPS_DATA_DIR', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'chat-history-'));
    dirs.push(dataDir);
    let { term, at } = await openAtPrompt({ FORGEOPS_DATA_DIR: dataDir });
    at = await term.typeAndWaitFor('pipeline delete acme/web 1\r', /\[y\/N\] $/, at);
    at = await term.typeAndWaitFor('y\r', /✓ Deleted pipeline #1 in acme\/web[\s\S]*forgeops> $/, at);
    at = await term.typeAndWaitFor(
      'pipeline get acme/web 1\r',
      /✗ Get pipeline failed\n\n\s+404 Pipeline Not Found[\s\S]*forgeops> $/,
      at,
    );
    at = await term.typeAndWaitFor('\x03', /To leave, press Ctrl\+C again[\s\S]*forgeops> $/, at);
    expect(await term.leave('\x03')).toBe(0);
    expect(readFileSync(join(dataDir, 'chat-history'), 'utf8')).toBe(
      'pipeline delete acme/web 1\npipeline get acme/web 1\n',
    );
  });
});
