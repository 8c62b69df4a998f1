// The watch hub on the sandbox's clock: a subscriber of a red branch is told once, at once; subscriptions live in
// the store (a second hub on the same store, a replica, resumes them and tells nothing twice); listeners on every
// replica hear each change; caps per subscriber and in all; a project deleted is told once and forgotten.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/sandbox/core/clock.js';
import type { PeerChannel } from '../../../src/state/store.js';
import { MemoryStore } from '../../../src/state/store.js';
import { WatchRefusedError, type WatchEvent } from '../../../src/watch/branch-watch.js';
import type { StatusChange } from '../../../src/watch/hub.js';
import type { Subscription } from '../../../src/watch/hub-records.js';
import { useSandbox } from '../../helpers/mcp.js';
import { operationsWithTriageAt } from '../../helpers/watch.js';
import { sandboxWatchHub } from '../../helpers/watch-hub.js';

const clock = new ManualClock();
const env = useSandbox({ clock });
/** The registry with triage reading the sandbox's clock. */
const ops = operationsWithTriageAt(() => clock.now());

/** Pub/sub between hubs in one process, as Redis carries it between replicas. */
function sharedPeers(): PeerChannel {
  const listeners = new Map<string, Set<(message: string) => void>>();
  return {
    async publish(channel, message) {
      const heard = [...(listeners.get(channel) ?? [])];
      for (const listener of heard) listener(message);
      return heard.length;
    },
    async listen(channel, onMessage) {
      const set = listeners.get(channel) ?? new Set();
      set.add(onMessage);
      listeners.set(channel, set);
      return async () => {
        set.delete(onMessage);
      };
    },
  };
}

