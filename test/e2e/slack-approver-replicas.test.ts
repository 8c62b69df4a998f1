// Approvals on two replicas sharing a real redis-server: an MCP call waits on r1, and the human's answer reaches r2 —
// the approver's Slack click (Slack picks the replica; no balancer can route a click by the approval it carries), or
// the approval page behind plain round robin. r2 passes it to r1, where the call runs once, or not at all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { silentLogger } from '../../src/log.js';
import { joinReplicas } from '../../src/approval/page-store.js';
import { createLocalApprovalPage, type LocalApprovalPage } from '../../src/approval/page.js';
import type { ReplicaRequests } from '../../src/approval/replicas.js';
import { APPROVAL_ACTION_IDS } from '../../src/approval/slack.js';
import { startSlackBot, type SlackBotHandle } from '../../src/slack/main.js';
import { answerPage, deletesOf as deletesOfPipeline, newPipeline, openPage, PROJECT } from '../helpers/approval.js';
import { connectInMemory, resultText, useSandbox } from '../helpers/mcp.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { clickBody, messageText, postSigned, startFakeSlack, waitFor, type FakeSlack } from '../helpers/slack.js';

const secret = 'approver-signing-secret';
const APPROVER = 'UAPPROVER';
const env = useSandbox();
let redis: RedisServer;
let slack: FakeSlack;
const replicas: Array<{
  name: string;
  page: LocalApprovalPage;
  base: string;
  bot: SlackBotHandle;
  requests?: ReplicaRequests;
}> = [];

beforeAll(async () => {
  redis = await startRedis();
  slack = await startFakeSlack();
  for (const name of ['r1', 'r2']) {
    const page = createLocalApprovalPage({ port: 0, replicaId: name });
    const base = await page.start();
    const config = parseConfig({
      CODEHOST_URL: env.sandbox.url,
      SLACK_SIGNING_SECRET: secret,
      SLACK_BOT_TOKEN: 'xoxb-test',
      SLACK_API_URL: slack.apiUrl,
      SLACK_APPROVER: APPROVER,
      FORGEOPS_REDIS_URL: redis.url,
      FORGEOPS_SECRET: 'k'.repeat(40),
      FORGEOPS_REPLICA_ID: name,
    });
    const bot = await startSlackBot(config, silentLogger, { port: 0, host: '127.0.0.1', approvals: page.store });
    const requests = await joinReplicas(page.store, bot.state, name, silentLogger);
    replicas.push({ name, page, base, bot, requests });
  }
});

afterAll(async () => {
  for (const { page, bot, requests } of replicas) {
    await page.close();
    await requests?.close();
    await bot.close();
  }
  await slack?.close();
  await redis?.stop();
});

const deletesOf = (pipeline: number) => deletesOfPipeline(env.sandbox, pipeline);

/** The approval request the approver got for `pipeline`, and its Approve and Deny buttons. */
async function approvalMessage(pipeline: number) {
  const sent = await waitFor(
    () =>
      slack.calls.find(
        (c) =>
          c.method === 'chat.postMessage' &&
          c.args.channel === APPROVER &&
          messageText(c.args).includes(`pipeline_id: ${pipeline}`),
      )?.args,
    10_000,
    'the approval request in Slack',
  );
  const actions = (sent.blocks as Array<{ type: string; elements?: Array<{ action_id: string; value: string }> }>).find(
    (b) => b.type === 'actions',
  )!;
  return {
    approve: actions.elements!.find((b) => b.action_id === APPROVAL_ACTION_IDS.approve)!,
    deny: actions.elements!.find((b) => b.action_id === APPROVAL_ACTION_IDS.deny)!,
  };
}

/** The approver's signed click, sent to one replica's Slack endpoint; resolves to the answer Slack was given. */
async function click(replica: number, actionId: string, value: string) {
  const responseUrl = slack.responseUrl();
  const sent = await postSigned(
    replicas[replica].bot.url!,
    clickBody(actionId, value, { user: APPROVER, team: 'T1', channel: 'DAPPROVER', responseUrl }),
    { secret },
  );
  expect(sent.status).toBe(200);
  const path = new URL(responseUrl).pathname;
  return waitFor(() => slack.responses.find((r) => r.path === path)?.body, 10_000, 'the answer to the click');
}

describe('an MCP call waiting on r1', () => {
  it('runs once when the approver clicks Approve and Slack sends the click to r2; a second click runs nothing', async () => {
    const mcp = await connectInMemory({ client: env.client, approval: 'page', approvals: replicas[0].page.store });
    const pipeline = await newPipeline(env.client);
    const call = mcp.client.callTool({ name: 'delete_pipeline', arguments: { id: PROJECT, pipeline_id: pipeline } });
    const { approve } = await approvalMessage(pipeline);
    expect(approve.value).toMatch(/^r1\./);

    const approved = await click(1, APPROVAL_ACTION_IDS.approve, approve.value);
    expect(messageText(approved)).toMatch(/Approved: the call runs now, exactly as shown/);
    expect(approved.replace_original).toBe(true);
    expect((await call).isError).toBeFalsy();
    expect(deletesOf(pipeline)).toHaveLength(1);

    for (const replica of [0, 1])
      expect(messageText(await click(replica, APPROVAL_ACTION_IDS.approve, approve.value))).toMatch(/already approved/);
    expect(deletesOf(pipeline)).toHaveLength(1);
    await mcp.close();
  });

  it("shows the exact call on r2's approval page, and a denial there runs nothing", async () => {
    const mcp = await connectInMemory({ client: env.client, approval: 'page', approvals: replicas[0].page.store });
    const pipeline = await newPipeline(env.client);
    const call = mcp.client.callTool({ name: 'delete_pipeline', arguments: { id: PROJECT, pipeline_id: pipeline } });
    const { deny } = await approvalMessage(pipeline);
    // The link as plain round robin would send it: to r2's page.
    const link = `${replicas[1].base}/approvals/${deny.value}`;
    const page = await openPage(link);
    expect(page.status).toBe(200);
    expect(page.html).toContain(`pipeline_id: ${pipeline}`);

    const answered = await answerPage(link, { nonce: page.nonce!, decision: 'deny' });
    expect(answered).toMatchObject({ status: 200, text: expect.stringContaining('Denied') });
    const result = await call;
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/The human denied the call on the approval page; nothing was changed/);
    expect(deletesOf(pipeline)).toHaveLength(0);
    await mcp.close();
  });
});
