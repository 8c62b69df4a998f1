// `watch acme/web` in the interactive terminal chat, on the sandbox's clock: red at once (broken since bob's
// commit), green once the revert is merged and its pipeline passes, and Ctrl+C ends the watch and brings the
// prompt back with the session.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createDispatcher } from '../../../src/chat/dispatch.js';
import { operations } from '../../../src/operations/index.js';
import type { Operation } from '../../../src/operations/engine/define.js';
import { triageOperation } from '../../../src/operations/composed/triage.js';
import { ManualClock } from '../../../src/sandbox/core/clock.js';
import { runInteractive } from '../../../src/terminal/chat.js';
import { terminalWatch } from '../../../src/watch/terminal-watch.js';
import { useSandbox } from '../../helpers/mcp.js';

const clock = new ManualClock();
const env = useSandbox({ clock });
const ops: Operation[] = operations.map((op) =>
  op.name === 'triage_project'
    ? triageOperation(
        () => ops,
        () => clock.now(),
      )
    : op,
);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const dispatcher = () =>
  createDispatcher({
    operations: ops,
    policy: { readOnly: false },
    runContext: () => ({ client: env.client }),
    explain: { operations: ops },
    defaultProject: { get: () => undefined, set: () => undefined },
  });

async function call<T = Record<string, unknown>>(name: string, input: Record<string, unknown>): Promise<T> {
  let reply = await dispatcher().call(name, input);
  if (reply.kind === 'approve') reply = await dispatcher().approved(reply.operation, reply.input);
  if (reply.kind !== 'message' || !reply.outcome?.ok) throw new Error(`${name} failed`);
  return reply.outcome.result.data as T;
}

describe('watch in the terminal chat', () => {
  it('prints red at once, green after the fix is merged, and Ctrl+C returns to the prompt', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let printed = '';
    output.on('data', (chunk: Buffer) => {
      printed += chunk.toString('utf8');
    });
    let interrupt: (() => void) | undefined;
    const ended = runInteractive({
      dispatcher: dispatcher(),
      operations: ops,
      input,
      output,
      errors: output,
      color: false,
      json: false,
      yes: false,
      prompt: () => 'forgeops> ',
      follow: terminalWatch({
        operations: () => ops,
        runContext: () => ({ client: env.client }),
        clock,
        intervalMs: 1000,
      }),
      interrupts: (handler) => {
        interrupt = handler;
        return () => {
          interrupt = undefined;
        };
      },
    });
    const waitFor = async (pattern: RegExp, advance = false) => {
      for (let step = 0; step < 400; step++) {
        if (pattern.test(printed)) return;
        if (advance) clock.advance(1000);
        await sleep(15);
      }
      throw new Error(`never printed ${pattern}; printed:\n${printed}`);
    };

    input.write('watch acme/web\n');
    await waitFor(/acme\/web main is RED\n/);
    const commits = await call<Array<Record<string, unknown>>>('list_commits', {
      id: 'acme/web',
      ref_name: 'main',
      per_page: 100,
    });
    const culprit = String(commits.find((c) => c.title === "Show order dates in the store's time zone")!.id);
    expect(printed).toContain(`broken: test failed on 2 of 2 runs since ${culprit.slice(0, 8)}`);
    expect(printed).toMatch(
      new RegExp(`first red: #\\d+ at ${culprit.slice(0, 8)} Show order dates in the store's time zone \\(Bob Chen\\)`),
    );

    const made = await call<{ merge_request: { iid: number } }>('revert_as_merge_request', {
      id: 'acme/web',
      sha: culprit.slice(0, 8),
    });
    await call('merge_merge_request', { id: 'acme/web', merge_request_iid: made.merge_request.iid });
    await waitFor(/acme\/web main is green again after .+: fixed by [0-9a-f]{8} /, true);
    expect(printed.indexOf('is RED')).toBeLessThan(printed.indexOf('green again'));
    expect(printed.match(/is RED/g)).toHaveLength(1);

    interrupt!();
    await waitFor(/Stopped watching \(Ctrl\+C\)\.\n\nforgeops> $/);
    // The watch is over: the clock moving on prints nothing more, and the session takes the next command.
    const length = printed.length;
    clock.advance(60_000);
    await sleep(50);
    expect(printed.length).toBe(length);
    input.write('exit\n');
    expect(await ended).toBe(0);
  });
});

describe('a watch event as terminal text', () => {
  it("spells out escape sequences in anyone's text and types out what to press as commands", async () => {
    const { watchEventText } = await import('../../../src/watch/terminal-watch.js');
    const text = watchEventText(
      {
        kind: 'red',
        project: 'acme/web',
        ref: 'main',
        episode: 'e',
        report: {
          project: 'acme/web',
          default_branch: 'main',
          verdict: 'red',
          because: "the head's latest finished pipeline #9 failed",
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
          unread: [],
          as_of: '2026-11-27T00:00:00Z',
        },
      },
      Date.parse('2026-11-27T00:00:00Z'),
      ops,
    );
    expect(text).not.toMatch(/\x1b|\x07/);
    expect(text).toContain('first red: #8 at abcdef01 Fix');
    expect(text).toContain('  → retry the failed jobs: pipeline retry acme/web 9');
  });
});
