// /readyz and watching: a check added to a probe after it was made (serve starts its watch hub after the probe) is
// asked at once, not after the cached answer runs out, and says why watching is paused in the hub's words.
import { describe, expect, it } from 'vitest';
import { ReadinessProbe, watchCheck } from '../../../src/health.js';

describe('watchCheck', () => {
  it('is asked as soon as it is added, and says what the hub says while watching is paused', async () => {
    const hub: { paused: string | undefined } = { paused: undefined };
    const now = 1_000_000;
    const probe = new ReadinessProbe([{ name: 'service', check: async () => undefined }], () => now);
    expect(await probe.current()).toEqual({ ready: true, checks: { service: 'ok' } });
    hub.paused = 'watching paused: Redis at cache.internal:6379 unreachable';
    probe.add(watchCheck(hub));
    expect(await probe.current()).toEqual({ ready: false, checks: { service: 'ok', watching: hub.paused } });
  });
});
