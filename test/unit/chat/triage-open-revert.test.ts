// Triage knows the open merge requests that revert the culprit — forgeops's own revert-<sha8>, one whose description
// says "This reverts commit <sha>", one titled as git titles a revert — names them with their pipeline's state, and
// offers merging the first when green (or retrying its failed pipeline), never a second revert.
import { describe, expect, it } from 'vitest';
import type { ChatReply } from '../../../src/chat/dispatch.js';
import { operations } from '../../../src/operations/index.js';
import type { TriageReport } from '../../../src/operations/composed/triage.js';
import { openRevertAction, revertMatch, type OpenRevert } from '../../../src/operations/composed/open-reverts.js';
import { ManualClock } from '../../../src/sandbox/core/clock.js';
import { renderMessage } from '../../../src/terminal/render.js';
import { useSandbox } from '../../helpers/mcp.js';
import { testDispatcher } from '../../helpers/dispatcher.js';

// The clock stands still: a revert's pipeline stays pending or running, and one set to merge when green stays open,
// however long the machine takes between two reads (on the wall clock the runner merged it under load).
const env = useSandbox({ clock: new ManualClock() });
const PROJECT = 'acme/web';

function dispatcher() {
  return testDispatcher(() => env.client);
}

function messageOf(reply: ChatReply) {
  if (reply.kind !== 'message') throw new Error(`expected a message, got ${reply.kind}`);
  return reply;
}

async function data<T>(name: string, input: Record<string, unknown>): Promise<T> {
  const chat = dispatcher();
  let answer = await chat.call(name, input);
  // A merge asks first: the person says yes.
  if (answer.kind === 'approve') answer = await chat.approved(answer.operation, answer.input);
  const reply = messageOf(answer);
  if (!reply.outcome?.ok) throw new Error(`${name} failed: ${reply.message.title}`);
  return reply.outcome.result.data as T;
}

const triage = () => data<TriageReport>('triage_project', { id: PROJECT });

describe('how a merge request is known to revert the culprit', () => {
  const culprit = { sha: '4d7b7da8c0ffee11223344556677889900aabbcc', title: 'Show order dates in the time zone' };
  it('by the branch forgeops makes, the "This reverts commit" line, or the title git gives a revert', () => {
    expect(revertMatch({ source_branch: 'revert-4d7b7da8', title: 'x' }, culprit)).toBe('branch');
    expect(revertMatch({ source_branch: 'fix', description: 'This reverts commit 4d7b7da8c0.' }, culprit)).toBe(
      'trailer',
    );
    expect(revertMatch({ source_branch: 'fix', title: 'Revert "Show order dates in the time zone"' }, culprit)).toBe(
      'title',
    );
    expect(
      revertMatch(
        { source_branch: 'fix', title: 'Revert "Other"', description: 'This reverts commit 1234567.' },
        culprit,
      ),
    ).toBeUndefined();
  });

  it('offers merging when green, retrying a failed pipeline, and nothing once set to merge', () => {
    const mr: OpenRevert = {
      iid: 6,
      title: 'Revert "x"',
      source_branch: 'revert-4d7b7da8',
      sha: 'abc1234',
      matched_by: 'branch',
      pipeline: { id: 23, status: 'running' },
      merge_when_pipeline_succeeds: false,
    };
    expect(openRevertAction(PROJECT, mr)).toEqual({
      label: 'Merge !6 when green',
      operation: 'merge_merge_request',
      input: { id: PROJECT, merge_request_iid: 6, merge_when_pipeline_succeeds: true, sha: 'abc1234' },
      style: 'primary',
    });
    expect(openRevertAction(PROJECT, { ...mr, pipeline: { id: 23, status: 'failed' } })).toMatchObject({
      label: 'Retry pipeline #23 of !6',
      operation: 'retry_pipeline',
      input: { id: PROJECT, pipeline_id: 23 },
    });
    expect(openRevertAction(PROJECT, { ...mr, merge_when_pipeline_succeeds: true })).toBeUndefined();
  });
});

