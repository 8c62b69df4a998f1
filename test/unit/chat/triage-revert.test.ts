// In the terminal chat, a red triage with a first red commit offers its revert as a merge request as one short
// command; typed, it opens the merge request and says so with its link; typed again, it names that merge request and
// makes nothing; as a dry run it names the branch, the commit in full and the target, and sends no change.
import { describe, expect, it } from 'vitest';
import type { ChatReply } from '../../../src/chat/dispatch.js';
import { commandLine } from '../../../src/chat/command-line.js';
import { operations } from '../../../src/operations/index.js';
import { renderMessage } from '../../../src/terminal/render.js';
import type { TriageReport } from '../../../src/operations/composed/triage.js';
import { useSandbox } from '../../helpers/mcp.js';
import { testDispatcher } from '../../helpers/dispatcher.js';

const env = useSandbox();
const PROJECT = 'acme/web';

function dispatcher(o: { dryRun?: boolean } = {}) {
  return testDispatcher(() => env.client, { dryRun: o.dryRun });
}

function messageOf(reply: ChatReply) {
  if (reply.kind !== 'message') throw new Error(`expected a message, got ${reply.kind}`);
  return reply;
}

const writes = () => env.sandbox.requests.all().filter((r) => r.method !== 'GET').length;

describe('revert as a merge request from a triage in chat', () => {
  it('is offered for the first red commit as one short command, and that command opens the merge request once', async () => {
    const triage = messageOf(await dispatcher().dispatch(`triage ${PROJECT}`));
    const read = messageOf(await dispatcher().call('triage_project', { id: PROJECT }));
    const report = read.outcome?.ok ? (read.outcome.result.data as TriageReport) : undefined;
    const culprit = report!.red_since!.first_red.sha;
    const sha8 = culprit.slice(0, 8);
    const action = triage.message.actions.find((a) => a.operation === 'revert_as_merge_request')!;
    expect(action).toEqual({
      label: `Revert ${sha8} as a merge request`,
      operation: 'revert_as_merge_request',
      input: { id: PROJECT, sha: sha8 },
    });
    const line = commandLine(operations.find((op) => op.name === action.operation)!, action.input);
    expect(line).toBe(`commit revert-mr ${PROJECT} ${sha8}`);
    expect(renderMessage(triage.message, { operations })).toContain(`→ revert ${sha8} as a merge request: ${line}`);

    // A dry run first: the steps name the branch, the commit in full and the target; nothing is made.
    const before = writes();
    const preview = messageOf(await dispatcher({ dryRun: true }).dispatch(line));
    expect(preview.message.title).toBe('Dry run: Revert commit as merge request (nothing was sent)');
    expect(preview.message.sections[0]).toMatchObject({
      title: 'Steps',
      text: `1. create branch revert-${sha8} from main with one commit reverting ${culprit}\n2. open a merge request revert-${sha8} → main`,
    });
    expect(writes()).toBe(before);

    const made = messageOf(await dispatcher().dispatch(line));
    expect(made.ok).toBe(true);
    const data = made.outcome?.ok
      ? (made.outcome.result.data as { merge_request: { iid: number; web_url: string } })
      : undefined;
    const iid = data!.merge_request.iid;
    expect(made.message.title).toMatch(
      new RegExp(
        `^Opened merge request !${iid} "Revert ".*"" from revert-${sha8} into main of acme/web, reverting ${sha8} in [0-9a-f]{8}$`,
      ),
    );
    expect(made.message.link).toBe(data!.merge_request.web_url);

    // The next step, where the person is: the exact command that merges it when its pipeline passes, pinned to the
    // revert commit. Typed (the third command since the alert) and approved, it says which pipeline it waits for.
    const revertHead = (made.outcome?.ok ? (made.outcome.result.data as { revert_commit: { id: string } }) : undefined)!
      .revert_commit.id;
    const next = made.message.actions[0];
    expect(next).toMatchObject({
      label: `Merge !${iid} when green`,
      operation: 'merge_merge_request',
      input: { id: PROJECT, merge_request_iid: iid, merge_when_pipeline_succeeds: true, sha: revertHead },
    });
    const mergeLine = commandLine(operations.find((op) => op.name === 'merge_merge_request')!, next.input);
    expect(renderMessage(made.message, { operations })).toContain(`→ merge !${iid} when green: ${mergeLine}`);
    const chat = dispatcher();
    const asked = await chat.dispatch(mergeLine);
    const merged = messageOf(asked.kind === 'approve' ? await chat.approved(asked.operation, asked.input) : asked);
    expect(merged.message.title).toMatch(
      new RegExp(`^Merge request !${iid} will merge when pipeline #\\d+ passes \\(into main of acme/web\\)$`),
    );

    const madeWrites = writes();
    const again = messageOf(await dispatcher().dispatch(line));
    expect(again.ok).toBe(false);
    expect(again.message.sections.map((s) => s.text).join('\n')).toContain(`merge request !${iid}`);
    expect(again.message.sections.map((s) => s.text).join('\n')).toContain(`from revert-${sha8} is already open`);
    expect(writes()).toBe(madeWrites);
  });
});
