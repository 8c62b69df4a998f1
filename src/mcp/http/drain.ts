// Shutting a replica down without dropping work: from the moment it drains, no new session (503, so the client opens
// one on another replica); the calls in flight get a grace period to finish; then everything is closed.
import { callsInFlight } from '../../health.js';
import { Refusal } from './refusal.js';

/** How often a drain looks whether the calls in flight are done. */
const DRAIN_POLL_MS = 25;

export interface Drain {
  /** Throws the 503 a newcomer gets once the replica is shutting down. */
  refuseIfDraining(): void;
  /**
   * Stops taking new sessions, waits up to `graceMs` for the calls in flight, then runs `close`; says how many calls
   * were still running when time ran out.
   */
  drain(graceMs: number, close: () => Promise<void>): Promise<{ unfinished: number }>;
}

export function shuttingDown(): Refusal {
  return new Refusal(
    503,
    -32000,
    'Service Unavailable: this replica is shutting down; connect again to reach another',
    'draining',
    { 'retry-after': '1' },
  );
}

export function createDrain(inFlight: () => number = callsInFlight): Drain {
  let draining = false;
  return {
    refuseIfDraining() {
      if (draining) throw shuttingDown();
    },
    async drain(graceMs, close) {
      // Still listening, so that a newcomer is told 503 (and its balancer or client goes elsewhere) rather than
      // finding the port shut; the sessions here go on until their calls are done or the grace is over.
      draining = true;
      const deadline = Date.now() + graceMs;
      while (inFlight() > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, DRAIN_POLL_MS));
      }
      const unfinished = inFlight();
      await close();
      return { unfinished };
    },
  };
}
