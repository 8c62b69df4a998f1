// A log that says each kind of line a few times per interval and sums up the rest, so a flood of refused requests or
// of sessions opening and closing does not become a flood of log lines.
import type { Logger, LogLevel } from '../../log.js';

export interface RateLimitedLog {
  note(kind: string, message: string, level?: LogLevel, burst?: number): void;
  /** Writes the sums of the windows that are over. */
  flush(): void;
}

/** Logs at most `burst` lines of one kind per interval and sums up the rest in one line. */
export function rateLimitedLog(log: Logger, intervalMs: number): RateLimitedLog {
  const windows = new Map<string, { start: number; logged: number; held: number; last: string; level: LogLevel }>();
  const summarise = (w: { held: number; last: string; level: LogLevel }) => {
    if (w.held > 0) log[w.level](`${w.last} (and ${w.held} more like it in ${Math.round(intervalMs / 1000)} s)`);
  };
  return {
    note(kind, message, level = 'warn', burst = 1) {
      const now = Date.now();
      let w = windows.get(kind);
      if (w && now - w.start >= intervalMs) {
        summarise(w);
        w = undefined;
      }
      if (!w) {
        w = { start: now, logged: 0, held: 0, last: message, level };
        windows.set(kind, w);
      }
      if (w.logged < burst) {
        w.logged++;
        log[level](message);
      } else {
        w.held++;
        w.last = message;
      }
    },
    flush() {
      const now = Date.now();
      for (const [kind, w] of windows) {
        if (now - w.start < intervalMs) continue;
        summarise(w);
        windows.delete(kind);
      }
    },
  };
}
