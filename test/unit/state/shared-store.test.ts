// One StateStore contract for every implementation (memory, file, Redis), then what only a shared store must do:
// tickets issued on one replica redeemed once on another under racing clicks, namespaced keys, and a Redis that is
// down failing the call in words and readiness, never falling back to per-process state. A real redis-server.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DurableApprovals } from '../../../src/approval/binding.js';
import { RedisStore, StoreUnavailableError, countedPrefixes, redisLabel } from '../../../src/state/redis-store.js';
import { FileStore, MemoryStore, type StateStore } from '../../../src/state/store.js';
import { deletePipelineCall } from '../../helpers/approval.js';
import { startRedis, type RedisServer } from '../../helpers/redis.js';

let redis: RedisServer;
const dirs: string[] = [];
const opened: StateStore[] = [];
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  for (const store of opened.splice(0)) await store.close();
  await redis?.stop();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

let namespaces = 0;
async function redisStore(prefix = `test${++namespaces}:`): Promise<RedisStore> {
  const store = await RedisStore.open(redis.url, { keyPrefix: prefix });
  opened.push(store);
  return store;
}

const kinds: Array<[string, () => Promise<StateStore>]> = [
  ['memory', async () => new MemoryStore()],
  [
    'file',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'forgeops-state-'));
      dirs.push(dir);
      return new FileStore(dir);
    },
  ],
  ['redis', () => redisStore()],
];

describe.each(kinds)('the %s store', (_kind, open) => {
  it('gives back what was set, as JSON, and nothing for a key never set', async () => {
    const store = await open();
    await store.set('link:T1:U1', { user: 'alice', at: 1, tags: ['a'] });
    expect(await store.get('link:T1:U1')).toEqual({ user: 'alice', at: 1, tags: ['a'] });
    expect(await store.get('link:T1:U2')).toBeUndefined();
  });

  it('forgets an entry after its time to live', async () => {
    const store = await open();
    await store.set('short', 1, { ttlMs: 40 });
    await store.set('long', 2, { ttlMs: 60_000 });
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(await store.get('short')).toBeUndefined();
    expect(await store.get('long')).toBe(2);
  });

  it('gives a value with the time it has left to live, none for a key kept until deleted', async () => {
    const store = await open();
    await store.set('watch:told:e:red', 'short', { ttlMs: 60_000 });
    await store.add('watch:told:e:green', 'long', { ttlMs: 3_600_000 });
    await store.set('watch:state:p:main', { episode: 1 });
    const short = await store.getWithTtl<string>('watch:told:e:red');
    const long = await store.getWithTtl<string>('watch:told:e:green');
    expect(short?.value).toBe('short');
    expect(short?.ttlMs).toBeGreaterThan(0);
    expect(short?.ttlMs).toBeLessThanOrEqual(60_000);
    expect(long?.value).toBe('long');
    expect(long?.ttlMs).toBeGreaterThan(60_000);
    expect(long?.ttlMs).toBeLessThanOrEqual(3_600_000);
    expect(await store.getWithTtl('watch:state:p:main')).toEqual({ value: { episode: 1 } });
    expect(await store.getWithTtl('watch:told:e:none')).toBeUndefined();
    // A renewal is what is left from then on.
    await store.renew('watch:told:e:red', 'short', { ttlMs: 7_200_000 });
    expect((await store.getWithTtl('watch:told:e:red'))?.ttlMs).toBeGreaterThan(3_600_000);
  });

  it('adds only when absent: of fifty racing adds of one key, one wins', async () => {
    const store = await open();
    const wins = await Promise.all(
      Array.from({ length: 50 }, (_, i) => store.add('seen:event-1', i, { ttlMs: 60_000 })),
    );
    expect(wins.filter(Boolean)).toHaveLength(1);
  });

  it('lists the live keys under a prefix, and renews a key only while it holds the given value', async () => {
    const store = await open();
    await store.set('watch:entry:a', 1);
    await store.set('watch:entry:b', 2, { ttlMs: 40 });
    await store.set('watch:other', 3);
    await store.add('watch:lease:p', 'holder-1', { ttlMs: 60 });
    expect(await store.renew('watch:lease:p', 'holder-2', { ttlMs: 60_000 })).toBe(false);
    expect(await store.renew('watch:lease:p', 'holder-1', { ttlMs: 60_000 })).toBe(true);
    expect(await store.renew('watch:lease:none', 'holder-1', { ttlMs: 60_000 })).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect((await store.keys('watch:entry:')).sort()).toEqual(['watch:entry:a']);
    // Renewed past its first life: still held, still counted.
    expect(await store.get('watch:lease:p')).toBe('holder-1');
    expect(await store.count('watch:lease:')).toBe(1);
  });

  it('takes once: of fifty racing takes of one key, one gets the value', async () => {
    const store = await open();
    await store.set('confirm:x', { call: 1 });
    const taken = await Promise.all(Array.from({ length: 50 }, () => store.take('confirm:x')));
    expect(taken.filter((t) => t !== undefined)).toEqual([{ call: 1 }]);
  });

  it('counts only live keys: an expired one, a taken one and a deleted one no longer count', async () => {
    const store = await open();
    await store.set('confirm:T1:U1:a', 1, { ttlMs: 40 });
    await store.set('confirm:T1:U1:b', 1, { ttlMs: 60_000 });
    await store.set('confirm:T1:U1:c', 1);
    await store.add('confirm:T1:U1:d', 1, { ttlMs: 60_000 });
    expect(await store.add('confirm:T1:U1:d', 2)).toBe(false);
    expect(await store.count('confirm:T1:U1:')).toBe(4);
    expect(await store.count('confirm:')).toBe(4);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(await store.count('confirm:T1:U1:')).toBe(3);
    await store.take('confirm:T1:U1:b');
    await store.delete('confirm:T1:U1:c');
    expect(await store.count('confirm:T1:U1:')).toBe(1);
    expect(await store.count('confirm:T1:')).toBe(1);
  });

  it('deletes, saying whether there was something, and counts live keys by a literal prefix', async () => {
    const store = await open();
    await store.set('confirm:U1:a', 1);
    await store.set('confirm:U1:b', 1);
    await store.set('confirm:U2:a', 1);
    await store.set('confirm:U1*:c', 1);
    expect(await store.count('confirm:U1:')).toBe(2);
    // A prefix is taken as written: * and [ are not patterns.
    expect(await store.count('confirm:U1*')).toBe(1);
    expect(await store.delete('confirm:U1:a')).toBe(true);
    expect(await store.delete('confirm:U1:a')).toBe(false);
    expect(await store.count('confirm:U1:')).toBe(1);
  });
});

