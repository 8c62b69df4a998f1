// `watch acme/web` in the interactive terminal chat, on the sandbox's clock: red at once (broken since bob's
// commit), green once the revert is merged and its pipeline passes — fixed by that merge request, named — and Ctrl+C
// ends the watch and brings the prompt back with the session. A revert open when red is followed: its own pipeline
// failing is printed with the retry typed out.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/sandbox/core/clock.js';
import { terminalWatch } from '../../../src/terminal/watch.js';
import type { TriageReport } from '../../../src/operations/composed/triage.js';
import type { WatchEvent } from '../../../src/watch/branch-watch.js';
import { useSandbox } from '../../helpers/mcp.js';
import { operationsWithTriageAt } from '../../helpers/watch.js';
import { testDispatcher } from '../../helpers/dispatcher.js';
import { startPipeChat } from '../../helpers/pipe-chat.js';

const clock = new ManualClock();
const env = useSandbox({ clock });
/** The registry with triage reading the sandbox's clock. */
const ops = operationsWithTriageAt(() => clock.now());
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const dispatcher = () => testDispatcher(() => env.client, { operations: ops });

async function call<T = Record<string, unknown>>(name: string, input: Record<string, unknown>): Promise<T> {
  let reply = await dispatcher().call(name, input);
  if (reply.kind === 'approve') reply = await dispatcher().approved(reply.operation, reply.input);
  if (reply.kind !== 'message' || !reply.outcome?.ok) throw new Error(`${name} failed`);
  return reply.outcome.result.data as T;
}

/** The interactive chat with the terminal watch on the sandbox's clock: what it printed, and how to drive it. */
function startChat() {
  const chat = startPipeChat({
    dispatcher: dispatcher(),
    operations: ops,
    follow: terminalWatch({
      operations: () => ops,
      runContext: () => ({ client: env.client }),
      clock,
      intervalMs: 1000,
    }),
  });
  const waitFor = async (pattern: RegExp, advance = false) => {
    for (let step = 0; step < 400; step++) {
      if (pattern.test(chat.printed())) return;
      if (advance) clock.advance(1000);
      await sleep(15);
    }
    throw new Error(`never printed ${pattern}; printed:\n${chat.printed()}`);
  };
  const interrupt = () => {
    expect(chat.listening()).toBe(true);
    chat.interrupt();
  };
  return { input: chat.input, ended: chat.ended, waitFor, printed: chat.printed, interrupt };
}

/** The commit that turned acme/web's main red. */
async function culpritSha(): Promise<string> {
  const commits = await call<Array<Record<string, unknown>>>('list_commits', {
    id: 'acme/web',
    ref_name: 'main',
    per_page: 100,
  });
  return String(commits.find((c) => c.title === "Show order dates in the store's time zone")!.id);
}

describe('watch in the terminal chat', () => {
  it('follows a revert open when red: its own pipeline failing is printed, with its retry typed out', async () => {
    const culprit = await culpritSha();
    // A revert made by hand that keeps the time-zone line: its pipeline's test fails as main's does.
    await call('create_branch', { id: 'acme/web', branch: 'undo-dates', ref: 'main' });
    const mr = await call<{ iid: number }>('create_merge_request', {
      id: 'acme/web',
      source_branch: 'undo-dates',
      target_branch: 'main',
      title: 'Undo the date change',
      description: `This reverts commit ${culprit}.`,
    });
    const chat = startChat();
    chat.input.write('watch acme/web\n');
    await chat.waitFor(/acme\/web main is RED\n/);
    await call('create_commit', {
      id: 'acme/web',
      branch: 'undo-dates',
      commit_message: 'Note why the dates change goes',
      actions: [{ action: 'create', file_path: 'notes/undo-dates.md', content: 'The date test broke.\n' }],
    });
    await chat.waitFor(
      new RegExp(
        `acme/web main: !${mr.iid}'s pipeline #(\\d+) failed at test\n  → retry pipeline #\\1 of !${mr.iid}: pipeline retry acme/web \\1\n`,
      ),
      true,
    );
    chat.interrupt();
    await chat.waitFor(/Stopped watching \(Ctrl\+C\)\.\n\nforgeops> $/);
    chat.input.write('exit\n');
    expect(await chat.ended).toBe(0);
    await call('update_merge_request', { id: 'acme/web', merge_request_iid: mr.iid, state_event: 'close' });
  });

  it('prints red at once, green after the revert is merged (naming it), and Ctrl+C returns to the prompt', async () => {
    const chat = startChat();
    chat.input.write('watch acme/web\n');
    await chat.waitFor(/acme\/web main is RED\n/);
    const culprit = await culpritSha();
    // The revert tried above ran the test too: its run counts.
    expect(chat.printed()).toMatch(
      new RegExp(`broken: test failed on (\\d+) of \\1 runs since ${culprit.slice(0, 8)}`),
    );
    expect(chat.printed()).toMatch(
      new RegExp(`first red: #\\d+ at ${culprit.slice(0, 8)} Show order dates in the store's time zone \\(Bob Chen\\)`),
    );
    // Where it went, in triage's words, before the rollbacks it offers typed out.
    expect(chat.printed()).toMatch(
      new RegExp(
        `  where it went: ${culprit.slice(0, 8)} reached [^\n]*production[^\n]* — it is live in PRODUCTION\n(.*\n)*  → roll back production: `,
      ),
    );

    const made = await call<{ merge_request: { iid: number } }>('revert_as_merge_request', {
      id: 'acme/web',
      sha: culprit.slice(0, 8),
    });
    await call('merge_merge_request', { id: 'acme/web', merge_request_iid: made.merge_request.iid });
    // The merge commit names the merge request: the green is said as Slack says it, not as the merge commit's title.
    await chat.waitFor(
      new RegExp(
        `acme/web main is green again after .+: fixed by !${made.merge_request.iid} \\(revert of ${culprit.slice(0, 8)}\\)\n`,
      ),
      true,
    );
    const printed = chat.printed();
    expect(printed.indexOf('is RED')).toBeLessThan(printed.indexOf('green again'));
    expect(printed.match(/is RED/g)).toHaveLength(1);

    chat.interrupt();
    await chat.waitFor(/Stopped watching \(Ctrl\+C\)\.\n\nforgeops> $/);
    // The watch is over: the clock moving on prints nothing more, and the session takes the next command.
    const length = chat.printed().length;
    clock.advance(60_000);
    await sleep(50);
    expect(chat.printed().length).toBe(length);
    chat.input.write('exit\n');
    expect(await chat.ended).toBe(0);
  });
});