/** Lets the watches' asynchronous work run (no clock moves) until `done`, for at most 200 turns of 10 ms. */
async function settled(done: () => boolean): Promise<void> {
  for (let turn = 0; turn < 200 && !done(); turn++) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** A memory store that counts the reads with a time to live: the hub's, of what it remembers to write back. */
class CountingStore extends MemoryStore {
  private readonly reads = new Map<string, number>();

  readsOf(key: string): number {
    return this.reads.get(key) ?? 0;
  }

  override async getWithTtl<T>(key: string): Promise<{ value: T; ttlMs?: number } | undefined> {
    this.reads.set(key, this.readsOf(key) + 1);
    return super.getWithTtl<T>(key);
  }
}

interface Told {
  subscriber: string;
  event: WatchEvent;
}

function hub(
  store: MemoryStore,
  told: Told[],
  options: { peers?: PeerChannel; holder: string; maxWatches?: number; maxPerSubscriber?: number },
) {
  const made = sandboxWatchHub(env, clock, { store, operations: () => ops, ...options });
  made.addSink({
    prefix: 'test:',
    deliver: async (subscription: Subscription, event) => {
      told.push({ subscriber: subscription.subscriber, event });
    },
  });
  return made;
}

describe('the watch hub', () => {
  it('tells a new subscriber of a red branch at once, and a second hub on the same store resumes without telling twice', async () => {
    const store = new MemoryStore({ now: () => clock.now() });
    const peers = sharedPeers();
    const told: Told[] = [];
    const one = hub(store, told, { peers, holder: 'replica-1' });
    const two = hub(store, told, { peers, holder: 'replica-2' });
    await one.start();
    const { created, report } = await one.subscribe({ subscriber: 'test:C1', project: 'acme/web', by: 'alice' });
    expect(created).toBe(true);
    expect(report.verdict).toBe('red');
    await two.start();
    // Both run a watch of acme/web; the lease lets one poll.
    expect(one.size).toBe(1);
    expect(two.size).toBe(1);
    for (let i = 0; i < 5; i++) {
      clock.advance(31_000);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const reds = told.filter((t) => t.event.kind === 'red');
    // Told by the subscription itself or by the watch's own first check, whichever came first: once.
    expect(reds).toHaveLength(1);
    expect(reds[0].subscriber).toBe('test:C1');
    expect(await one.subscriptions('test:C1')).toEqual([expect.objectContaining({ project: 'acme/web', by: 'alice' })]);
    expect(await one.subscribe({ subscriber: 'test:C1', project: 'acme/web', ref: 'main' })).toMatchObject({
      created: false,
    });
    await one.close();
    await two.close();
  });

  it('keeps one subscription per project however it is spelled, and unwatches it by any other spelling', async () => {
    const store = new MemoryStore({ now: () => clock.now() });
    const one = hub(store, [], { holder: 'replica-1' });
    const id = (await env.client.request({ method: 'GET', path: '/projects/acme%2Fweb', idempotent: true })).data as {
      id: number;
    };
    const spellings = ['acme/web', 'ACME/WEB', 'acme%2Fweb', 'ACME%2FWEB', String(id.id), ' acme/web ', 'acme/web/'];
    const created: boolean[] = [];
    for (const project of spellings) created.push((await one.subscribe({ subscriber: 'test:C1', project })).created);
    for (const project of spellings) await one.subscribe({ subscriber: 'test:C2', project });
    expect(created).toEqual([true, false, false, false, false, false, false]);
    expect((await one.subscriptions('test:C1')).map((s) => s.project)).toEqual(['acme/web']);
    // What is stored: one subscription per subscriber, one watched project, one watch running.
    expect(await store.keys('watch:sub:test%3AC1:')).toHaveLength(1);
    expect(await store.keys('watch:entry:')).toHaveLength(1);
    expect(one.size).toBe(1);
    expect(await one.unsubscribe({ subscriber: 'test:C1', project: 'Acme%2FWeb/' })).toBe(true);
    expect(await one.subscriptions('test:C1')).toEqual([]);
    expect((await one.find('test:C2', String(id.id)))?.project).toBe('acme/web');
    expect(await one.unsubscribe({ subscriber: 'test:C2', project: String(id.id) })).toBe(true);
    expect(await store.keys('watch:entry:')).toEqual([]);
    await one.close();
  }, 60_000);

  it('lets listeners on every replica hear a change, whichever replica polls', async () => {
    const store = new MemoryStore({ now: () => clock.now() });
    const peers = sharedPeers();
    const one = hub(store, [], { peers, holder: 'replica-1' });
    const two = hub(store, [], { peers, holder: 'replica-2' });
    await one.start();
    await two.start();
    const heardOne: StatusChange[] = [];
    const heardTwo: StatusChange[] = [];
    const stopOne = await one.listen('acme/platform/payments-api', (change) => {
      heardOne.push(change);
    });
    const stopTwo = await two.listen('acme/platform/payments-api', (change) => {
      heardTwo.push(change);
    });
    await settled(() => heardOne.length > 0 && heardTwo.length > 0);
    // The first check (whoever holds the lease) saw the branch: both replicas' listeners hear it.
    expect(heardOne.length).toBeGreaterThan(0);
    expect(heardTwo).toEqual(heardOne);
    await stopOne();
    await stopTwo();
    // Nobody listens and nobody subscribed: nothing is watched any more.
    expect(one.size + two.size).toBe(0);
    await one.close();
    await two.close();
  });

  it('refuses beyond the caps per subscriber and in all, before anything is kept', async () => {
    const store = new MemoryStore({ now: () => clock.now() });
    const capped = hub(store, [], { holder: 'r', maxWatches: 2, maxPerSubscriber: 1 });
    await capped.subscribe({ subscriber: 'test:C1', project: 'acme/web' });
    await expect(capped.subscribe({ subscriber: 'test:C1', project: 'acme/platform/infra' })).rejects.toThrow(
      /this channel watches its maximum of 1/,
    );
    await capped.subscribe({ subscriber: 'test:C2', project: 'acme/platform/infra' });
    await expect(capped.subscribe({ subscriber: 'test:C3', project: 'acme/platform/payments-api' })).rejects.toThrow(
      WatchRefusedError,
    );
    // Another channel on a branch already watched costs no new watch.
    await capped.subscribe({ subscriber: 'test:C3', project: 'acme/web' });
    expect(await capped.unsubscribe({ subscriber: 'test:C2', project: 'acme/platform/infra' })).toBe(true);
    expect(await capped.unsubscribe({ subscriber: 'test:C2', project: 'acme/platform/infra' })).toBe(false);
    await capped.subscribe({ subscriber: 'test:C4', project: 'acme/platform/payments-api' });
    await expect(capped.subscribe({ subscriber: 'test:C5', project: 'acme/web', ref: 'feature' })).rejects.toThrow(
      /only the default branch \(main\)/,
    );
    expect(await capped.subscriptions('test:C5')).toEqual([]);
    await capped.close();
  });

  it('counts the attempts the service refuses against the subscriber: a flood of made-up names costs a bounded number of requests', async () => {
    const store = new MemoryStore({ now: () => clock.now() });
    const flooding = hub(store, [], { holder: 'replica-1' });
    const asked = () => env.sandbox.requests.all().filter((r) => r.path.includes('/projects/acme%2Fmade-up-')).length;
    const before = asked();
    const answers: string[] = [];
    // 30 attempts against a cap of 10 refused attempts per 10 minutes.
    for (let i = 0; i < 30; i++) {
      await flooding.subscribe({ subscriber: 'test:FLOOD', project: `acme/made-up-${i}`, by: 'mallory' }).then(
        () => answers.push('watched'),
        (error: Error) => answers.push(error.message),
      );
    }
    expect(answers).not.toContain('watched');
    // One request each for the attempts counted, none for the ones refused unasked.
    expect(asked() - before).toBe(10);
    expect(answers.at(-1)).toMatch(/refused in the last 10 minutes.*try again later/);
    // Another subscriber is not held back by this one's flood, and this one may try again after the window.
    await expect(
      flooding.subscribe({ subscriber: 'test:OTHER', project: 'acme/web', by: 'alice' }),
    ).resolves.toMatchObject({ created: true });
    clock.advance(10 * 60_000 + 1);
    await expect(
      flooding.subscribe({ subscriber: 'test:FLOOD', project: 'acme/web', by: 'mallory' }),
    ).resolves.toMatchObject({ created: true });
    await flooding.close();
  });

  it('refuses a project it cannot read, keeping nothing', async () => {
    const store = new MemoryStore({ now: () => clock.now() });
    const h = hub(store, [], { holder: 'r' });
    await expect(h.subscribe({ subscriber: 'test:C1', project: 'acme/no-such-project' })).rejects.toThrow(
      /404|not found/i,
    );
    expect(await store.keys('watch:')).toEqual([]);
    await h.close();
  });

  it('tells each subscriber once that a project can no longer be read (the token revoked), and forgets its watch everywhere', async () => {
    const store = new MemoryStore({ now: () => clock.now() });
    const peers = sharedPeers();
    const told: Told[] = [];
    let token: string | undefined;
    const replica = (holder: string) => {
      const made = sandboxWatchHub(env, clock, {
        store,
        peers,
        operations: () => ops,
        runContext: () => ({ client: env.client, ...(token ? { token } : {}) }),
        holder,
      });
      made.addSink({
        prefix: 'test:',
        deliver: async (subscription, event) => {
          told.push({ subscriber: subscription.subscriber, event });
        },
      });
      return made;
    };
    const one = replica('replica-1');
    const two = replica('replica-2');
    await one.start();
    await two.start();
    await one.subscribe({ subscriber: 'test:C1', project: 'acme/platform/infra' });
    await two.subscribe({ subscriber: 'test:C2', project: 'acme/platform/infra' });
    token = 'revoked-token';
    for (let i = 0; i < 4; i++) {
      clock.advance(31_000);
      await settled(() => told.filter((t) => t.event.kind === 'gone').length >= 2);
    }
    const gone = told.filter((t) => t.event.kind === 'gone');
    expect(gone.map((t) => t.subscriber).sort()).toEqual(['test:C1', 'test:C2']);
    expect(gone[0].event).toMatchObject({
      kind: 'gone',
      project: 'acme/platform/infra',
      reason: expect.stringMatching(/401/),
    });
    await settled(() => one.size + two.size === 0);
    expect(one.size + two.size).toBe(0);
    expect(await store.keys('watch:sub:')).toEqual([]);
    await one.close();
    await two.close();
  });

  it('tells a transition a sink failed to take again at the next check, to that subscriber only, once', async () => {
    const store = new MemoryStore({ now: () => clock.now() });
    const told: Told[] = [];
    let failures = 1;
    const made = sandboxWatchHub(env, clock, { store, operations: () => ops, holder: 'r' });
    made.addSink({
      prefix: 'test:',
      deliver: async (subscription, event) => {
        if (subscription.subscriber === 'test:C2' && event.kind === 'still-red' && failures-- > 0)
          throw new Error('the store is down');
        told.push({ subscriber: subscription.subscriber, event });
      },
    });
    await made.start();
    const { report } = await made.subscribe({ subscriber: 'test:C1', project: 'acme/web' });
    await made.subscribe({ subscriber: 'test:C2', project: 'acme/web' });
    await settled(() => told.filter((t) => t.event.kind === 'red').length === 2);
    await env.client.request({
      method: 'POST',
      path: `/projects/acme%2Fweb/pipelines/${report.head_pipeline!.id}/retry`,
      idempotent: false,
    });
    for (let i = 0; i < 40 && told.filter((t) => t.event.kind === 'still-red').length < 2; i++) {
      clock.advance(31_000);
      await new Promise((resolve) => setTimeout(resolve, 60));
    }
    const stillRed = told
      .filter((t) => t.event.kind === 'still-red')
      .map((t) => t.subscriber)
      .sort();
    expect(failures).toBeLessThan(0);
    expect(stillRed).toEqual(['test:C1', 'test:C2']);
    for (let i = 0; i < 3; i++) {
      clock.advance(31_000);
      await new Promise((resolve) => setTimeout(resolve, 60));
    }
    expect(told.filter((t) => t.event.kind === 'still-red')).toHaveLength(2);
    await made.close();
  });

  /**
   * One hub on a counting store watching acme/web, told red already; `interval` moves its clock one watch interval on
   * and lets the hub look.
   */
  async function watchingRedBranch() {
    const store = new CountingStore({ now: () => clock.now() });
    const told: Told[] = [];
    const h = hub(store, told, { holder: 'r' });
    await h.start();
    await h.subscribe({ subscriber: 'test:C1', project: 'acme/web' });
    await settled(() => told.some((t) => t.event.kind === 'red'));
    const interval = async () => {
      clock.advance(31_000);
      await new Promise((resolve) => setTimeout(resolve, 30));
    };
    return { store, told, h, interval };
  }

  it("writes a channel's mute back after a loss with the time it had left, and not once it is over", async () => {
    const { store, h, interval } = await watchingRedBranch();
    // As Slack's Mute for an hour keeps it (src/slack/incident/sink.ts), pressed now.
    const mute = 'watch:mute:C1:1';
    await store.set(mute, clock.now() + 3600_000, { ttlMs: 3600_000 });
    /** Intervals until the hub has looked at the mute twice (so it remembers it as it stands), at most 40. */
    const looked = async () => {
      const before = store.readsOf(mute);
      for (let i = 0; i < 40 && store.readsOf(mute) < before + 2; i++) await interval();
    };
    const lose = async () => {
      for (const key of await store.keys('')) await store.delete(key);
      for (let i = 0; i < 40 && (await store.keys('watch:sub:')).length === 0; i++) await interval();
    };
    await looked();
    await lose();
    const back = await store.getWithTtl<number>(mute);
    expect(back?.value).toBeGreaterThan(clock.now());
    expect(back?.ttlMs).toBeGreaterThan(0);
    expect(back?.ttlMs).toBeLessThan(3600_000);
    // Over: gone, and a loss now brings back nothing of it.
    clock.advance(3600_000);
    await looked();
    await lose();
    expect(await store.get(mute)).toBeUndefined();
    await h.close();
  }, 90_000);

  it('writes an open episode back after a loss with the time each record had left: lost again and again, it still expires', async () => {
    const DAY = 24 * 3600_000;
    const { store, told, h, interval } = await watchingRedBranch();
    const episode = told.find((t) => t.event.kind === 'red')!.event as Extract<WatchEvent, { kind: 'red' }>;
    // What the subscriber was told, kept for 30 days (EPISODE_TTL_MS) from the red.
    const delivered = `watch:told:${episode.episode}:red:to:test%3AC1`;
    const left = async () => (await store.getWithTtl(delivered))?.ttlMs;
    /** Intervals until the hub has read the open episode twice (so it remembers it as it stands), at most 40. */
    const remembered = async () => {
      let state: string | undefined;
      for (let i = 0; i < 40 && !state; i++) {
        for (const key of await store.keys('watch:state:'))
          if ((await store.get<{ episode?: unknown }>(key))?.episode) state = key;
        if (!state) await interval();
      }
      if (!state) throw new Error('the watch kept no open episode');
      const before = store.readsOf(state);
      for (let i = 0; i < 40 && store.readsOf(state) < before + 2; i++) await interval();
    };
    /** Everything in the store gone (a Redis FLUSHALL), then intervals until the record is back, at most 40. */
    const lose = async () => {
      for (const key of await store.keys('')) await store.delete(key);
      for (let i = 0; i < 40 && (await left()) === undefined; i++) await interval();
    };
    await remembered();
    expect(await left()).toBeGreaterThan(29 * DAY);

    clock.advance(10 * DAY);
    await remembered();
    await lose();
    // Written back with what it had left when last read (about 20 days), not a fresh 30.
    expect(await left()).toBeGreaterThan(0);
    expect(await left()).toBeLessThan(20 * DAY);

    clock.advance(10 * DAY);
    await remembered();
    await lose();
    expect(await left()).toBeLessThan(10 * DAY);

    // Its 30 days are over: gone, and a loss now brings back nothing of it.
    clock.advance(11 * DAY);
    await remembered();
    expect(await left()).toBeUndefined();
    for (const key of await store.keys('')) await store.delete(key);
    await remembered();
    expect(await left()).toBeUndefined();
    // Through it all, one watch of the branch, told red once.
    expect(await store.keys('watch:sub:')).toHaveLength(1);
    expect(told.filter((t) => t.event.kind === 'red')).toHaveLength(1);
    await h.close();
  }, 90_000);
});