describe.each(kinds)('approvals waiting in the %s store', (_kind, open) => {
  const call = deletePipelineCall();
  const TTL_MS = 150;

  it('hold a place in the caps only while they can be answered; a late answer is still told it expired', async () => {
    const tickets = new DurableApprovals(await open(), { ttlMs: TTL_MS, maxPerRequester: 2, maxPending: 3 });
    const unanswered = [await tickets.issue(call), await tickets.issue(call)];
    expect(await tickets.issue(call)).toMatchObject({ ok: false, reason: /already have 2 calls waiting/ });
    expect((await tickets.issue({ ...call, requester: 'T1:U2' })).ok).toBe(true);
    expect(await tickets.issue({ ...call, requester: 'T1:U3' })).toMatchObject({ ok: false, reason: /Too many calls/ });
    await new Promise((resolve) => setTimeout(resolve, TTL_MS + 100));
    // Nobody answered: the questions no longer count, for the requester or overall.
    expect((await tickets.issue(call)).ok).toBe(true);
    expect((await tickets.issue({ ...call, requester: 'T1:U3' })).ok).toBe(true);
    const late = unanswered[0] as { id: string };
    expect(await tickets.redeem(late.id, { person: 'T1:U1', place: 'C1' })).toMatchObject({ ok: false, expired: true });
  });

  it('give their place back once answered or withdrawn', async () => {
    const tickets = new DurableApprovals(await open(), { maxPerRequester: 2 });
    const [one, two] = [await tickets.issue(call), await tickets.issue(call)] as Array<{ id: string }>;
    expect((await tickets.issue(call)).ok).toBe(false);
    expect((await tickets.redeem(one.id, { person: 'T1:U1', place: 'C1' })).ok).toBe(true);
    const three = (await tickets.issue(call)) as { id: string };
    expect((await tickets.issue(call)).ok).toBe(false);
    expect(await tickets.cancel(two.id, 'T1:U1')).toBe(true);
    expect(await tickets.cancel(three.id, 'T1:U1')).toBe(true);
    expect((await tickets.issue(call)).ok).toBe(true);
    expect((await tickets.issue(call)).ok).toBe(true);
  });

  it('are counted per client when the front end says whose share a ticket takes, and still redeemed by the requester', async () => {
    const tickets = new DurableApprovals(await open(), { maxPerRequester: 1 });
    const first = (await tickets.issue(call, { countAs: 'T1:U1.laptop' })) as { id: string };
    expect(await tickets.issue(call, { countAs: 'T1:U1.laptop' })).toMatchObject({ ok: false });
    expect((await tickets.issue(call, { countAs: 'T1:U1.desktop' })).ok).toBe(true);
    expect((await tickets.redeem(first.id, { person: 'T1:U1', place: 'C1' })).ok).toBe(true);
  });
});

