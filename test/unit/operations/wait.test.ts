// waitUntil's schedule: how many checks a wait makes follows from its limit alone, never from how fast answers came.
import { beforeEach, afterEach, describe, expect, it, vi } from 'vitest';
import type { RunContext } from '../../../src/operations/engine/define.js';
import { waitUntil } from '../../../src/operations/engine/wait.js';

/** A clock that moves only when the wait pauses or a check says it took time. */
const clock = vi.hoisted(() => ({ now: 0 }));
vi.mock('node:timers/promises', () => ({
  setTimeout: async (ms: number) => {
    clock.now += ms;
  },
}));

beforeEach(() => {
  clock.now = 1_000_000;
  vi.spyOn(Date, 'now').mockImplementation(() => clock.now);
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** A check that answers "running" (after `takesMs`) and records when it was asked. */
function runningChecks(limit: number, takesMs = 0) {
  const askedAt: number[] = [];
  return {
    askedAt,
    spec: {
      check: async () => {
        askedAt.push(clock.now - 1_000_000);
        // More checks than the schedule allows show here rather than as a loop.
        if (askedAt.length > limit) throw new Error(`check ${askedAt.length} was not due`);
        clock.now += takesMs;
        return 'running';
      },
      finished: (status: string) => status !== 'running',
      describe: (status: string) => status,
    },
  };
}

const ctx = {} as RunContext;

describe('waitUntil', () => {
  it('a 1 s wait checks once, even when the first answer comes within the same millisecond', async () => {
    const { spec, askedAt } = runningChecks(1);
    const outcome = await waitUntil(ctx, { ...spec, timeoutMs: 1_000 });
    expect(outcome).toMatchObject({ finished: false, checks: 1, value: 'running' });
    expect(askedAt).toEqual([0]);
  });

  it('a 1 s wait checks once when the answer takes a while, too', async () => {
    const { spec } = runningChecks(1, 40);
    expect((await waitUntil(ctx, { ...spec, timeoutMs: 1_000 })).checks).toBe(1);
  });

  it('a 3 s wait checks at 0, 1 and 2.5 s, however fast each answer comes', async () => {
    for (const takesMs of [0, 1, 30]) {
      clock.now = 1_000_000;
      const { spec, askedAt } = runningChecks(3, takesMs);
      const outcome = await waitUntil(ctx, { ...spec, timeoutMs: 3_000 });
      expect(outcome.checks).toBe(3);
      expect(askedAt).toEqual([0, 1_000, 2_500]);
    }
  });

  it('a service that answers past the limit ends the wait at once', async () => {
    const { spec } = runningChecks(1, 5_000);
    const outcome = await waitUntil(ctx, { ...spec, timeoutMs: 3_000 });
    expect(outcome).toMatchObject({ finished: false, checks: 1, waitedMs: 5_000 });
  });

  it('stops at the first check that sees the thing finished', async () => {
    let calls = 0;
    const outcome = await waitUntil(ctx, {
      check: async () => (++calls === 2 ? 'success' : 'running'),
      finished: (status) => status !== 'running',
      describe: (status) => status,
      timeoutMs: 60_000,
    });
    expect(outcome).toMatchObject({ finished: true, checks: 2, value: 'success', waitedMs: 1_000 });
  });
});
