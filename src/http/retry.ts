// The retry policy: which failures may be sent again, how long to wait (backoff, Retry-After) and when to give up.
import { setTimeout as delay } from 'node:timers/promises';
import type { ApiError } from './errors.js';

export { parseRetryAfterSeconds } from './errors.js';

export interface RetryOptions {
  /** Retries after the first attempt. Default 3; 0 turns retrying off. */
  maxRetries?: number;
  /** Backoff ceiling of the first retry; it doubles on each further retry. Default 300 ms. */
  minDelayMs?: number;
  /** Cap of one backoff delay. Default 5000 ms. */
  maxDelayMs?: number;
  /** A longer Retry-After is not waited for: the call fails at once, its error carrying retryAfterSeconds. Default 30 s. */
  maxRetryAfterMs?: number;
  /** All attempts and waits of one call together: no wait starts that would end past it. Default 60 s. */
  budgetMs?: number;
  /** Waits between attempts; injectable so tests need not wait. Must reject when the signal aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Jitter source in [0, 1). */
  random?: () => number;
  /** Clock for the budget, in ms. */
  now?: () => number;
}

export type ResolvedRetryOptions = Required<RetryOptions>;

/** The facts about a failure the policy needs (an ApiError has them all). */
export type RetryableFailure = Pick<ApiError, 'kind' | 'status' | 'code' | 'retryAfterSeconds'>;

const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);

/**
 * Failures that prove the request never reached the service: no connection was ever established.
 * A reset, a timeout or any response may come after the service acted, so they are not in this list.
 */
const NEVER_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** True when the failure proves the request never reached the service (so a change cannot have been applied). */
export function neverReachedService(failure: Pick<RetryableFailure, 'kind' | 'code'>): boolean {
  return (
    failure.kind === 'refused' ||
    (failure.kind === 'network' && failure.code !== undefined && NEVER_SENT_CODES.has(failure.code))
  );
}

export function resolveRetryOptions(options: RetryOptions = {}): ResolvedRetryOptions {
  const resolved: ResolvedRetryOptions = {
    maxRetries: options.maxRetries ?? 3,
    minDelayMs: options.minDelayMs ?? 300,
    maxDelayMs: options.maxDelayMs ?? 5_000,
    maxRetryAfterMs: options.maxRetryAfterMs ?? 30_000,
    budgetMs: options.budgetMs ?? 60_000,
    sleep: options.sleep ?? ((ms, signal) => delay(ms, undefined, { signal })),
    random: options.random ?? Math.random,
    now: options.now ?? (() => performance.now()),
  };
  for (const key of ['maxRetries', 'minDelayMs', 'maxDelayMs', 'maxRetryAfterMs', 'budgetMs'] as const) {
    const value = resolved[key];
    if (!Number.isFinite(value) || value < 0)
      throw new Error(`retry option '${key}' must be a number >= 0, got ${value}`);
  }
  if (!Number.isInteger(resolved.maxRetries))
    throw new Error(`retry option 'maxRetries' must be an integer, got ${resolved.maxRetries}`);
  return resolved;
}

/**
 * May this failure be sent again? A request that is not idempotent only when it provably never left
 * (a duplicated commit or release is data damage); an idempotent one also on 429/502/503/504,
 * connection errors and timeouts.
 */
export function isRetryable(failure: RetryableFailure, idempotent: boolean): boolean {
  if (failure.kind === 'network' && neverReachedService(failure)) return true;
  if (!idempotent) return false;
  if (failure.kind === 'http') return RETRYABLE_STATUSES.has(failure.status);
  return failure.kind === 'network' || failure.kind === 'timeout';
}

/**
 * How long to wait before the next attempt, or undefined to give up now and surface this failure.
 * retriesDone counts the retries already made; elapsedMs is the time since the first attempt started.
 */
export function retryDelayMs(
  failure: RetryableFailure,
  idempotent: boolean,
  state: { retriesDone: number; elapsedMs: number },
  options: ResolvedRetryOptions,
): number | undefined {
  if (!isRetryable(failure, idempotent) || state.retriesDone >= options.maxRetries) return undefined;
  let wait: number;
  if (failure.retryAfterSeconds !== undefined) {
    wait = failure.retryAfterSeconds * 1000;
    if (wait > options.maxRetryAfterMs) return undefined;
  } else {
    // "Equal jitter": never less than half the ceiling, so clients that failed together do not return together.
    const ceiling = Math.min(options.maxDelayMs, options.minDelayMs * 2 ** state.retriesDone);
    wait = Math.round(ceiling / 2 + (options.random() * ceiling) / 2);
  }
  if (state.elapsedMs + wait > options.budgetMs) return undefined;
  return wait;
}
