// The state store in Redis (FORGEOPS_REDIS_URL), shared by every replica: linked identities, pending approvals,
// seen Slack requests, channel defaults. The same StateStore as the file store, with Redis's own atomic steps:
// SET NX for set-if-absent (dedup), GETDEL for take (an approval spent once, whichever replica the click reaches).
// A Redis that cannot be reached fails the call that needs it, in words, and readiness; it never falls back to
// per-process state, which would let two replicas disagree.
import type { Redis, RedisOptions } from 'ioredis';
import { recordStoreError } from '../metrics.js';
import type { PeerChannel, StateStore } from './state-store.js';

/** Every key forgeops writes starts with this, so one Redis can serve other things (and other forgeops) too. */
const DEFAULT_KEY_PREFIX = 'forgeops:';
/** Keys SCAN looks at per round trip when counting by prefix. */
const SCAN_BATCH = 1000;
/** A command waits this long for Redis before failing the call (the service call it guards waits longer). */
const COMMAND_TIMEOUT_MS = 2000;

/** KEYS[1] holds ARGV[1]? Then it lives ARGV[2] ms from now. */
const RENEW_SCRIPT =
  "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end";

export class StoreUnavailableError extends Error {
  constructor(where: string, cause: unknown) {
    super(
      `the shared state store (${where}) cannot be reached: ${(cause as Error)?.message ?? String(cause)}; nothing was changed`,
    );
    this.name = 'StoreUnavailableError';
  }
}

interface RedisStoreOptions {
  /** Prepended to every key; default `forgeops:`. */
  keyPrefix?: string;
}

/** `redis://user:secret@host:6379/0` as it may be shown: the address, never the password. */
export function redisLabel(url: string): string {
  try {
    const parsed = new URL(url);
    return `Redis at ${parsed.hostname}:${parsed.port || '6379'}${parsed.pathname && parsed.pathname !== '/' ? parsed.pathname : ''}`;
  } catch {
    return 'Redis';
  }
}

/**
 * The prefixes a key is counted under: each one ending at a colon ('confirm:T1:U1:x' → 'confirm:', 'confirm:T1:',
 * 'confirm:T1:U1:'). Counting by such a prefix reads one sorted set instead of scanning every key.
 */
export function countedPrefixes(key: string): string[] {
  const out: string[] = [];
  for (let at = key.indexOf(':'); at !== -1 && at < key.length - 1; at = key.indexOf(':', at + 1))
    out.push(key.slice(0, at + 1));
  return out;
}

/** Escapes what SCAN MATCH would read as a pattern, so a prefix matches only itself. */
function globLiteral(text: string): string {
  return text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}

/** The answers of a MULTI, or its first error thrown. */
async function checked(results: Promise<Array<[Error | null, unknown]> | null>): Promise<unknown[]> {
  const answers = await results;
  if (!answers) throw new Error('the transaction was discarded');
  for (const [error] of answers) if (error) throw error;
  return answers.map(([, value]) => value);
}

export class RedisStore implements StateStore, PeerChannel {
  readonly label: string;
  private readonly prefix: string;

  private constructor(
    private readonly redis: Redis,
    url: string,
    options: RedisStoreOptions,
  ) {
    this.label = redisLabel(url);
    this.prefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
  }

  /**
   * Connects (ioredis is loaded only now: the embedded default and `forgeops mcp` never pay for it). A Redis that
   * is down at start is not fatal: calls fail in words until it is back, and the client keeps reconnecting.
   */
  static async open(url: string, options: RedisStoreOptions = {}): Promise<RedisStore> {
    const loaded = await import('ioredis');
    // Node's ESM gives the named export; the bundle's CommonJS interop may only give the default.
    const Client = loaded.Redis ?? (loaded as unknown as { default: typeof loaded.Redis }).default;
    const settings: RedisOptions = {
      lazyConnect: true,
      // While disconnected a command fails at once instead of queueing behind a Redis that may never return.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: COMMAND_TIMEOUT_MS,
      connectTimeout: COMMAND_TIMEOUT_MS,
      retryStrategy: (times) => Math.min(times * 200, 2000),
    };
    const redis = new Client(url, settings);
    // Connection errors are reported by the calls that fail; an unhandled 'error' event would crash the process.
    redis.on('error', () => undefined);
    const store = new RedisStore(redis, url, options);
    await redis.connect().catch(() => undefined);
    return store;
  }

  private key(key: string): string {
    return `${this.prefix}${key}`;
  }

  /** The sorted set of the live keys under `prefix`, each scored by when it expires ('+inf': never). */
  private index(prefix: string): string {
    return `${this.prefix}~count:${prefix}`;
  }

  /** Adds `key` to the sets of its prefixes, dropping what expired there (so no set outgrows its live keys). */
  private async indexKey(key: string, ttlMs: number | undefined): Promise<void> {
    const prefixes = countedPrefixes(key);
    if (prefixes.length === 0) return;
    const now = Date.now();
    const score = ttlMs === undefined ? '+inf' : String(now + Math.max(1, Math.ceil(ttlMs)));
    const batch = this.redis.multi();
    for (const prefix of prefixes) {
      batch.zadd(this.index(prefix), score, this.key(key));
      batch.zremrangebyscore(this.index(prefix), '-inf', `(${now}`);
    }
    await checked(batch.exec());
  }

  private async unindexKey(key: string): Promise<void> {
    const prefixes = countedPrefixes(key);
    if (prefixes.length === 0) return;
    const batch = this.redis.multi();
    for (const prefix of prefixes) batch.zrem(this.index(prefix), this.key(key));
    await checked(batch.exec());
  }

