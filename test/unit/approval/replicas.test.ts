// Approvals answered on another replica: two page stores (r1, r2) joined by ReplicaRequests over a real redis-server. A look or
// an answer that reaches r2 for a call waiting on r1 goes to r1 and runs there once; the passphrase never leaves r2;
// a stopped replica, one that does not reply and a Redis that is down each get their own words, and nothing runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApprovalPageStore } from '../../../src/approval/page-store.js';
import type { ApprovalCall } from '../../../src/approval/port.js';
import { RedisStore } from '../../../src/state/redis-store.js';
import { ReplicaRequests } from '../../../src/approval/replicas.js';
import { shown } from '../../../src/text/visible.js';
import { startRedis, type RedisServer } from '../../helpers/redis.js';

const BASE = 'http://127.0.0.1:9';
const request = (pipeline = 7): ApprovalCall => ({
  operation: 'delete_pipeline',
  input: { id: 'acme/web', pipeline_id: pipeline },
  prompt: shown`Delete pipeline ${pipeline}`,
  answers: { yes: shown`Yes, delete pipeline ${pipeline}`, no: shown`No, change nothing` },
});

let redis: RedisServer;
const closing: Array<() => Promise<void>> = [];
let namespaces = 0;

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  for (const close of closing.reverse()) await close();
  await redis?.stop();
});

/** Replicas of one deployment: each its own Redis connection and replica requests, all in one key namespace. */
type Name = 'r1' | 'r2';
interface Replica {
  approvals: ApprovalPageStore;
  requests: ReplicaRequests;
  store: RedisStore;
}

async function replicas(names: Name[], options: { secret?: string; timeoutMs?: number } = {}) {
  const prefix = `relay${++namespaces}:`;
  const out = {} as Record<Name, Replica>;
  for (const name of names) {
    const store = await RedisStore.open(redis.url, { keyPrefix: prefix });
    const requests = await ReplicaRequests.open(store, name, { timeoutMs: options.timeoutMs });
    const approvals = new ApprovalPageStore({ pageUrl: async () => BASE, replicaId: name, secret: options.secret });
    approvals.shareAnswersThrough(requests);
    closing.push(async () => {
      approvals.closeAll('test over');
      await requests.close();
      await store.close();
    });
    out[name] = { approvals, requests, store };
  }
  return { ...out, prefix };
}

async function waitOn(approvals: ApprovalPageStore, call = request()) {
  const opened = await approvals.open(call);
  if (!opened.ok) throw new Error(opened.reason);
  return { ...opened.approval, id: opened.approval.url.slice(`${BASE}/approvals/`.length) };
}

describe('an approval waiting on r1, answered on r2', () => {
  it('shows r2 the exact call and its form, and approves it on r1 once', async () => {
    const { r1, r2 } = await replicas(['r1', 'r2']);
    const approval = await waitOn(r1.approvals);
    expect(approval.id).toMatch(/^r1\./);

    const shown = await r2.approvals.show(approval.id);
    if (!('view' in shown)) throw new Error(shown.closed.message);
    expect(shown.view.prompt).toBe('Delete pipeline 7');
    expect(shown.view.nonce).toBe(r1.approvals.view(approval.id)!.nonce);

    expect(
      await r2.approvals.answer(approval.id, { nonce: `${shown.view.nonce}x`, decision: 'approve' }),
    ).toMatchObject({
      status: 403,
    });
    expect(r1.approvals.pending).toBe(1);
    expect(await r2.approvals.answer(approval.id, { nonce: shown.view.nonce, decision: 'approve' })).toEqual({
      status: 200,
      message: 'Approved: the call runs now, exactly as shown.',
    });
    expect(await approval.outcome).toEqual({ approved: true });
    // A replay, on either replica, runs nothing.
    expect(await r2.approvals.answer(approval.id, { nonce: shown.view.nonce, decision: 'approve' })).toMatchObject({
      status: 410,
      message: expect.stringMatching(/already approved/),
    });
    expect(await r1.approvals.show(approval.id)).toMatchObject({ closed: { status: 410 } });
  });

  it('takes a denial from a channel (a Slack click) on r2', async () => {
    const { r1, r2 } = await replicas(['r1', 'r2']);
    const approval = await waitOn(r1.approvals);
    expect(await r2.approvals.answerFromChannel(approval.id, 'deny', 'in Slack')).toEqual({
      status: 200,
      message: 'Denied: the call will not run.',
    });
    expect(await approval.outcome).toEqual({
      approved: false,
      reason: 'The human denied the call in Slack; nothing was changed.',
    });
  });

  it('checks the passphrase on r2 and counts the wrong ones on r1, where the call waits', async () => {
    const { r1, r2 } = await replicas(['r1', 'r2'], { secret: 'correct horse' });
    const approval = await waitOn(r1.approvals);
    const { nonce } = r1.approvals.view(approval.id)!;
    expect(await r2.approvals.answer(approval.id, { nonce, decision: 'approve', secret: 'wrong' })).toMatchObject({
      status: 403,
      message: expect.stringMatching(/4 tries left/),
    });
    expect(await r1.approvals.answer(approval.id, { nonce, decision: 'approve' })).toMatchObject({
      status: 403,
      message: expect.stringMatching(/3 tries left/),
    });
    expect(r1.approvals.pending).toBe(1);
    expect(
      await r2.approvals.answer(approval.id, { nonce, decision: 'approve', secret: 'correct horse' }),
    ).toMatchObject({
      status: 200,
    });
    expect(await approval.outcome).toEqual({ approved: true });
  });

  it('keeps the passphrase on the replica that received it: only whether it was right crosses Redis', async () => {
    const { r1, r2, prefix } = await replicas(['r1', 'r2'], { secret: 'correct horse' });
    const approval = await waitOn(r1.approvals);
    const heard: string[] = [];
    const spy = await RedisStore.open(redis.url, { keyPrefix: prefix });
    const stop = await spy.listen('replica:r1', (message) => heard.push(message));
    await r2.approvals.answer(approval.id, {
      nonce: r1.approvals.view(approval.id)!.nonce,
      decision: 'approve',
      secret: 'correct horse',
    });
    expect(await approval.outcome).toEqual({ approved: true });
    await stop();
    await spy.close();
    expect(heard).toHaveLength(1);
    expect(heard[0]).toContain('"secretOk":true');
    expect(heard[0]).not.toContain('correct horse');
  });
});