describe('Redis as the store of several replicas', () => {
  const call = deletePipelineCall();

  it('redeems a ticket issued on one replica from another, once, and refuses the wrong person without burning it', async () => {
    const prefix = `replicas${++namespaces}:`;
    const one = new DurableApprovals(await redisStore(prefix));
    const two = new DurableApprovals(await redisStore(prefix));
    const issued = await one.issue(call);
    if (!issued.ok) throw new Error(issued.reason);
    expect(await two.redeem(issued.id, { person: 'T1:U2', place: 'C1' })).toMatchObject({
      ok: false,
      reason: /Only the person/,
    });
    expect(await two.redeem(issued.id, { person: 'T1:U1', place: 'C1' })).toEqual({ ok: true, call });
    expect(await one.redeem(issued.id, { person: 'T1:U1', place: 'C1' })).toMatchObject({ ok: false });
  });

  it('runs each of 300 tickets once under 3,000 racing redemptions from two replicas', async () => {
    const prefix = `race${++namespaces}:`;
    const replicas = [
      new DurableApprovals(await redisStore(prefix), { maxPending: 1000, maxPerRequester: 1000 }),
      new DurableApprovals(await redisStore(prefix), { maxPending: 1000, maxPerRequester: 1000 }),
    ];
    const ids: string[] = [];
    for (let i = 0; i < 300; i++) {
      const issued = await replicas[i % 2].issue({ ...call, input: { ...call.input, pipeline_id: i } });
      if (!issued.ok) throw new Error(issued.reason);
      ids.push(issued.id);
    }
    const attempts = ids.flatMap((id) =>
      Array.from({ length: 10 }, (_, k) => replicas[k % 2].redeem(id, { person: 'T1:U1', place: 'C1' })),
    );
    const results = await Promise.all(attempts);
    expect(results.filter((r) => r.ok)).toHaveLength(300);
  });

  it("counts a cap's prefix from its own sorted set, not by reading every key", async () => {
    expect(countedPrefixes('confirm:T1:U1:abc')).toEqual(['confirm:', 'confirm:T1:', 'confirm:T1:U1:']);
    expect(countedPrefixes('plain')).toEqual([]);
    const store = await redisStore();
    for (let i = 0; i < 50; i++) await store.set(`seen:${i}`, 1, { ttlMs: 60_000 });
    await store.set('confirm:T1:U1:x', 1, { ttlMs: 60_000 });
    expect(await store.count('confirm:T1:U1:')).toBe(1);
    expect(await store.count('seen:')).toBe(50);
  });

  it('keeps its keys under its prefix, so one Redis serves several things', async () => {
    const a = await redisStore('team-a:');
    const b = await redisStore('team-b:');
    await a.set('link:T1:U1', 'a');
    expect(await b.get('link:T1:U1')).toBeUndefined();
    expect(await b.count('link:')).toBe(0);
  });

  it('when Redis is down: the call fails in words (the address, never the password), ping says not ready; works again once Redis is back', async () => {
    const own = await startRedis();
    const url = own.url.replace('redis://', 'redis://:hunter2-secret@');
    const store = await RedisStore.open(url);
    opened.push(store);
    await store.set('k', 1);
    expect(await store.ping()).toBe(true);
    await own.stop();
    const error = await store.get('k').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).toMatch(
      new RegExp(
        `^the shared state store \\(Redis at 127\\.0\\.0\\.1:${own.port}\\) cannot be reached: .+; nothing was changed$`,
      ),
    );
    expect((error as Error).message).not.toContain('hunter2');
    expect(await store.ping()).toBe(false);
    expect(redisLabel('rediss://user:pw@cache.internal:6380/2')).toBe('Redis at cache.internal:6380/2');

    // Redis comes back where it was: the same store works again, without being reopened (it reconnects within 2 s).
    const back = await startRedis({ port: own.port });
    try {
      // Bounded: 60 tries of 100 ms.
      for (let i = 0; i < 60 && !(await store.ping()); i++) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await store.ping()).toBe(true);
      await store.set('k', 2);
      expect(await store.get('k')).toBe(2);
    } finally {
      await back.stop();
    }
  });
});