  private async run<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (error) {
      recordStoreError();
      throw new StoreUnavailableError(this.label, error);
    }
  }

  async get<T>(key: string): Promise<T | undefined> {
    const text = await this.run(() => this.redis.get(this.key(key)));
    return text === null ? undefined : (JSON.parse(text) as T);
  }

  /** GET and PTTL in one transaction: PTTL answers -1 for a key kept until deleted. */
  async getWithTtl<T>(key: string): Promise<{ value: T; ttlMs?: number } | undefined> {
    const [text, ttl] = await this.run(() => checked(this.redis.multi().get(this.key(key)).pttl(this.key(key)).exec()));
    if (typeof text !== 'string') return undefined;
    const value = JSON.parse(text) as T;
    return Number(ttl) >= 0 ? { value, ttlMs: Number(ttl) } : { value };
  }

  async set(key: string, value: unknown, options: { ttlMs?: number } = {}): Promise<void> {
    const text = JSON.stringify(value ?? null);
    await this.run(async () => {
      await (options.ttlMs === undefined
        ? this.redis.set(this.key(key), text)
        : this.redis.set(this.key(key), text, 'PX', Math.max(1, Math.ceil(options.ttlMs))));
      await this.indexKey(key, options.ttlMs);
    });
  }

  async add(key: string, value: unknown, options: { ttlMs?: number } = {}): Promise<boolean> {
    const text = JSON.stringify(value ?? null);
    return this.run(async () => {
      const answer = await (options.ttlMs === undefined
        ? this.redis.set(this.key(key), text, 'NX')
        : this.redis.set(this.key(key), text, 'PX', Math.max(1, Math.ceil(options.ttlMs)), 'NX'));
      if (answer !== 'OK') return false;
      await this.indexKey(key, options.ttlMs);
      return true;
    });
  }

  async take<T>(key: string): Promise<T | undefined> {
    const text = await this.run(async () => {
      const taken = await this.redis.getdel(this.key(key));
      if (taken !== null) await this.unindexKey(key);
      return taken;
    });
    return text === null ? undefined : (JSON.parse(text) as T);
  }

  async delete(key: string): Promise<boolean> {
    return this.run(async () => {
      const removed = await this.redis.del(this.key(key));
      await this.unindexKey(key);
      return removed > 0;
    });
  }

  /**
   * Live keys under `prefix`. A prefix ending at a colon (the caps': 'confirm:', 'confirm:T1:U1:') reads its sorted
   * set, pruned of what expired; any other is counted by SCAN, which reads every key.
   */
  async count(prefix: string): Promise<number> {
    if (prefix.endsWith(':')) {
      const now = Date.now();
      return this.run(async () => {
        const [, card] = await checked(
          this.redis.multi().zremrangebyscore(this.index(prefix), '-inf', `(${now}`).zcard(this.index(prefix)).exec(),
        );
        return Number(card);
      });
    }
    const match = `${globLiteral(this.key(prefix))}*`;
    return this.run(async () => {
      // SCAN may return a key twice (while Redis resizes its table): counted once.
      const seen = new Set<string>();
      let cursor = '0';
      do {
        const [next, keys] = await this.redis.scan(cursor, 'MATCH', match, 'COUNT', SCAN_BATCH);
        for (const key of keys) seen.add(key);
        cursor = next;
      } while (cursor !== '0');
      return seen.size;
    });
  }

  /** Live keys under `prefix` (ending at a colon), read from its sorted set like count(). */
  async keys(prefix: string): Promise<string[]> {
    if (!prefix.endsWith(':'))
      throw new Error(`keys() takes a prefix ending at a colon, not ${JSON.stringify(prefix)}`);
    const now = Date.now();
    const listed = await this.run(async () => {
      const [, members] = await checked(
        this.redis
          .multi()
          .zremrangebyscore(this.index(prefix), '-inf', `(${now}`)
          .zrange(this.index(prefix), '0', '-1')
          .exec(),
      );
      return members as string[];
    });
    return listed.map((key) => key.slice(this.prefix.length));
  }

  /** Compare-and-extend in one script: the expiry moves only while the key still holds `value`. */
  async renew(key: string, value: unknown, options: { ttlMs: number }): Promise<boolean> {
    const ttlMs = Math.max(1, Math.ceil(options.ttlMs));
    const renewed = await this.run(() =>
      this.redis.eval(RENEW_SCRIPT, 1, this.key(key), JSON.stringify(value ?? null), String(ttlMs)),
    );
    if (Number(renewed) !== 1) return false;
    await this.run(() => this.indexKey(key, ttlMs));
    return true;
  }

  /** Publishes on a channel under the key prefix; resolves to how many listeners heard it. */
  async publish(channel: string, message: string): Promise<number> {
    return this.run(() => this.redis.publish(this.key(channel), message));
  }

  /**
   * Listens on a channel under the key prefix, on a connection of its own (a subscribed connection can do nothing
   * else). Subscribes again each time that connection is ready, so a Redis that was down, at start or later, is
   * listened to again once it is back.
   */
  async listen(channel: string, onMessage: (message: string) => void): Promise<() => Promise<void>> {
    const name = this.key(channel);
    const subscriber = this.redis.duplicate();
    subscriber.on('error', () => undefined);
    subscriber.on('message', (heard: string, message: string) => {
      if (heard === name) onMessage(message);
    });
    const subscribe = () =>
      subscriber.subscribe(name).then(
        () => undefined,
        () => undefined,
      );
    subscriber.on('ready', () => void subscribe());
    await subscriber.connect().catch(() => undefined);
    // Listening once this resolves: a question published right after must be heard.
    await subscribe();
    return async () => {
      await subscriber.quit().catch(() => subscriber.disconnect());
    };
  }

  /** Whether Redis answers now (readiness). */
  async ping(): Promise<boolean> {
    try {
      return (await this.redis.ping()) === 'PONG';
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
