// The watches a process runs, within a cap counted in the state store (so on all replicas together): adding one
// beyond the cap is refused, adding one already there is the same watch, removing one gives its lease back.
import { BranchWatch, MAX_WATCHES, WatchRefusedError, type BranchWatchOptions } from './branch-watch.js';

const entryKey = (project: string, ref: string | undefined) => `watch:entry:${project}:${ref ?? ''}`;
export const WATCH_ENTRY_PREFIX = 'watch:entry:';

export class Watches {
  private readonly running = new Map<string, BranchWatch>();

  constructor(private readonly limit: number = MAX_WATCHES) {}

  /** Starts watching (once per project and branch); refused with WatchRefusedError at the cap. */
  async add(options: BranchWatchOptions): Promise<BranchWatch> {
    const key = entryKey(options.project, options.ref);
    const existing = this.running.get(key);
    if (existing) return existing;
    if (!(await options.store.get(key)) && (await options.store.count(WATCH_ENTRY_PREFIX)) >= this.limit) {
      throw new WatchRefusedError(`forgeops watches its maximum of ${this.limit} branches; unwatch one first`);
    }
    await options.store.set(key, { project: options.project, ref: options.ref ?? null });
    const watch = new BranchWatch(options);
    this.running.set(key, watch);
    watch.start();
    return watch;
  }

  /** Stops a watch and forgets it in the store; false when it was not watched here. */
  async remove(project: string, ref: string | undefined, store: BranchWatchOptions['store']): Promise<boolean> {
    const key = entryKey(project, ref);
    const watch = this.running.get(key);
    this.running.delete(key);
    await store.delete(key);
    await watch?.stop();
    return watch !== undefined;
  }

  get size(): number {
    return this.running.size;
  }

  /** Stops every watch, keeping their entries (a restart resumes them). */
  async close(): Promise<void> {
    await Promise.all([...this.running.values()].map((watch) => watch.stop()));
    this.running.clear();
  }
}
