// The time the sandbox's runner and the watches read, and one way to be woken at a time. The real one by default;
// tests inject the sandbox's ManualClock (src/sandbox/core/clock.ts) and advance it, so that nobody sleeps.

export interface Clock {
  /** Now, in epoch milliseconds. */
  now(): number;
  /** Calls `wake` at `at` (epoch ms) or soon after; returns a function that cancels it. Never keeps a process alive. */
  wakeAt(at: number, wake: () => void): () => void;
}

export const realClock: Clock = {
  now: () => Date.now(),
  wakeAt(at, wake) {
    // setTimeout's delay is a 32-bit number of ms; a later wake-up is asked for again when this one fires.
    const timer = setTimeout(wake, Math.min(Math.max(0, at - Date.now()), 2 ** 31 - 1));
    timer.unref();
    return () => clearTimeout(timer);
  },
};
