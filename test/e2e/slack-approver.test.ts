// MCP calls approved in Slack: SLACK_APPROVER gets the exact call with Approve/Deny; only their signed click answers, once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalApprovalPage, type LocalApprovalPage } from '../../src/approval/page.js';
import { APPROVAL_ACTION_IDS } from '../../src/slack/approver.js';
import { connectInMemory, resultText, useSandbox } from '../helpers/mcp.js';
import { deletesOf as deletesOfPipeline, newPipeline, PROJECT } from '../helpers/approval.js';
import { messageText, waitFor } from '../helpers/slack.js';
import { useSlackBot } from '../helpers/slack-bot.js';

const APPROVER = 'UAPPROVER';
const env = useSandbox();
let page: LocalApprovalPage;
beforeAll(() => {
  page = createLocalApprovalPage({ port: 0 });
});
afterAll(async () => {
  await page?.close();
});
const bots = useSlackBot(env, {
  name: 'approver',
  secret: 'approver-signing-secret',
  settings: { SLACK_APPROVER: APPROVER },
  approvals: () => page.store,
});

/** The n-th approval request Slack was asked to send to the approver, and its buttons. */
async function approvalMessage(n: number) {
  const sent = await waitFor(
    () => {
      const posts = bots.slack.calls.filter((c) => c.method === 'chat.postMessage' && c.args.channel === APPROVER);
      return posts.length >= n ? posts[n - 1].args : undefined;
    },
    10_000,
    'the approval request in Slack',
  );
  const actions = (sent.blocks as Array<{ type: string; elements?: Array<{ action_id: string; value: string }> }>).find(
    (b) => b.type === 'actions',
  )!;
  return { text: messageText(sent), buttons: actions.elements! };
}

/** A click in the approver's direct messages, by `user` of `team`; the answer to it. */
const click = (actionId: string, value: string, user: string, team = 'T1') =>
  bots.press({ action_id: actionId, value }, { user, team, channel: 'DAPPROVER' });

const deletesOf = (pipeline: number) => deletesOfPipeline(env.sandbox, pipeline);

describe('the Slack approver', () => {
  it('sends the exact call to the approver; a click by anyone else does nothing, theirs runs the call once', async () => {
    const mcp = await connectInMemory({ client: env.client, approval: 'page', approvals: page.store });
    const pipeline = await newPipeline(env.client);
    const call = mcp.client.callTool({ name: 'delete_pipeline', arguments: { id: PROJECT, pipeline_id: pipeline } });
    const { text, buttons } = await approvalMessage(1);
    expect(text).toContain(`pipeline_id: ${pipeline}`);
    const approve = buttons.find((b) => b.action_id === APPROVAL_ACTION_IDS.approve)!;

    const stranger = await click(APPROVAL_ACTION_IDS.approve, approve.value, 'U1');
    expect(messageText(stranger)).toMatch(/Only the configured approver/);
    // The approver's user id, clicked from another workspace (user ids are unique only within a team; the app's
    // team is T1, from auth.test): not the approver.
    const otherTeam = await click(APPROVAL_ACTION_IDS.approve, approve.value, APPROVER, 'T9');
    expect(messageText(otherTeam)).toMatch(/Only the configured approver/);
    expect(page.store.pending).toBe(1);
    expect(deletesOf(pipeline)).toHaveLength(0);

    const approved = await click(APPROVAL_ACTION_IDS.approve, approve.value, APPROVER);
    expect(approved.replace_original).toBe(true);
    expect(messageText(approved)).toMatch(/Approved/);
    expect((await call).isError).toBeFalsy();
    const replay = await click(APPROVAL_ACTION_IDS.approve, approve.value, APPROVER);
    expect(messageText(replay)).toMatch(/already approved/);
    expect(deletesOf(pipeline)).toHaveLength(1);
    await mcp.close();
  });

  it('runs nothing when the approver denies', async () => {
    const mcp = await connectInMemory({ client: env.client, approval: 'page', approvals: page.store });
    const call = mcp.client.callTool({ name: 'delete_pipeline', arguments: { id: PROJECT, pipeline_id: 999_101 } });
    const { buttons } = await approvalMessage(2);
    const deny = buttons.find((b) => b.action_id === APPROVAL_ACTION_IDS.deny)!;
    expect(messageText(await click(APPROVAL_ACTION_IDS.deny, deny.value, APPROVER))).toMatch(/Denied/);
    const result = await call;
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/denied the call in Slack; nothing was changed/);
    expect(deletesOf(999_101)).toHaveLength(0);
    await mcp.close();
  });
});
