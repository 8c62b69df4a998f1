// Two replicas watching acme/web through one real Redis (each its own connection): red told once whichever checks
// first, one holder of the lease, and the other taking over once the holder stops renewing, telling nothing twice.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/sandbox/core/clock.js';
import type { RedisStore } from '../../../src/state/redis-store.js';
import type { BranchWatch, WatchEvent } from '../../../src/watch/branch-watch.js';
import { leaseKey } from '../../../src/watch/watch-lease.js';
import { useSandbox } from '../../helpers/mcp.js';
import { useRedis } from '../../helpers/redis.js';
import { operationsWithTriageAt } from '../../helpers/watch.js';
import { sandboxBranchWatch } from '../../helpers/watch-hub.js';

const clock = new ManualClock();
const env = useSandbox({ clock });
/** The registry with triage reading the sandbox's clock. */
const ops = operationsWithTriageAt(() => clock.now());
/**
 * Redis expires the lease (1.6 intervals) on its own time: long enough to outlast a first check on a loaded machine
 * (a triage of a dozen reads, which took longer than a 1 s interval's lease there), short enough for a takeover
 * within seconds.
 */
const INTERVAL_MS = 4_000;

const redis = useRedis();

async function replica(name: string, events: WatchEvent[]): Promise<{ watch: BranchWatch; store: RedisStore }> {
  const store = await redis.open('watch-test:');
  const watch = sandboxBranchWatch(env, clock, events, {
    store,
    operations: () => ops,
    intervalMs: INTERVAL_MS,
    holder: name,
  });
  return { watch, store };
}

describe('two replicas on one Redis', () => {
  it('tell red once, hold one lease, and hand it over when the holder stops renewing', async () => {
    const events: WatchEvent[] = [];
    const one = await replica('replica-1', events);
    const two = await replica('replica-2', events);
    const results = await Promise.all([one.watch.check(), two.watch.check()]);
    expect(results.filter((r) => r === 'not-holder')).toHaveLength(1);
    expect(events.map((e) => e.kind)).toEqual(['red']);
    const [holder, other] = results[0] === 'not-holder' ? [two, one] : [one, two];
    expect(await other.store.get(leaseKey('acme/web'))).toBe(holder.watch.holder);

    holder.watch.abandon();
    expect(await other.watch.check()).toBe('not-holder');
    const deadline = Date.now() + 20_000;
    let taken = await other.watch.check();
    while (taken === 'not-holder' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      taken = await other.watch.check();
    }
    expect(taken).not.toBe('not-holder');
    expect(await holder.store.get(leaseKey('acme/web'))).toBe(other.watch.holder);
    expect(events.map((e) => e.kind)).toEqual(['red']);
  }, 60_000);
});