/** acme/web's main red since pipeline #9 (episode 'e'), told as `kind`, with `report` adding to the triage report. */
function redOnMain(kind: 'red' | 'still-red', report: Partial<TriageReport>): WatchEvent {
  return {
    kind,
    project: 'acme/web',
    ref: 'main',
    episode: 'e',
    report: {
      project: 'acme/web',
      default_branch: 'main',
      verdict: 'red',
      because: "the head's latest finished pipeline #9 failed",
      failed_jobs: [],
      actions: [],
      unread: [],
      as_of: '2026-11-27T00:00:00Z',
      ...report,
    },
  };
}

describe('a watch event as terminal text', () => {
  it("spells out escape sequences in anyone's text and types out what to press as commands", async () => {
    const { watchEventText } = await import('../../../src/terminal/watch.js');
    const text = watchEventText(
      redOnMain('red', {
        red_since: {
          first_red: {
            pipeline: 8,
            sha: 'abcdef0123456789',
            title: 'Fix\x1b]0;pwned\x07\x1b[2J',
            author: 'Mallory\x1b[31m',
          },
          suspects: [],
          more_suspects: false,
          ping: [],
        },
        failed_jobs: [{ id: 27, name: 'test\x1b[1A', stage: 'test' }],
        actions: [
          { label: 'Retry the failed jobs', operation: 'retry_pipeline', input: { id: 'acme/web', pipeline_id: 9 } },
        ],
      }),
      Date.parse('2026-11-27T00:00:00Z'),
      ops,
    );
    expect(text).not.toMatch(/\x1b|\x07/);
    expect(text).toContain('first red: #8 at abcdef01 Fix');
    expect(text).toContain('  → retry the failed jobs: pipeline retry acme/web 9');
  });

  it('says where the culprit went in the words triage uses, before what to type', async () => {
    const { watchEventText } = await import('../../../src/terminal/watch.js');
    const { reachText } = await import('../../../src/operations/composed/culprit-reach.js');
    const now = Date.parse('2026-11-27T00:00:00Z');
    const deployed = {
      culprit: 'abcdef0123456789',
      environments: [
        {
          environment: 'production',
          environment_id: 3,
          tier: 'production',
          holds: 'reached' as const,
          deployment_id: 14,
          sha: 'abcdef0123456789',
          ref: 'main',
          at: '2026-11-26T23:40:00Z',
          rollback_to: { deployment_id: 10, sha: 'eff0067000000000', ref: 'v1.1.0' },
        },
      ],
    };
    const text = watchEventText(
      redOnMain('still-red', {
        deployed,
        failed_jobs: [],
        actions: [
          {
            label: 'Roll back production',
            operation: 'rollback_environment',
            input: { id: 'acme/web', environment: 3, to: 10, current_deployment_id: 14 },
          },
        ],
      }),
      now,
      ops,
    );
    const lines = text.split('\n');
    const where = lines.indexOf(`  where it went: ${reachText(deployed, now)}`);
    expect(where).toBeGreaterThan(0);
    expect(lines[where]).toContain('abcdef01 reached production');
    expect(lines.findIndex((line) => line.startsWith('  → roll back production: '))).toBeGreaterThan(where);
  });
});
