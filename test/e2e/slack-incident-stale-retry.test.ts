// A stale Retry on the incident message, pressed after its premise changed: the message kept for days still offers
// the Retry it drew on red pipeline #N. Once a newer push ran (and failed again) and once main is green again, a press
// runs nothing — the sandbox sees no retry of #N — tells the presser alone what changed, and leaves the message and
// its thread as they were; the message's own Retry, drawn on the newer pipeline, still runs.
import { describe, expect, it } from 'vitest';
import { buttonsOf, eventually, type MessageButton, messageText, waitFor } from '../helpers/slack.js';
import { useWatchedChannel } from '../helpers/slack-bot.js';

const PROJECT = 'acme%2Fweb';
// U1 is alice, maintainer of acme: she may retry, so only the premise stands between her press and a retry.
const { env, bots, posts, updatesOf, threadOf } = useWatchedChannel('stale-retry', { U1: 'maintainer' });

/** main's pipelines, newest first. */
async function mainPipelines() {
  const listed = await env.client.request<Array<{ id: number; status: string }>>({
    method: 'GET',
    path: `/projects/${PROJECT}/pipelines`,
    query: { ref: 'main', per_page: 20 },
    idempotent: true,
  });
  return listed.data;
}

/** Waits until main's newest pipeline is newer than `than` and finished as `status`; its id. */
function newerPipeline(than: number, status: 'failed' | 'success', what: string): Promise<number> {
  return eventually(
    async () => {
      const [newest] = await mainPipelines();
      return newest.id > than && newest.status === status ? newest.id : undefined;
    },
    30_000,
    what,
  );
}

/** The retries of pipeline `id` that reached the sandbox (POST …/pipelines/:id/retry), whoever sent them. */
const retriesOf = (id: number) =>
  env.sandbox.requests.filter({ method: 'POST' }).filter((r) => r.path.endsWith(`/pipelines/${id}/retry`));

/** The Retry of the message's newest version offering one. */
const latestRetry = (ts: string) =>
  [...updatesOf(ts)]
    .reverse()
    .flatMap((c) => buttonsOf(c.args))
    .find((b) => b.text.text === 'Retry failed jobs');

/** What a stale press changed around the message: its versions, its thread, the channel's posts. */
const around = (ts: string) => ({ updates: updatesOf(ts).length, thread: threadOf(ts).length, posts: posts().length });

/** The incident message's ts. */
let ts: string;
/** Red pipeline #N, main's latest when the message was drawn, and #M, the newer push's. */
let shown: number;
let newer: number;
/** The message's first Retry, drawn on #N: never spent (every press of it is refused). */
let staleRetry: MessageButton;
/** The Retry the message offered last before main went green, drawn on #M. */
let lastRetry: MessageButton;

describe("the incident message's Retry pressed after its premise changed", () => {
  it('runs nothing once a newer push failed again, tells the presser what changed, and the message goes on', async () => {
    [{ id: shown }] = await mainPipelines();
    await bots.command('watch acme/web', { user: 'U1' });
    const incident = await waitFor(() => posts()[0], 15_000, 'the incident message');
    ts = await waitFor(() => incident.answer?.ts as string | undefined, 5_000, "the message's ts");
    staleRetry = buttonsOf(incident.args).find((b) => b.text.text === 'Retry failed jobs')!;
    expect(staleRetry).toBeDefined();

    // A new push to main, the culprit still in it: its pipeline #M fails again, and the message is redrawn for it.
    await env.client.request({
      method: 'POST',
      path: `/projects/${PROJECT}/repository/commits`,
      body: {
        branch: 'main',
        commit_message: 'Note the on-call rota',
        actions: [{ action: 'create', file_path: 'docs/on-call.md', content: '# On call\n' }],
      },
      idempotent: false,
    });
    newer = await newerPipeline(shown, 'failed', "the new push's pipeline to fail");
    // Its versions since: running (no Retry while a pipeline runs), then still red with a Retry drawn on #M.
    lastRetry = await waitFor(
      () => (updatesOf(ts).some((c) => messageText(c.args).includes('still red')) ? latestRetry(ts) : undefined),
      20_000,
      'the message redrawn for the new red pipeline',
    );
    expect(lastRetry.value).not.toBe(staleRetry.value);

    const before = around(ts);
    const refused = await bots.press(staleRetry, { user: 'U1' });
    expect(refused.response_type).toBe('ephemeral');
    expect(messageText(refused)).toContain(
      `pipeline #${shown} is no longer main's latest (#${newer} is failed); nothing was retried.`,
    );
    expect(retriesOf(shown)).toEqual([]);
    // Refused before anything ran: no new version of the message, nothing in its thread, no other post.
    expect(around(ts)).toEqual(before);

    // The message's own Retry, drawn on #M, still applies and runs; the thread says so.
    const retried = await bots.press(lastRetry, { user: 'U1' });
    expect(messageText(retried)).toContain(`Retried pipeline #${newer}`);
    await waitFor(
      () =>
        threadOf(ts).find((c) => /<@U1> pressed \*Retry failed jobs\* → Retried pipeline/.test(messageText(c.args))),
      15_000,
      'the retry in the thread',
    );
    expect(retriesOf(newer)).toHaveLength(1);
    expect(retriesOf(shown)).toEqual([]);
    // Still red after the retry: the message is redrawn again, and the Retry it offers now is the last before green.
    await eventually(
      async () => ((await mainPipelines())[0].status === 'failed' ? true : undefined),
      30_000,
      'the retry of #M to fail again',
    );
    lastRetry = await waitFor(
      () => {
        const retry = latestRetry(ts);
        return retry && retry.value !== lastRetry.value ? retry : undefined;
      },
      20_000,
      'the message redrawn after the retry',
    );
  }, 90_000);

  it('runs nothing once main is green again, says since when, and leaves the resolved message as it is', async () => {
    // The fix: the culprit reverted on main; that pipeline passes and the message says resolved, without buttons.
    const revert = await waitFor(
      () =>
        [...updatesOf(ts), posts()[0]]
          .flatMap((c) => buttonsOf(c.args))
          .find((b) => /^Revert [0-9a-f]{8} as a merge request$/.test(b.text.text)),
      5_000,
      "the message's Revert",
    );
    const culprit = /^Revert ([0-9a-f]{8})/.exec(revert.text.text)![1];
    await env.client.request({
      method: 'POST',
      path: `/projects/${PROJECT}/repository/commits/${culprit}/revert`,
      body: { branch: 'main' },
      idempotent: false,
    });
    const green = await newerPipeline(newer, 'success', 'the revert pipeline to pass');
    const resolved = await waitFor(
      () => updatesOf(ts).find((c) => messageText(c.args).includes('*Resolved:* green again after')),
      20_000,
      'the resolved message',
    );
    expect(buttonsOf(resolved.args)).toEqual([]);

    const before = around(ts);
    for (const stale of [staleRetry, lastRetry]) {
      const refused = await bots.press(stale, { user: 'U1' });
      expect(refused.response_type).toBe('ephemeral');
      expect(messageText(refused)).toMatch(
        new RegExp(`main is green again since \\d{2}:\\d{2} UTC \\(#${green}\\); nothing was retried\\.`),
      );
    }
    expect(retriesOf(shown)).toEqual([]);
    expect(retriesOf(newer)).toHaveLength(1);
    // The message stays resolved: no new version, no line in its thread, no other post.
    expect(around(ts)).toEqual(before);
    expect(messageText(updatesOf(ts).at(-1)!.args)).toContain('*Resolved:* green again after');
  }, 60_000);
});
