// Approvals on two replicas sharing a real redis-server: an MCP call waits on r1, and the human's answer reaches r2 —
// the approver's Slack click (Slack picks the replica; no balancer can route a click by the approval it carries), or
// the approval page behind plain round robin. r2 passes it to r1, where the call runs once, or not at all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { joinReplicas } from '../../src/approval/page-store.js';
import { createLocalApprovalPage, type LocalApprovalPage } from '../../src/approval/page.js';
import type { ReplicaRequests } from '../../src/approval/replicas.js';
import { APPROVAL_ACTION_IDS } from '../../src/slack/approver.js';
import { answerPage, deletesOf as deletesOfPipeline, newPipeline, openPage, PROJECT } from '../helpers/approval.js';
import { connectInMemory, resultText, useSandbox } from '../helpers/mcp.js';
import { messageText, waitFor } from '../helpers/slack.js';
import { useSlackBot } from '../helpers/slack-bot.js';

const APPROVER = 'UAPPROVER';
const NAMES = ['r1', 'r2'];
const env = useSandbox();
/** Each replica's approval page and the URL it serves on, by replica. */
const pages: Array<{ page: LocalApprovalPage; base: string }> = [];
beforeAll(async () => {
  for (const name of NAMES) {
    const page = createLocalApprovalPage({ port: 0, replicaId: name });
    pages.push({ page, base: await page.start() });
  }
});
afterAll(async () => {
  for (const { page } of pages) await page.close();
});
// Replica i is FORGEOPS_REPLICA_ID r<i+1>, as its page is.
const bots = useSlackBot(env, {
  name: 'approver-replicas',
  secret: 'approver-signing-secret',
  replicas: NAMES.length,
  settings: { SLACK_APPROVER: APPROVER },
  approvals: (i) => pages[i].page.store,
});
/** Each replica's passing on of answers to the replica where the call waits. */
const requests: Array<ReplicaRequests | undefined> = [];
beforeAll(async () => {
  for (const [i, name] of NAMES.entries())
    requests.push(await joinReplicas(pages[i].page.store, bots.bots[i].state, name, silentLogger));
});
afterAll(async () => {
  for (const joined of requests) await joined?.close();
});

const deletesOf = (pipeline: number) => deletesOfPipeline(env.sandbox, pipeline);

/** The approval request the approver got for `pipeline`, and its Approve and Deny buttons. */
async function approvalMessage(pipeline: number) {
  const sent = await waitFor(
    () =>
      bots.slack.calls.find(
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
const click = (replica: number, actionId: string, value: string) =>
  bots.press({ action_id: actionId, value }, { user: APPROVER, team: 'T1', channel: 'DAPPROVER', replica });

describe('an MCP call waiting on r1', () => {
  it('runs once when the approver clicks Approve and Slack sends the click to r2; a second click runs nothing', async () => {
    const mcp = await connectInMemory({ client: env.client, approval: 'page', approvals: pages[0].page.store });
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
    const mcp = await connectInMemory({ client: env.client, approval: 'page', approvals: pages[0].page.store });
    const pipeline = await newPipeline(env.client);
    const call = mcp.client.callTool({ name: 'delete_pipeline', arguments: { id: PROJECT, pipeline_id: pipeline } });
    const { deny } = await approvalMessage(pipeline);
    // The link as plain round robin would send it: to r2's page.
    const link = `${pages[1].base}/approvals/${deny.value}`;
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
