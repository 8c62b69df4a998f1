// Which replica polls a project: a lease in the state store, taken when free (or expired), renewed by its holder as
// each check begins and ends, held through the quiet a service asked for, and given back when the watch stops.
import type { StateStore } from '../state/store.js';

/** A watch standing by tries for the lease every quarter interval (with jitter). */
const STANDBY_SHARE = 0.25;
/** Up to this share of an interval is added at random, so replicas and projects do not check in step. */
export const WATCH_JITTER = 0.1;

export const leaseKey = (project: string | number) => `watch:lease:${project}`;

interface WatchLeaseOptions {
  store: StateStore;
  /** What the project's keys are named by: its number, else its path. */
  project: string;
  /** This process's name in the lease. */
  holder: string;
  intervalMs: number;
  random: () => number;
}

export class WatchLease {
  /** Whether this process held the lease at its last look: it is the one polling the project. */
  held = false;

  constructor(private readonly o: WatchLeaseOptions) {}

  /**
   * The lease lasts 1.6 intervals, renewed by its holder as each check begins and ends (at most an interval and its
   * jitter apart), while a watch standing by tries for it every quarter interval: a holder that dies is replaced
   * within 1.6 + 0.275 intervals of its last renewal, so within two.
   */
  get ms(): number {
    return Math.round(this.o.intervalMs * 1.6);
  }

  /** How long a watch standing by waits before trying for the lease again: cheap (one store step), so often. */
  get standbyMs(): number {
    return this.o.intervalMs * STANDBY_SHARE * (1 + WATCH_JITTER * this.o.random());
  }

  /** Takes the lease when free (or expired), renews it when held; false while another process holds it. */
  async take(): Promise<boolean> {
    const key = leaseKey(this.o.project);
    try {
      // Renewed in one step only while still ours: a holder that paused past its lease never takes it back from the
      // process that took over meanwhile.
      this.held =
        (await this.o.store.add(key, this.o.holder, { ttlMs: this.ms })) ||
        (await this.o.store.renew(key, this.o.holder, { ttlMs: this.ms }));
    } catch (error) {
      this.held = false;
      throw error;
    }
    return this.held;
  }

  /** Renews the lease as a check ends (it may have taken a while), only while it is still ours. */
  async renew(): Promise<void> {
    this.held = await this.o.store
      .renew(leaseKey(this.o.project), this.o.holder, { ttlMs: this.ms })
      .catch(() => this.held);
  }

  /** Keeps a held lease through `waitMs` of quiet the service asked for, so no other replica asks meanwhile. */
  async holdThrough(waitMs: number): Promise<void> {
    if (!this.held) return;
    await this.o.store
      .renew(leaseKey(this.o.project), this.o.holder, { ttlMs: waitMs + this.ms })
      .catch(() => undefined);
  }

  /** Gives the lease back if it is still ours, so another process takes over at once. */
  async release(): Promise<void> {
    if ((await this.o.store.get<string>(leaseKey(this.o.project))) === this.o.holder)
      await this.o.store.delete(leaseKey(this.o.project));
  }
}
