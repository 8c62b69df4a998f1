// Redis losing its data (FLUSHALL, a restart without persistence) under a running hub: the replica writes back the
// subscriptions it last saw, so the watch is still listed and still watched, and the open red episode's records, so
// it still ends (green) for its subscriber; with a real redis-server on loopback.
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations } from '../../../src/operations/index.js';
import { ManualClock } from '../../../src/sandbox/core/clock.js';
import { RedisStore } from '../../../src/state/redis-store.js';
import { executeOperation } from '../../../src/operations/engine/execute.js';
import type { WatchEvent } from '../../../src/watch/branch-watch.js';
import type { WatchHub } from '../../../src/watch/hub.js';
import { useSandbox } from '../../helpers/mcp.js';
import { startRedis, type RedisServer } from '../../helpers/redis.js';
import { sandboxWatchHub } from '../../helpers/watch-hub.js';

const clock = new ManualClock();
const env = useSandbox({ clock });
const INTERVAL_MS = 1_000;

let redis: RedisServer;
let store: RedisStore;
let hub: WatchHub;
beforeAll(async () => {
  // No keepData: stopped and started again, it comes back empty, as a Redis without persistence does.
  redis = await startRedis();
  store = await RedisStore.open(redis.url);
  hub = sandboxWatchHub(env, clock, { store, peers: store, intervalMs: INTERVAL_MS, holder: 'replica-1' });
  await hub.start();
});
afterAll(async () => {
  await hub?.close().catch(() => undefined);
  await store?.close();
  await redis?.stop();
});

/** The subscriber's watches after the hub's next look at the store (the clock moved past its interval). */
async function listedAfterSync(): Promise<string[]> {
  clock.advance(INTERVAL_MS);
  await new Promise((resolve) => setTimeout(resolve, 20));
  return (await hub.subscriptions('test:C1').catch(() => [])).map((s) => s.project);
}

describe('the watches after Redis lost its data', () => {
  it('are written back after FLUSHALL and after a restart without persistence, and still listed', async () => {
    await hub.subscribe({ subscriber: 'test:C1', project: 'acme/web', by: 'alice' });
    expect((await hub.subscriptions('test:C1')).map((s) => s.project)).toEqual(['acme/web']);

    execFileSync('redis-cli', ['-p', String(redis.port), 'FLUSHALL']);
    expect(await hub.subscriptions('test:C1')).toEqual([]);
    await expect.poll(listedAfterSync, { timeout: 15_000 }).toEqual(['acme/web']);
    expect(await store.count('watch:entry:')).toBe(1);

    await redis.stop();
    await redis.start();
    await expect.poll(listedAfterSync, { timeout: 15_000 }).toEqual(['acme/web']);
    expect(await store.count('watch:entry:')).toBe(1);
    // The watch itself runs again once the hub has looked at what was written back (a look or two later).
    await expect
      .poll(
        async () => {
          await listedAfterSync();
          return hub.size;
        },
        { timeout: 15_000 },
      )
      .toBe(1);
  }, 60_000);

  it('still ends the open red episode for its subscriber after FLUSHALL: the sink is told it is green', async () => {
    const told: Array<{ subscriber: string; event: WatchEvent }> = [];
    hub.addSink({
      prefix: 'loss:',
      deliver: async (subscription, event) => {
        told.push({ subscriber: subscription.subscriber, event });
      },
    });
    const { report } = await hub.subscribe({ subscriber: 'loss:C1', project: 'acme/web' });
    expect(report.verdict).toBe('red');
    // The watch keeps the episode in its state (under the project's number), and the hub's next look at the store
    // remembers it.
    const { id } = (
      await env.client.request<{ id: number }>({ method: 'GET', path: '/projects/acme%2Fweb', idempotent: true })
    ).data;
    const open = async () => {
      await listedAfterSync();
      return (await store.get<{ episode?: { key: string } }>(`watch:state:${id}:main`))?.episode?.key;
    };
    await expect.poll(open, { timeout: 15_000 }).toBe(`${id}:main:${report.red_since!.first_red.pipeline}`);
    await listedAfterSync();

    execFileSync('redis-cli', ['-p', String(redis.port), 'FLUSHALL']);
    // The culprit reverted on main: its pipeline runs and passes.
    const op = (name: string) => operations.find((o) => o.name === name)!;
    const culprit = report.red_since!.first_red.sha;
    const made = (
      await executeOperation(
        op('revert_as_merge_request'),
        { id: 'acme/web', sha: culprit.slice(0, 8) },
        {
          client: env.client,
        },
      )
    ).data as { merge_request: { iid: number } };
    await executeOperation(
      op('merge_merge_request'),
      { id: 'acme/web', merge_request_iid: made.merge_request.iid },
      { client: env.client },
    );
    const greens = async () => {
      await listedAfterSync();
      return told.filter((t) => t.subscriber === 'loss:C1' && t.event.kind === 'green').length;
    };
    await expect.poll(greens, { timeout: 30_000, interval: 50 }).toBe(1);
  }, 60_000);
});
