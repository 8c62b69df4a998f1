// Waiting for something on the service to finish (a pipeline): bounded polling that keeps to the call's deadline,
// stops when the caller cancels, and reports each check as progress.
import { setTimeout as sleep } from 'node:timers/promises';
import type { RunContext } from './define.js';

/** The first pause between checks; the service is never asked more often than this. */
const MIN_POLL_INTERVAL_MS = 1_000;
/** The longest pause between checks: a long pipeline is still seen finishing within seconds. */
const MAX_POLL_INTERVAL_MS = 10_000;
/** How long a wait lasts when neither the caller nor the call's own deadline says (a test harness, a script). */
const DEFAULT_WAIT_MS = 10 * 60_000;
/** Time kept back for the last check, so it is not cut off by the deadline it is racing. */
const LAST_CHECK_RESERVE_MS = 2_000;

/** The pause before check number `checks + 1`: growing from the floor to the ceiling, so short waits stay quick. */
function pollDelayMs(checks: number): number {
  return Math.min(MAX_POLL_INTERVAL_MS, Math.round(MIN_POLL_INTERVAL_MS * 1.5 ** Math.max(0, checks - 1)));
}

interface WaitSpec<T> {
  /** One check (one request); its errors end the wait. */
  check(): Promise<T>;
  finished(value: T): boolean;
  /** What a check saw, for progress ("pipeline #42 is running"). */
  describe(value: T): string;
  /** The caller's own limit, if any; the call's deadline still applies. */
  timeoutMs?: number;
}

interface WaitOutcome<T> {
  /** The last value seen. */
  value: T;
  /** False when the deadline came first. */
  finished: boolean;
  checks: number;
  waitedMs: number;
}

/** Checks until finished(), the deadline (the last value, unfinished) or cancellation (an AbortError). */
export async function waitUntil<T>(ctx: RunContext, spec: WaitSpec<T>): Promise<WaitOutcome<T>> {
  const started = Date.now();
  // The last check comes at the limit itself: "wait 3 s" waits 3 s, not until a whole pause no longer fits. The
  // call's deadline is a hard one, so there the last check leaves time to answer before it.
  const ownLimit = started + (spec.timeoutMs ?? DEFAULT_WAIT_MS);
  const lastCheckAt = Math.min(ownLimit, ctx.deadline === undefined ? Infinity : ctx.deadline - LAST_CHECK_RESERVE_MS);
  let checks = 0;
  // When each check is due, by the schedule alone: how many checks a wait makes must not depend on how fast the
  // service answered (a first answer within the same millisecond must not buy one more check).
  let due = started;
  for (;;) {
    const value = await spec.check();
    checks += 1;
    const done = spec.finished(value);
    ctx.onProgress?.({ kind: 'poll', polls: checks, message: spec.describe(value) });
    const now = Date.now();
    // A last check no later than the floor after this one would ask the service too often for nothing new; a slow
    // answer that already reached the limit ends the wait too.
    if (done || lastCheckAt - due <= MIN_POLL_INTERVAL_MS || now >= lastCheckAt) {
      return { value, finished: done, checks, waitedMs: now - started };
    }
    due = Math.min(due + pollDelayMs(checks), lastCheckAt);
    await sleep(Math.max(0, due - now), undefined, { signal: ctx.signal });
  }
}
