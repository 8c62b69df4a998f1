// Deployment messages when the state store loses its data: the watch hub writes back what it remembered and the
// message follows its deployment in place (memory store emptied, and a real redis-server's FLUSHALL); a move of a
// deployment whose message is not known any more gets one fresh message, drawn from the move, never an update of
// nothing and never two.
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/sandbox/core/clock.js';
import { Identities } from '../../../src/slack/identity.js';
import { Outbox } from '../../../src/slack/incident/outbox.js';
import { IncidentMessages } from '../../../src/slack/incident/sink.js';
import { RedisStore } from '../../../src/state/redis-store.js';
import { MemoryStore, type StateStore } from '../../../src/state/store.js';
import { deploymentEvent } from '../../helpers/deployment-events.js';
import type { Subscription } from '../../../src/watch/hub-records.js';
import { useSandbox } from '../../helpers/mcp.js';
import { type RedisServer, redisInstalled, startRedis } from '../../helpers/redis.js';
import { operationsWithTriageAt, quietLog } from '../../helpers/watch.js';
import { sandboxWatchHub } from '../../helpers/watch-hub.js';
import { api, revertDemoCulprit } from '../sandbox/sandbox-client.js';
import { recordingSlack } from '../../helpers/incident-bot.js';

/** The incident messages on `store`, through an outbox whose Slack records each post and update (ts 100, 101, …). */
function slackSide(store: StateStore, now: () => number) {
  const { slack, calls } = recordingSlack();
  const outbox = new Outbox({ store, log: quietLog, now, slack });
  const identities = new Identities({ store, sandboxToken: async () => 'sandbox-token' });
  const incidents = new IncidentMessages({ store, outbox, identities, log: quietLog, now });
  /** The deployment messages' calls: [post or update, ts, the message's text]. */
  const deploymentCalls = () =>
    calls
      .filter((c) => c.args.thread_ts === undefined && String(c.args.text).includes('Deployment #'))
      .map((c): [string, unknown, string] => [
        c.method,
        c.method === 'post' ? undefined : c.args.ts,
        String(c.args.text),
      ]);
  return { calls, outbox, incidents, deploymentCalls };
}

/** Everything in a memory store gone, as a Redis FLUSHALL leaves it. */
async function emptied(store: StateStore): Promise<void> {
  for (const key of await store.keys('')) await store.delete(key);
}

const sub: Subscription = { subscriber: 'slack:T1:C1', project: 'acme/web', since: 0 };
const moved = (id: number, status: string) => deploymentEvent(id, status);

