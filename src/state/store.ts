// forgeops's state (linked identities, channel defaults, pending approvals, seen requests) behind one small
// async key-value interface with expiry: in memory, a JSON file under FORGEOPS_DATA_DIR (one process), or Redis
// (./redis-store.ts, FORGEOPS_REDIS_URL) when several replicas share it.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PeerChannel, StateStore } from './state-store.js';

export type { PeerChannel, StateStore } from './state-store.js';

interface Entry {
  value: unknown;
  /** Epoch ms; absent: kept until deleted. */
  expiresAt?: number;
}

export class StoreFullError extends Error {
  constructor(readonly limit: number) {
    super(`the state store holds its maximum of ${limit} entries; try again later`);
  }
}

interface MemoryStoreOptions {
  now?: () => number;
  /** Entries held at most: everything strangers can create has a cap. */
  maxEntries?: number;
  /**
   * At the cap, forget the oldest entry instead of refusing the new one: right for a cache of recently seen
   * requests, wrong for links and pending approvals (which must never vanish to make room for a stranger's).
   */
  evictOldest?: boolean;
}

const DEFAULT_MAX_ENTRIES = 50_000;

/** The store in process memory: for tests, and when no FORGEOPS_DATA_DIR is set (a restart then forgets everything). */
export class MemoryStore implements StateStore {
  protected readonly entries = new Map<string, Entry>();
  /**
   * Each entry's JSON, kept from when it was stored: a read parses it (a copy, as Redis hands back), about three
   * times cheaper than structuredClone of the value, and the grant and token-vault reads of every signed-in request
   * are such reads. Entries read from a file get theirs on the first read.
   */
  private readonly texts = new WeakMap<Entry, string>();
  protected readonly now: () => number;
  private readonly maxEntries: number;
  private readonly evictOldest: boolean;

  constructor(options: MemoryStoreOptions = {}) {
    this.now = options.now ?? Date.now;
    this.maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
    this.evictOldest = options.evictOldest ?? false;
  }

  async get<T>(key: string): Promise<T | undefined> {
    const entry = this.live(key);
    return entry ? (JSON.parse(this.textOf(entry)) as T) : undefined;
  }

  async getWithTtl<T>(key: string): Promise<{ value: T; ttlMs?: number } | undefined> {
    const entry = this.live(key);
    if (!entry) return undefined;
    const value = JSON.parse(this.textOf(entry)) as T;
    return entry.expiresAt === undefined ? { value } : { value, ttlMs: entry.expiresAt - this.now() };
  }

  async set(key: string, value: unknown, options: { ttlMs?: number } = {}): Promise<void> {
    this.put(key, value, options.ttlMs);
    this.changed();
  }

  async add(key: string, value: unknown, options: { ttlMs?: number } = {}): Promise<boolean> {
    if (this.live(key)) return false;
    this.put(key, value, options.ttlMs);
    this.changed();
    return true;
  }

