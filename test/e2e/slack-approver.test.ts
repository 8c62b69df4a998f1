// MCP calls approved in Slack: SLACK_APPROVER gets the exact call with Approve/Deny; only their signed click answers, once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { silentLogger } from '../../src/log.js';
import { createLocalApprovalPage, type LocalApprovalPage } from '../../src/approval/page.js';
import { APPROVAL_ACTION_IDS } from '../../src/approval/slack.js';
import { startSlackBot, type SlackBotHandle } from '../../src/slack/main.js';
import { connectInMemory, resultText, useSandbox } from '../helpers/mcp.js';
import { deletesOf as deletesOfPipeline, newPipeline, PROJECT } from '../helpers/approval.js';
import { clickBody, messageText, postSigned, startFakeSlack, waitFor, type FakeSlack } from '../helpers/slack.js';

const secret = 'approver-signing-secret';
const APPROVER = 'UAPPROVER';
const env = useSandbox();
let slack: FakeSlack;
let bot: SlackBotHandle;
let page: LocalApprovalPage;

beforeAll(async () => {
  slack = await startFakeSlack();
  page = createLocalApprovalPage({ port: 0 });
  const config = parseConfig({
    CODEHOST_URL: env.sandbox.url,
    SLACK_SIGNING_SECRET: secret,
    SLACK_BOT_TOKEN: 'xoxb-test',
    SLACK_API_URL: slack.apiUrl,
    SLACK_APPROVER: APPROVER,
  });
  bot = await startSlackBot(config, silentLogger, { port: 0, host: '127.0.0.1', approvals: page.store });
});

afterAll(async () => {
  await bot?.close();
  await page?.close();
  await slack?.close();
});

/** The n-th approval request Slack was asked to send to the approver, and its buttons. */
async function approvalMessage(n: number) {
  const sent = await waitFor(
    () => {
      const posts = slack.calls.filter((c) => c.method === 'chat.postMessage' && c.args.channel === APPROVER);
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

async function click(actionId: string, value: string, user: string, team = 'T1') {
  const responseUrl = slack.responseUrl();
  const sent = await postSigned(
    bot.url!,
    clickBody(actionId, value, { user, team, channel: 'DAPPROVER', responseUrl }),
    { secret },
  );
  expect(sent.status).toBe(200);
  const path = new URL(responseUrl).pathname;
  return waitFor(() => slack.responses.find((r) => r.path === path)?.body, 10_000, 'the answer to the click');
}

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