describe('a deployment message whose record the store lost', () => {
  it('gets one fresh message at the next move, drawn from it, then updated in place: never an update of nothing', async () => {
    const store = new MemoryStore();
    const { outbox, incidents, deploymentCalls } = slackSide(store, Date.now);
    await incidents.deliver(sub, moved(31, 'blocked'));
    await outbox.drain();
    await emptied(store);
    await incidents.deliver(sub, moved(31, 'running'));
    // Told again (a delivery retried): still one message.
    await incidents.deliver(sub, moved(31, 'running'));
    await outbox.drain();
    await incidents.deliver(sub, moved(31, 'success'));
    await outbox.drain();
    expect(deploymentCalls()).toEqual([
      ['post', undefined, expect.stringMatching(/Deployment #31 .* waits for approval/)],
      ['post', undefined, expect.stringMatching(/Deployment #31 .* is deploying .*\(approved by @alice\)$/)],
      ['update', '101', expect.stringMatching(/Deployment #31 .* is deploying/)],
      ['update', '101', expect.stringMatching(/Deployment #31 .* to production deployed .*\(approved by @alice\)$/)],
    ]);
  });

  it('posts afresh when its record is there but its message is not (the post waiting in the outbox was lost)', async () => {
    const store = new MemoryStore();
    const { outbox, incidents, deploymentCalls } = slackSide(store, Date.now);
    await incidents.deliver(sub, moved(32, 'blocked'));
    for (const key of await store.keys('slack:outbox:')) await store.delete(key);
    await incidents.deliver(sub, moved(32, 'running'));
    await outbox.drain();
    await incidents.deliver(sub, moved(32, 'success'));
    await outbox.drain();
    expect(deploymentCalls()).toEqual([
      ['post', undefined, expect.stringMatching(/Deployment #32 .* is deploying/)],
      ['update', '100', expect.stringMatching(/Deployment #32 .* deployed/)],
    ]);
  });
});

const clock = new ManualClock();
const env = useSandbox({ clock });
const ops = operationsWithTriageAt(() => clock.now());
const WEB = `/projects/${encodeURIComponent('acme/web')}`;
let redis: RedisServer | undefined;
beforeAll(async () => {
  if (redisInstalled()) redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

/**
 * The whole loop on `store`: a hub watching acme/web for channel C1, main made green so production's deployment
 * waits, its message posted and remembered; then `lose` empties the store, alice approves, and the message follows
 * the deployment to deployed in place.
 */
async function followsThroughTheLoss(
  store: StateStore,
  o: { deploy: () => Promise<void>; lose: () => Promise<void>; holder: string },
): Promise<void> {
  const { deploy, lose, holder } = o;
  const now = () => clock.now();
  const { outbox, incidents, deploymentCalls } = slackSide(store, now);
  const hub = sandboxWatchHub(env, clock, { store, operations: () => ops, intervalMs: 1000, holder });
  hub.addSink(incidents);
  incidents.attach(hub);
  await hub.start();
  /** Seconds of the sandbox's clock, each a look of the hub and a check of the watch, until `done` holds. */
  const until = async (done: () => boolean, what: string) => {
    for (let second = 0; second < 300 && !done(); second++) {
      clock.advance(1000);
      await new Promise((resolve) => setTimeout(resolve, 15));
      await outbox.drain();
    }
    if (!done()) throw new Error(`not ${what} within 300 s of the sandbox's clock`);
  };
  try {
    await hub.subscribe({ subscriber: 'slack:T1:C1', project: 'acme/web', by: 'alice' });
    await deploy();
    await until(() => deploymentCalls().length > 0, 'a deployment waiting');
    const [[, , first]] = deploymentCalls();
    expect(first).toMatch(/Deployment #\d+ .* waits for approval/);
    const id = Number(/Deployment #(\d+)/.exec(first)![1]);
    // A few looks of the hub, so that it remembers the deployment's records; then the store loses everything.
    let looks = 0;
    await until(() => ++looks > 3, 'three looks');
    await lose();
    expect(await store.keys('watch:deploy:')).toEqual([]);
    const approved = await api(env.sandbox, 'POST', `${WEB}/deployments/${id}/approval`, {
      as: 'maintainer',
      json: { status: 'approved' },
    });
    expect(approved.status).toBe(201);
    await until(
      () => deploymentCalls().some(([, , text]) => /to production deployed/.test(text)),
      'the deployment deployed',
    );
    const calls = deploymentCalls();
    // One message for the deployment, before and after the loss: every later call an update of it.
    expect(calls.filter(([method]) => method === 'post')).toHaveLength(1);
    expect(calls.slice(1).every(([method, at]) => method === 'update' && at !== undefined)).toBe(true);
    expect(new Set(calls.slice(1).map(([, at]) => at)).size).toBe(1);
    expect(calls.at(-1)![2]).toMatch(new RegExp(`Deployment #${id} .* deployed .*\\(approved by @alice\\)$`));
  } finally {
    hub.abandon();
  }
}

describe('a waiting deployment message through a store that lost its data, under a running hub', () => {
  it('follows its deployment in place after the memory store was emptied', async () => {
    const store = new MemoryStore({ now: () => clock.now() });
    // main made green (bob's commit reverted by root): its pipeline reaches production, which waits.
    const deploy = async () => void (await revertDemoCulprit(env.sandbox));
    await followsThroughTheLoss(store, { deploy, lose: () => emptied(store), holder: 'replica-memory' });
  }, 60_000);

  it.runIf(redisInstalled())(
    'follows its deployment in place after a real FLUSHALL',
    async () => {
      const store = await RedisStore.open(redis!.url);
      // main is green now: a new pipeline of it (root's) reaches production, which waits again.
      const deploy = async () => {
        const started = await api(env.sandbox, 'POST', `${WEB}/pipeline`, { as: 'admin', json: { ref: 'main' } });
        expect(started.status).toBe(201);
      };
      const lose = async () => {
        execFileSync('redis-cli', ['-p', String(redis!.port), 'FLUSHALL']);
      };
      try {
        await followsThroughTheLoss(store, { deploy, lose, holder: 'replica-redis' });
      } finally {
        await store.close();
      }
    },
    60_000,
  );
});
