// The drain alone: newcomers refused with 503 from the moment it starts, calls in flight given their grace period
// (on a driven clock), then everything closed, with what was left unfinished counted.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDrain } from '../../../../src/mcp/http/drain.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('createDrain', () => {
  it('lets newcomers in until it starts, then refuses them with 503 and Retry-After', async () => {
    const drain = createDrain(() => 0);
    expect(() => drain.refuseIfDraining()).not.toThrow();
    await drain.drain(1_000, async () => undefined);
    expect(() => drain.refuseIfDraining()).toThrow(
      expect.objectContaining({ status: 503, kind: 'draining', headers: { 'retry-after': '1' } }),
    );
  });

  it('waits for the calls in flight to finish before closing', async () => {
    let inFlight = 1;
    const close = vi.fn(async () => undefined);
    const drained = createDrain(() => inFlight).drain(10_000, close);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(close).not.toHaveBeenCalled();
    inFlight = 0;
    await vi.advanceTimersByTimeAsync(100);
    expect(close).toHaveBeenCalledTimes(1);
    expect(await drained).toEqual({ unfinished: 0 });
  });

  it('closes once the grace period is over, saying how many calls were still running', async () => {
    const close = vi.fn(async () => undefined);
    const drained = createDrain(() => 2).drain(5_000, close);
    await vi.advanceTimersByTimeAsync(4_900);
    expect(close).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(200);
    expect(close).toHaveBeenCalledTimes(1);
    expect(await drained).toEqual({ unfinished: 2 });
  });
});
