// The clock tests hand the sandbox and the watches (src/clock.ts): it moves only when advanced, so a pipeline runs to
// its end without anyone sleeping.
import type { Clock } from '../../clock.js';

/** A clock that moves only when told to; wake-ups due by then run in time order, each seeing its own time. */
export class ManualClock implements Clock {
  private current: number;
  private wakes: Array<{ at: number; wake: () => void; seq: number }> = [];
  private seq = 0;

  constructor(start = Date.now()) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  wakeAt(at: number, wake: () => void): () => void {
    const entry = { at, wake, seq: this.seq++ };
    this.wakes.push(entry);
    return () => {
      this.wakes = this.wakes.filter((w) => w !== entry);
    };
  }

  /** How many wake-ups are waiting (a closed sandbox leaves none). */
  get waiting(): number {
    return this.wakes.length;
  }

  /** Moves the clock forward by `ms`, running every wake-up due on the way. */
  advance(ms: number): void {
    if (ms < 0) throw new Error('a clock does not go back');
    const until = this.current + ms;
    for (;;) {
      const due = this.wakes.filter((w) => w.at <= until).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.wakes = this.wakes.filter((w) => w !== due);
      this.current = Math.max(this.current, due.at);
      due.wake();
    }
    this.current = until;
  }
}
