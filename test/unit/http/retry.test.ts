// Tests of the retry policy (src/http/retry.ts): what may be retried, how long to wait, when to give up.
import { describe, expect, it } from 'vitest';
import {
  isRetryable,
  parseRetryAfterSeconds,
  resolveRetryOptions,
  retryDelayMs,
  type RetryableFailure,
} from '../../../src/http/retry.js';

const http = (status: number, retryAfterSeconds?: number): RetryableFailure => ({
  kind: 'http',
  status,
  retryAfterSeconds,
});
const network = (code?: string): RetryableFailure => ({ kind: 'network', status: 0, code });
const options = resolveRetryOptions({
  minDelayMs: 100,
  maxDelayMs: 1000,
  maxRetryAfterMs: 10_000,
  budgetMs: 30_000,
  random: () => 1,
});
const fresh = { retriesDone: 0, elapsedMs: 0 };

describe('isRetryable', () => {
  it('retries an idempotent request on 429/502/503/504, connection errors and timeouts', () => {
    for (const status of [429, 502, 503, 504]) expect(isRetryable(http(status), true)).toBe(true);
    for (const status of [400, 401, 404, 409, 500]) expect(isRetryable(http(status), true)).toBe(false);
    expect(isRetryable(network('ECONNRESET'), true)).toBe(true);
    expect(isRetryable({ kind: 'timeout', status: 0 }, true)).toBe(true);
    expect(isRetryable({ kind: 'aborted', status: 0 }, true)).toBe(false);
    expect(isRetryable({ kind: 'refused', status: 0 }, true)).toBe(false);
  });

  it('retries a non-idempotent request only when it never reached the service', () => {
    expect(isRetryable(network('ECONNREFUSED'), false)).toBe(true);
    expect(isRetryable(network('UND_ERR_CONNECT_TIMEOUT'), false)).toBe(true);
    for (const status of [429, 502, 503, 504]) expect(isRetryable(http(status), false)).toBe(false);
    expect(isRetryable(network('ECONNRESET'), false)).toBe(false);
    expect(isRetryable(network('UND_ERR_SOCKET'), false)).toBe(false);
    expect(isRetryable(network(), false)).toBe(false);
    expect(isRetryable({ kind: 'timeout', status: 0 }, false)).toBe(false);
  });
});

describe('retryDelayMs', () => {
  it('backs off exponentially up to the cap, with jitter in the upper half', () => {
    const delays = [0, 1, 2, 3, 4].map((retriesDone) =>
      retryDelayMs(http(503), true, { retriesDone, elapsedMs: 0 }, { ...options, maxRetries: 10 }),
    );
    expect(delays).toEqual([100, 200, 400, 800, 1000]);
    const low = retryDelayMs(http(503), true, fresh, { ...options, random: () => 0 });
    expect(low).toBe(50);
  });

  it('waits exactly Retry-After, and gives up at once when it is beyond the cap', () => {
    expect(retryDelayMs(http(429, 3), true, fresh, options)).toBe(3000);
    expect(retryDelayMs(http(429, 11), true, fresh, options)).toBeUndefined();
  });

  it('gives up after maxRetries and when the wait would end past the budget', () => {
    expect(retryDelayMs(http(503), true, { retriesDone: 3, elapsedMs: 0 }, options)).toBeUndefined();
    expect(retryDelayMs(http(429, 5), true, { retriesDone: 0, elapsedMs: 26_000 }, options)).toBeUndefined();
    expect(retryDelayMs(http(429, 5), true, { retriesDone: 0, elapsedMs: 25_000 }, options)).toBe(5000);
  });

  it('gives up on what may not be retried', () => {
    expect(retryDelayMs(http(502), false, fresh, options)).toBeUndefined();
  });
});

describe('parseRetryAfterSeconds', () => {
  it('reads seconds and HTTP dates, rounding up', () => {
    const now = Date.parse('Wed, 21 Oct 2026 07:28:00 GMT');
    expect(parseRetryAfterSeconds('120', now)).toBe(120);
    expect(parseRetryAfterSeconds('1.5', now)).toBe(2);
    expect(parseRetryAfterSeconds('Wed, 21 Oct 2026 07:28:30 GMT', now)).toBe(30);
    expect(parseRetryAfterSeconds('Wed, 21 Oct 2026 07:27:00 GMT', now)).toBe(0);
  });

  it('is undefined for absent or unreadable values', () => {
    expect(parseRetryAfterSeconds(undefined)).toBeUndefined();
    expect(parseRetryAfterSeconds('')).toBeUndefined();
    expect(parseRetryAfterSeconds('soon')).toBeUndefined();
    expect(parseRetryAfterSeconds('5x')).toBeUndefined();
  });
});

describe('resolveRetryOptions', () => {
  it('names a bad option', () => {
    expect(() => resolveRetryOptions({ maxRetries: -1 })).toThrow("retry option 'maxRetries'");
    expect(() => resolveRetryOptions({ maxRetries: 1.5 })).toThrow("retry option 'maxRetries'");
    expect(() => resolveRetryOptions({ budgetMs: Number.NaN })).toThrow("retry option 'budgetMs'");
  });

  it('has the bounded defaults its options document', () => {
    expect(resolveRetryOptions()).toMatchObject({
      maxRetries: 3,
      minDelayMs: 300,
      maxDelayMs: 5_000,
      maxRetryAfterMs: 30_000,
      budgetMs: 60_000,
    });
  });
});
