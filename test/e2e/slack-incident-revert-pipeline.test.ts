// The incident message follows the revert's own pipeline: once Revert opened the merge request, a push to its branch
// that keeps the time-zone line makes that pipeline fail (its test, as main's), and the same message says "!N's
// pipeline #M failed at test" in place, offers Retry pipeline #M of !N and the log, and its thread says it failed. A
// Retry drawn on a pipeline no longer the merge request's latest runs nothing; the one drawn on its latest runs.
import { describe, expect, it } from 'vitest';
import { buttonsOf, eventually, messageText, waitFor } from '../helpers/slack.js';
import { revertAsMergeRequest, useWatchedChannel } from '../helpers/slack-bot.js';

const PROJECT = 'acme%2Fweb';
// U1 links the demo maintainer's token (alice's): she may revert, retry and read logs.
const { env, bots, posts, updatesOf, threadOf } = useWatchedChannel('revert-pipeline', { U1: 'maintainer' });

/** A push to `branch` (a new pipeline runs for it). */
async function push(branch: string, message: string, actions: Array<Record<string, unknown>>): Promise<void> {
  await env.client.request({
    method: 'POST',
    path: `/projects/${PROJECT}/repository/commits`,
    body: { branch, commit_message: message, actions },
    idempotent: false,
  });
}

/** The merge request's head pipeline as the service says it now. */
async function headPipeline(iid: number): Promise<{ id: number; status: string } | undefined> {
  const mr = await env.client.request<{ head_pipeline: { id: number; status: string } | null }>({
    method: 'GET',
    path: `/projects/${PROJECT}/merge_requests/${iid}`,
    idempotent: true,
  });
  return mr.data.head_pipeline ?? undefined;
}

/** The retries of pipeline `id` that reached the sandbox, whoever sent them. */
const retriesOf = (id: number) =>
  env.sandbox.requests.filter({ method: 'POST' }).filter((r) => r.path.endsWith(`/pipelines/${id}/retry`));

describe("the incident message follows the revert's own pipeline", () => {
  it('says in place that it failed and where, offers its retry and log, and a stale retry runs nothing', async () => {
    await bots.command('watch acme/web', { user: 'U1' });
    const incident = await waitFor(() => posts()[0], 15_000, 'the incident message');
    const ts = await waitFor(() => incident.answer?.ts as string | undefined, 5_000, "the message's ts");
    const revert = buttonsOf(incident.args).find((b) => b.text.text.startsWith('Revert '))!;
    const sha8 = /^Revert ([0-9a-f]{8})/.exec(revert.text.text)![1];
    await revertAsMergeRequest(bots, revert, { user: 'U1', thread: () => threadOf(ts), what: 'the revert opened' });
    const opened = await waitFor(
      () => updatesOf(ts).find((c) => /\*Revert:\* !\d+ /.test(messageText(c.args))),
      15_000,
      'the message naming the revert',
    );
    const iid = Number(/\*Revert:\* !(\d+) /.exec(messageText(opened.args))![1]);

    // Someone pushes to the revert's branch and keeps the time-zone line: its pipeline's test fails as main's does.
    await push(`revert-${sha8}`, 'Keep the offset after all', [
      {
        action: 'update',
        file_path: 'src/utils/format date.ts',
        content: 'export const offsetOf = (date: Date) => date.getTimezoneOffset() * 60_000;\n',
      },
    ]);
    const failed = await waitFor(
      () => updatesOf(ts).find((c) => new RegExp(`!${iid}'s pipeline #\\d+ failed at test`).test(messageText(c.args))),
      30_000,
      "the message saying the revert's pipeline failed",
    );
    const pipeline = Number(new RegExp(`!${iid}'s pipeline #(\\d+) failed`).exec(messageText(failed.args))![1]);
    expect(await headPipeline(iid)).toMatchObject({ id: pipeline, status: 'failed' });
    const labels = buttonsOf(failed.args).map((b) => b.text.text);
    expect(labels[0]).toBe(`Retry pipeline #${pipeline} of !${iid}`);
    expect(labels).toContain(`Show !${iid}'s log`);
    expect(labels).not.toContain('Merge when green');
    expect(labels.some((l) => l.startsWith('Revert '))).toBe(false);
    await waitFor(
      () =>
        threadOf(ts).find((c) => messageText(c.args).includes(`:x: !${iid}'s pipeline #${pipeline} failed at test`)),
      15_000,
      'the failure in the thread',
    );

    // The log of the revert's failed job, to the presser alone.
    const log = await bots.press(buttonsOf(failed.args).find((b) => b.text.text === `Show !${iid}'s log`)!, {
      user: 'U1',
    });
    expect(log.response_type).toBe('ephemeral');
    expect(messageText(log)).toContain('Expected: \\"2024-03-10\\"');

    // A newer push to the branch (the line still kept): the Retry drawn on #M stands on nothing now, and runs nothing.
    const staleRetry = buttonsOf(failed.args)[0];
    await push(`revert-${sha8}`, 'Note the offset', [
      { action: 'create', file_path: 'docs/offset.md', content: '# Offset\n' },
    ]);
    const newer = await eventually(
      async () => {
        const head = await headPipeline(iid);
        return head && head.id !== pipeline ? head.id : undefined;
      },
      15_000,
      "the branch's newer pipeline",
    );
    const stale = await bots.press(staleRetry, { user: 'U1' });
    expect(stale.response_type).toBe('ephemeral');
    expect(messageText(stale)).toContain(`pipeline #${pipeline} is no longer !${iid}'s latest (#${newer} is `);
    expect(retriesOf(pipeline)).toEqual([]);

    // The newer pipeline fails too; the message's Retry, drawn on it, runs as alice and the thread says so.
    const again = await waitFor(
      () => updatesOf(ts).find((c) => messageText(c.args).includes(`!${iid}'s pipeline #${newer} failed at test`)),
      30_000,
      'the message saying the newer pipeline failed',
    );
    const retry = buttonsOf(again.args)[0];
    expect(retry.text.text).toBe(`Retry pipeline #${newer} of !${iid}`);
    const first = await bots.press(retry, { user: 'U1' });
    const approve = buttonsOf(first).find((b) => b.action_id === 'forge_confirm');
    if (approve) await bots.press(approve, { user: 'U1' });
    await waitFor(
      () =>
        threadOf(ts).find((c) =>
          new RegExp(`<@U1> (pressed|approved) \\*Retry pipeline #${newer} of !${iid}\\* → `).test(messageText(c.args)),
        ),
      15_000,
      'the retry in the thread',
    );
    expect(retriesOf(newer)).toHaveLength(1);
    expect(retriesOf(pipeline)).toEqual([]);
    expect(posts()).toHaveLength(1);
  }, 90_000);
});