  async take<T>(key: string): Promise<T | undefined> {
    const entry = this.live(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.changed();
    return entry.value as T;
  }

  async delete(key: string): Promise<boolean> {
    const had = this.live(key) !== undefined;
    this.entries.delete(key);
    if (had) this.changed();
    return had;
  }

  async count(prefix: string): Promise<number> {
    let n = 0;
    for (const key of this.entries.keys()) if (key.startsWith(prefix) && this.live(key)) n++;
    return n;
  }

  async keys(prefix: string): Promise<string[]> {
    return [...this.entries.keys()].filter((key) => key.startsWith(prefix) && this.live(key));
  }

  async renew(key: string, value: unknown, options: { ttlMs: number }): Promise<boolean> {
    const entry = this.live(key);
    if (!entry || this.textOf(entry) !== JSON.stringify(value ?? null)) return false;
    entry.expiresAt = this.now() + options.ttlMs;
    this.changed();
    return true;
  }

  async close(): Promise<void> {}

  /** Called after every change; the file store persists here. */
  protected changed(): void {}

  private live(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry?.expiresAt !== undefined && entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  private put(key: string, value: unknown, ttlMs: number | undefined): void {
    if (!this.entries.has(key) && this.entries.size >= this.maxEntries) {
      this.sweep();
      // A Map iterates in insertion order: its first key is the oldest.
      if (this.entries.size >= this.maxEntries && this.evictOldest)
        this.entries.delete(this.entries.keys().next().value as string);
      if (this.entries.size >= this.maxEntries) throw new StoreFullError(this.maxEntries);
    }
    // A JSON round trip now, so memory and file stores hand back the same thing (no shared references, no Dates).
    const text = JSON.stringify(value ?? null);
    const entry = { value: JSON.parse(text), expiresAt: ttlMs === undefined ? undefined : this.now() + ttlMs };
    this.texts.set(entry, text);
    this.entries.set(key, entry);
  }

  private textOf(entry: Entry): string {
    let text = this.texts.get(entry);
    if (text === undefined) {
      text = JSON.stringify(entry.value);
      this.texts.set(entry, text);
    }
    return text;
  }

  protected sweep(): void {
    const now = this.now();
    for (const [key, entry] of this.entries)
      if (entry.expiresAt !== undefined && entry.expiresAt <= now) this.entries.delete(key);
  }
}

export const STATE_FILE = 'slack-state.json';

/**
 * The store in one JSON file, rewritten whole (write a temporary file, then rename: a crash leaves the old file or
 * the new one, never half of one). The changes of one turn of the event loop are written together, once, before
 * any I/O the caller starts can complete: fifty simultaneous commands cost one write, not fifty on the ack's path
 * (measured by tools/bench/slack-ack.mjs), and a crash loses at most the changes of that one turn.
 */
export class FileStore extends MemoryStore {
  readonly path: string;
  private flushScheduled = false;
  private readonly onWriteError: (error: Error) => void;

  constructor(dir: string, options: MemoryStoreOptions & { onWriteError?: (error: Error) => void } = {}) {
    super(options);
    // A write that fails in the background must be heard; the next change tries again with everything.
    this.onWriteError =
      options.onWriteError ??
      ((error) => process.stderr.write(`forgeops: cannot write the Slack state to ${this.path}: ${error.message}\n`));
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.path = join(dir, STATE_FILE);
    let text: string | undefined;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    if (text !== undefined) {
      let saved: { entries?: Record<string, Entry> };
      try {
        saved = JSON.parse(text);
      } catch {
        throw new Error(`${this.path} is not valid JSON; move it away to start with an empty state`);
      }
      for (const [key, entry] of Object.entries(saved.entries ?? {})) this.entries.set(key, entry);
      this.sweep();
    }
  }

  protected override changed(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      try {
        this.flush();
      } catch (error) {
        this.onWriteError(error as Error);
      }
    });
  }

  /** Writes the state now if a change is waiting. */
  flush(): void {
    if (!this.flushScheduled) return;
    this.flushScheduled = false;
    const temp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify({ version: 1, entries: Object.fromEntries(this.entries) }), { mode: 0o600 });
    renameSync(temp, this.path);
  }

  override async close(): Promise<void> {
    this.flush();
  }
}

/** The configured store: a file under the data directory when there is one, else memory. */
function openStore(
  dataDir: string | undefined,
  options: MemoryStoreOptions & { onWriteError?: (error: Error) => void } = {},
): StateStore {
  return dataDir ? new FileStore(dataDir, options) : new MemoryStore(options);
}

/** Where the state lives, said once at start: never a silent choice between shared and per-process state. */
export interface OpenedStore {
  store: StateStore;
  /** "Redis at cache.internal:6379", "the file …/slack-state.json", "memory (lost on restart)". */
  where: string;
  /** Whether other replicas see the same state. */
  shared: boolean;
  /** Whether the store answers now (readiness); the file and memory stores always do. */
  ready(): Promise<boolean>;
  /** Messages between the replicas that share the store (Redis pub/sub); absent for a store of one process. */
  peers?: PeerChannel;
}

/** Redis when FORGEOPS_REDIS_URL is set (loaded only then), else the file under the data directory, else memory. */
export async function openConfiguredStore(
  settings: { redisUrl?: string; dataDir?: string },
  options: MemoryStoreOptions & { onWriteError?: (error: Error) => void } = {},
): Promise<OpenedStore> {
  if (settings.redisUrl) {
    const { RedisStore } = await import('./redis-store.js');
    const store = await RedisStore.open(settings.redisUrl);
    return { store, where: store.label, shared: true, ready: () => store.ping(), peers: store };
  }
  const store = openStore(settings.dataDir, options);
  return {
    store,
    where: store instanceof FileStore ? `the file ${store.path}` : 'memory (lost on restart)',
    shared: false,
    ready: async () => true,
  };
}
