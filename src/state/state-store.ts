// The state's interfaces, apart from the stores that implement them (./store.ts in memory or a file, ./redis-store.ts
// shared by replicas), so that the store loaded lazily names them without importing the module that loads it.

/** Publish and subscribe on named channels (RedisStore's, under its key prefix): how replicas reach each other. */
export interface PeerChannel {
  /** Sends `message` on `channel`; resolves to how many listeners heard it (0: nobody listens there now). */
  publish(channel: string, message: string): Promise<number>;
  /** Calls `onMessage` with each message on `channel`, until the returned function is called. */
  listen(channel: string, onMessage: (message: string) => void): Promise<() => Promise<void>>;
}

/** An async key-value store with expiry: what every part of forgeops that keeps state is written against. */
export interface StateStore {
  get<T>(key: string): Promise<T | undefined>;
  /**
   * The value with the time it has left to live (read in one step): what a copy kept to be written back needs, so
   * the copy expires when the original would have, however often it is written back.
   */
  getWithTtl<T>(key: string): Promise<{ value: T; ttlMs?: number } | undefined>;
  set(key: string, value: unknown, options?: { ttlMs?: number }): Promise<void>;
  /** Sets only when the key is absent (Redis SET NX); true when it did. Deduplication relies on it. */
  add(key: string, value: unknown, options?: { ttlMs?: number }): Promise<boolean>;
  /** Gets and deletes in one step (Redis GETDEL): of two concurrent takers only one gets the value. */
  take<T>(key: string): Promise<T | undefined>;
  delete(key: string): Promise<boolean>;
  /** Live keys starting with `prefix` (for caps). */
  count(prefix: string): Promise<number>;
  /** The live keys under `prefix`, a prefix ending at a colon (what a process resumes at start: its watches). */
  keys(prefix: string): Promise<string[]>;
  /**
   * Extends `key`'s life to `ttlMs` from now only while it still holds `value` (compare-and-extend, one step in
   * Redis): a lease renewed by its holder, never by a process whose lease another has taken meanwhile.
   */
  renew(key: string, value: unknown, options: { ttlMs: number }): Promise<boolean>;
  close(): Promise<void>;
}