describe('when the answer cannot reach the call', () => {
  it('says the replica has stopped when none of that name listens, and nothing waits on', async () => {
    const { r1, r2 } = await replicas(['r1', 'r2']);
    const approval = await waitOn(r1.approvals);
    await r1.requests.close();
    expect(await r2.approvals.answerFromChannel(approval.id, 'approve', 'in Slack')).toEqual({
      status: 410,
      message:
        'This approval waited on replica r1, which has stopped: the call ended with it and nothing was run. Ask the assistant to try again.',
    });
    expect(r1.approvals.pending).toBe(1);
    approval.withdraw('test over');
  });

  it('says the replica did not reply in time, without claiming anything ran or not', async () => {
    const { r2, prefix } = await replicas(['r2'], { timeoutMs: 200 });
    // Something listens as r1 but never replies (a replica stuck in a long pause).
    const mute = await RedisStore.open(redis.url, { keyPrefix: prefix });
    const stop = await mute.listen('replica:r1', () => undefined);
    expect(await r2.approvals.answerFromChannel('r1.AbCdEfGhIjKlMnOpQrStUvWx', 'approve', 'in Slack')).toEqual({
      status: 503,
      message:
        'Replica r1, where this call waits, did not reply within 0.2 s; open the link again to see whether it still waits.',
    });
    await stop();
    await mute.close();
  });

  it('fails in words when Redis is down, and the answer changes nothing', async () => {
    const own = await startRedis();
    const store = await RedisStore.open(own.url, { keyPrefix: 'down:' });
    const requests = await ReplicaRequests.open(store, 'r2');
    const approvals = new ApprovalPageStore({ pageUrl: async () => BASE, replicaId: 'r2' });
    approvals.shareAnswersThrough(requests);
    await own.stop();
    const result = await approvals.answerFromChannel('r1.AbCdEfGhIjKlMnOpQrStUvWx', 'approve', 'in Slack');
    expect(result.status).toBe(503);
    expect(result.message).toMatch(
      /^This answer could not reach replica r1, where the call waits \(the shared state store \(Redis at 127\.0\.0\.1:\d+\) cannot be reached/,
    );
    expect(result.message).toMatch(/nothing changed\. Try again\.$/);
    await requests.close();
    await store.close();
  });

  it('passes answers again once Redis is back, without a restart of either replica', async () => {
    const own = await startRedis();
    const opened = [] as Array<{ approvals: ApprovalPageStore; requests: ReplicaRequests; store: RedisStore }>;
    for (const name of ['r1', 'r2']) {
      const store = await RedisStore.open(own.url, { keyPrefix: 'back:' });
      const requests = await ReplicaRequests.open(store, name);
      const approvals = new ApprovalPageStore({ pageUrl: async () => BASE, replicaId: name });
      approvals.shareAnswersThrough(requests);
      opened.push({ approvals, requests, store });
    }
    const [r1, r2] = opened;
    try {
      await own.stop();
      const back = await startRedis({ port: own.port });
      closing.push(() => back.stop());
      const approval = await waitOn(r1.approvals);
      // Bounded: 60 tries of 100 ms, until both connections (commands and subscription) are back.
      let result = await r2.approvals.answerFromChannel(approval.id, 'approve', 'in Slack');
      for (let i = 0; i < 60 && result.status !== 200; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        result = await r2.approvals.answerFromChannel(approval.id, 'approve', 'in Slack');
      }
      expect(result).toMatchObject({ status: 200 });
      expect(await approval.outcome).toEqual({ approved: true });
    } finally {
      for (const { approvals, requests, store } of opened) {
        approvals.closeAll('test over');
        await requests.close();
        await store.close();
      }
    }
  });

  it('answers a call waiting here without asking anyone', async () => {
    const { r2 } = await replicas(['r2']);
    const approval = await waitOn(r2.approvals);
    expect(await r2.approvals.answerFromChannel(approval.id, 'approve', 'in Slack')).toMatchObject({ status: 200 });
    expect(await approval.outcome).toEqual({ approved: true });
  });
});
