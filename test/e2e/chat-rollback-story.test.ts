// The demo story of docs/operations-guide.md, typed into the built terminal chat on a pty against its embedded
// sandbox: the watch alerts that main is red, triage says bob's commit is live in production, the revert merges when
// green, production is rolled back (confirmed, then waiting for another maintainer's approval, given as root), and
// both end green.
import { afterEach, describe, expect, it } from 'vitest';
import { TerminalSession } from '../helpers/terminal-session.js';

const PROMPT = /\n\s*forgeops[^>\n]*> $/;
const QUESTION = /Run exactly this call\? \[y\/N\] $/;
let term: TerminalSession | undefined;
afterEach(() => term?.kill());

/** Types a command, answers yes if it asks, and waits (bounded) for the prompt after it; returns what it printed. */
async function run(session: TerminalSession, line: string, timeoutMs = 30_000): Promise<string> {
  const from = session.length;
  session.type(`${line}\r`);
  const shown = await session.waitFor(new RegExp(`${QUESTION.source}|${PROMPT.source}`), from, timeoutMs);
  if (QUESTION.test(session.shown(from).slice(0, shown - from))) {
    session.type('y\r');
    await session.waitFor(PROMPT, shown, timeoutMs);
  }
  return session.shown(from);
}

describe('the demo story: from main turned red to production rolled back and main green', () => {
  it('runs in the chat, in order, and each step says what the operations guide shows', {
    timeout: 240_000,
  }, async () => {
    term = new TerminalSession({ FORGEOPS_SANDBOX_JOB_TIME_SCALE: '0.05' });
    await term.waitFor(PROMPT);

    // The alert: the watch says main is red and offers the revert and the rollbacks; Ctrl+C ends it.
    const watching = term.length;
    term.type('watch acme/web\r');
    const alerted = await term.waitFor(/acme\/web main is RED\n[\s\S]*→ roll back production: [^\n]+\n/, watching);
    term.type('\x03');
    await term.waitFor(/Stopped watching \(Ctrl\+C\)\.\n[\s\S]*forgeops> $/, alerted);

    const triage = await run(term, 'triage acme/web');
    expect(triage).toMatch(/✗ acme\/web: main is RED/);
    const [, culprit] = /first red\s+#8 at ([0-9a-f]{8}) Show order dates in the store's time zone/.exec(triage)!;
    expect(triage).toMatch(
      new RegExp(
        `where it went\\s+${culprit} reached production at [^(]+\\(deployment #\\d+\\) and staging at [^(]+\\(deployment #7\\) — it is live in PRODUCTION`,
      ),
    );
    const [, rollback] = /→ roll back production: (environment rollback acme\/web 1 to=4 \S+)/.exec(triage)!;

    const revert = await run(term, `commit revert-mr acme/web ${culprit}`);
    expect(revert).toMatch(/✓ Opened merge request !6 "Revert "Show order dates in the store's time zone""/);
    const [, merge] = /→ merge !6 when green: (mr merge acme\/web 6 merge_when_pipeline_succeeds=true sha=\w+)/.exec(
      revert,
    )!;
    expect(await run(term, merge)).toMatch(/Merged !6 into main|will merge when pipeline #\d+ passes/);

    const rolled = await run(term, rollback);
    // Confirmed first, naming the environment, the commit it runs now and the one it will run.
    const [, release] = new RegExp(
      `It rolls production back: it runs ${culprit} \\(main, deployment #\\d+\\) now, and will run ([0-9a-f]{8}) \\(v1\\.1\\.0, deployment #4\\) again`,
    ).exec(rolled)!;
    const [, waiting] = /next\s+deployment #(\d+) waits for approval by someone else \(deployment approve\)/.exec(
      rolled,
    )!;

    // Another maintainer approves it: root, in the same chat.
    expect(await run(term, 'as root')).toMatch(/Now acting as @root/);
    const blocked = await run(term, 'deployment list acme/web environment=production status=blocked');
    const [, deployment] = new RegExp(`#(\\d+) production\\s+blocked · ${release} \\(v1\\.1\\.0\\)`).exec(blocked)!;
    expect(deployment).toBe(waiting);
    expect(await run(term, `deployment approve acme/web ${deployment} status=approved`)).toMatch(
      new RegExp(`Deployment #${deployment} approved by root`),
    );
    await run(term, 'as alice');

    // One settle waits up to the chat's call deadline; a loaded machine may need another (bounded).
    let settled = '';
    for (let i = 0; i < 5 && !/main is green/.test(settled); i++)
      settled = await run(term, 'pipeline settle acme/web merge_request_iid=6', 120_000);
    expect(settled).toMatch(/main is green: pipeline #\d+ \(the merge of !6\) passed/);
    // The approved deploy job runs within seconds at this time scale: a bounded wait for it.
    let production = '';
    for (let i = 0; i < 40 && !production.includes(`running  ${release} (v1.1.0), deployment #${deployment}`); i++) {
      if (i > 0) await new Promise((resolve) => setTimeout(resolve, 250));
      production = await run(term, 'environment get acme/web 1');
    }
    expect(production).toContain(`running  ${release} (v1.1.0), deployment #${deployment}`);
    expect(await run(term, 'triage acme/web')).toMatch(/✓ acme\/web: main is green/);
  });
});
