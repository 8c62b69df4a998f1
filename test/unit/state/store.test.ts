// The state store: expiry, set-if-absent, atomic take, caps, and a file that survives a restart and is written atomically.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DurableApprovals } from '../../../src/approval/binding.js';
import { Sealer } from '../../../src/slack/sealed.js';
import { FileStore, MemoryStore, STATE_FILE, StoreFullError } from '../../../src/state/store.js';
import { deletePipelineCall } from '../../helpers/approval.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'forgeops-slack-store-'));
  dirs.push(dir);
  return dir;
}

describe('MemoryStore', () => {
  it('expires entries, adds only when absent, takes once', async () => {
    let now = 0;
    const store = new MemoryStore({ now: () => now });
    await store.set('a', { n: 1 }, { ttlMs: 100 });
    expect(await store.get('a')).toEqual({ n: 1 });
    expect(await store.add('a', 2)).toBe(false);
    now = 100;
    expect(await store.get('a')).toBeUndefined();
    expect(await store.add('a', 2)).toBe(true);
    const [x, y] = await Promise.all([store.take('a'), store.take('a')]);
    expect([x, y].filter((v) => v !== undefined)).toEqual([2]);
  });

  it('hands back copies: changing what was stored or what was read changes nothing stored', async () => {
    const store = new MemoryStore();
    const stored = { grant: 'g1', scopes: ['api'] };
    await store.set('k', stored);
    stored.scopes.push('admin');
    const read = await store.get<typeof stored>('k');
    expect(read).toEqual({ grant: 'g1', scopes: ['api'] });
    read?.scopes.push('sudo');
    expect(await store.get('k')).toEqual({ grant: 'g1', scopes: ['api'] });
    expect((await store.getWithTtl('k'))?.value).toEqual({ grant: 'g1', scopes: ['api'] });
    expect(await store.renew('k', { grant: 'g1', scopes: ['api'] }, { ttlMs: 10 })).toBe(true);
    expect(await store.renew('k', { grant: 'g1', scopes: ['api', 'sudo'] }, { ttlMs: 10 })).toBe(false);
  });

  it('counts by prefix and refuses more than its cap', async () => {
    const store = new MemoryStore({ maxEntries: 2 });
    await store.set('p:1', 1);
    await store.set('p:2', 2);
    expect(await store.count('p:')).toBe(2);
    await expect(store.set('q', 3)).rejects.toBeInstanceOf(StoreFullError);
    await store.set('p:1', 9);
    expect(await store.get('p:1')).toBe(9);
  });
});

describe('FileStore', () => {
  it('keeps its entries across a restart, in one file replaced whole (no temporary files left)', async () => {
    const dir = dataDir();
    const first = new FileStore(dir);
    await first.set('link:T1:U1', { user: 'alice' });
    await first.set('gone', 1, { ttlMs: -1 });
    await first.close();
    const second = new FileStore(dir);
    expect(await second.get('link:T1:U1')).toEqual({ user: 'alice' });
    expect(await second.get('gone')).toBeUndefined();
    expect(readdirSync(dir)).toEqual([STATE_FILE]);
  });

  it('loses no pending approval in a restart', async () => {
    const dir = dataDir();
    const call = deletePipelineCall(1);
    const before = new FileStore(dir);
    const issued = await new DurableApprovals(before).issue(call);
    expect(issued.ok).toBe(true);
    // Written in the same turn of the event loop, before any reply to the person could go out.
    await new Promise((resolve) => setImmediate(resolve));
    const after = new DurableApprovals(new FileStore(dir));
    expect(await after.redeem((issued as { id: string }).id, { person: 'T1:U1', place: 'C1' })).toEqual({
      ok: true,
      call,
    });
  });
});

describe('FileStore writes', () => {
  it('writes the changes of one turn of the event loop once, together, at the end of that turn', async () => {
    const dir = dataDir();
    const store = new FileStore(dir);
    await Promise.all(Array.from({ length: 50 }, (_, i) => store.set(`k:${i}`, i)));
    expect(readdirSync(dir)).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    const saved = JSON.parse(readFileSync(join(dir, STATE_FILE), 'utf8')) as { entries: Record<string, unknown> };
    expect(Object.keys(saved.entries)).toHaveLength(50);
  });
});

describe('MemoryStore with evictOldest', () => {
  it('forgets the oldest entry at its cap instead of refusing, as a cache of seen requests should', async () => {
    const store = new MemoryStore({ maxEntries: 2, evictOldest: true });
    expect(await store.add('a', 1)).toBe(true);
    expect(await store.add('b', 1)).toBe(true);
    expect(await store.add('c', 1)).toBe(true);
    expect(await store.get('a')).toBeUndefined();
    expect(await store.get('c')).toBe(1);
  });
});

describe('DurableApprovals', () => {
  const call = deletePipelineCall();

  it('runs two fast clicks once, refuses another person, a late click and an altered call', async () => {
    let now = 0;
    const tickets = new DurableApprovals(new MemoryStore({ now: () => now }), { now: () => now, ttlMs: 1000 });
    const id = ((await tickets.issue(call)) as { id: string }).id;
    expect(await tickets.redeem(id, { person: 'T1:U2', place: 'C1' })).toMatchObject({
      ok: false,
      reason: /Only the person/,
    });
    const clicks = await Promise.all([0, 1].map(() => tickets.redeem(id, { person: 'T1:U1', place: 'C1' })));
    expect(clicks.filter((c) => c.ok)).toHaveLength(1);
    expect(clicks.find((c) => !c.ok)).toMatchObject({ reason: /already used/ });

    const late = ((await tickets.issue(call)) as { id: string }).id;
    now = 1001;
    expect(await tickets.redeem(late, { person: 'T1:U1', place: 'C1' })).toMatchObject({
      ok: false,
      reason: /expired/,
    });

    const altered = ((await tickets.issue(call)) as { id: string }).id;
    const changed = await tickets.redeem(altered, {
      person: 'T1:U1',
      place: 'C1',
      operation: call.operation,
      input: { ...call.input, pipeline_id: 8 },
    });
    expect(changed).toMatchObject({ ok: false, reason: /changed/ });
  });

  it('caps pending approvals per requester and overall', async () => {
    const tickets = new DurableApprovals(new MemoryStore(), { maxPerRequester: 2, maxPending: 3 });
    expect((await tickets.issue(call)).ok).toBe(true);
    expect((await tickets.issue(call)).ok).toBe(true);
    expect(await tickets.issue(call)).toMatchObject({ ok: false, reason: /already have 2 calls waiting/ });
    expect((await tickets.issue({ ...call, requester: 'T1:U2' })).ok).toBe(true);
    expect(await tickets.issue({ ...call, requester: 'T1:U3' })).toMatchObject({ ok: false, reason: /Too many calls/ });
  });
});

describe('Sealer', () => {
  it('round-trips for its owner only, and the sealed text does not contain the token', () => {
    const sealer = new Sealer('s'.repeat(32));
    const sealed = sealer.seal('fo-maintainer-sandbox-token', 'T1:U1');
    expect(sealed).not.toContain('fo-maintainer');
    expect(sealer.open(sealed, 'T1:U1')).toBe('fo-maintainer-sandbox-token');
    expect(sealer.open(sealed, 'T1:U2')).toBeUndefined();
    expect(new Sealer('t'.repeat(32)).open(sealed, 'T1:U1')).toBeUndefined();
    // Always another text: random sealed text may itself end in the characters put in.
    expect(sealer.open(`${sealed.slice(0, -2)}${sealed.endsWith('AA') ? 'BB' : 'AA'}`, 'T1:U1')).toBeUndefined();
  });
});