describe('triage with a revert of the culprit open', { shuffle: false }, () => {
  let culprit: string;

  it('names a merge request made elsewhere that says it reverts the culprit, and offers merging it', async () => {
    const before = await triage();
    culprit = before.red_since!.first_red.sha;
    expect(before.open_reverts).toBeUndefined();
    expect(before.actions.some((a) => a.operation === 'revert_as_merge_request')).toBe(true);

    await data('create_branch', { id: PROJECT, branch: 'fix-dates-by-hand', ref: 'main' });
    const byHand = await data<{ iid: number }>('create_merge_request', {
      id: PROJECT,
      source_branch: 'fix-dates-by-hand',
      target_branch: 'main',
      title: 'Take the date change back',
      description: `Broke the date test.\n\nThis reverts commit ${culprit}.`,
    });
    const report = await triage();
    expect(report.open_reverts).toEqual([expect.objectContaining({ iid: byHand.iid, matched_by: 'trailer' })]);
    expect(report.actions.some((a) => a.operation === 'revert_as_merge_request')).toBe(false);
    expect(report.actions[0]).toMatchObject({
      label: `Merge !${byHand.iid} when green`,
      operation: 'merge_merge_request',
      input: { id: PROJECT, merge_request_iid: byHand.iid, merge_when_pipeline_succeeds: true },
    });
    // Only the first step stands out.
    expect(report.actions.filter((a) => a.style === 'primary')).toHaveLength(1);
  });

  it("puts forgeops's own revert first, with its pipeline's state, pinned to its head", async () => {
    const made = await data<{ merge_request: { iid: number }; revert_commit: { id: string }; branch: string }>(
      'revert_as_merge_request',
      { id: PROJECT, sha: culprit },
    );
    const iid = made.merge_request.iid;
    const report = await triage();
    const [first] = report.open_reverts!;
    expect(first).toMatchObject({
      iid,
      matched_by: 'branch',
      source_branch: made.branch,
      sha: made.revert_commit.id,
      merge_when_pipeline_succeeds: false,
    });
    expect(first.pipeline?.status).toMatch(/^(pending|running)$/);
    expect(report.actions[0]).toEqual({
      label: `Merge !${iid} when green`,
      operation: 'merge_merge_request',
      input: { id: PROJECT, merge_request_iid: iid, merge_when_pipeline_succeeds: true, sha: made.revert_commit.id },
      style: 'primary',
    });
    const shown = renderMessage(messageOf(await dispatcher().dispatch(`triage ${PROJECT}`)).message, { operations });
    expect(shown).toMatch(
      new RegExp(
        `open revert +!${iid} Revert .* \\(${made.branch}\\): pipeline #${first.pipeline!.id} (pending|running)`,
      ),
    );
    expect(shown).not.toContain('revert-mr');
    // The chat's next step: the exact command that merges it when green.
    expect(shown).toContain(
      `→ merge !${iid} when green: mr merge ${PROJECT} ${iid} merge_when_pipeline_succeeds=true sha=${made.revert_commit.id}`,
    );
  });

  it('once set to merge when green, says so and offers no merge again', async () => {
    const iid = (await triage()).open_reverts![0].iid;
    await data('merge_merge_request', { id: PROJECT, merge_request_iid: iid, merge_when_pipeline_succeeds: true });
    const report = await triage();
    expect(report.open_reverts![0]).toMatchObject({ iid, merge_when_pipeline_succeeds: true });
    expect(report.actions.some((a) => a.input.merge_request_iid === iid)).toBe(false);
    expect(report.actions.some((a) => a.operation === 'revert_as_merge_request')).toBe(false);
    const shown = renderMessage(messageOf(await dispatcher().dispatch(`triage ${PROJECT}`)).message, { operations });
    expect(shown).toContain('set to merge when it passes');
  });

  it("checks a Merge when green button's premise: still open, the same head, not set to merge already", async () => {
    const [set, byHand] = (await triage()).open_reverts!;
    const premise = (extra: Record<string, unknown>) =>
      data<{ holds: boolean; said: string }>('check_button_premise', {
        id: PROJECT,
        kind: 'merge',
        ref: 'main',
        ...extra,
      });
    expect(await premise({ merge_request_iid: byHand.iid, sha: byHand.sha })).toEqual({ holds: true, said: '' });
    expect(await premise({ merge_request_iid: set.iid, sha: set.sha })).toEqual({
      holds: false,
      said: `merge request !${set.iid} is set to merge when its pipeline passes already (by alice); nothing was run.`,
    });
    expect((await premise({ merge_request_iid: byHand.iid, sha: 'deadbeef' })).said).toBe(
      `merge request !${byHand.iid}'s head moved to ${byHand.sha!.slice(0, 8)} since this button was drawn; nothing was run.`,
    );
    await data('update_merge_request', { id: PROJECT, merge_request_iid: byHand.iid, state_event: 'close' });
    expect(await premise({ merge_request_iid: byHand.iid, sha: byHand.sha })).toEqual({
      holds: false,
      said: `merge request !${byHand.iid} is closed now; nothing was run.`,
    });
  });
});
