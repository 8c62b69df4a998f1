// A durable outbox for what the incident loop sends to Slack (the first post of a message, its updates, thread
// replies, notices), kept in the state store so a replica dying or Slack failing loses nothing: every replica drains
// it, one at a time per entry (a short lock), with backoff on 5xx and network errors and Slack's Retry-After on 429.
// A post records its ts under its message key before its entry goes, and is skipped when the ts is there already;
// a post whose earlier attempt may have reached Slack unanswered is looked for in the channel first (posted-lookup);
// an update is one entry per message (the latest content replaces the earlier); a channel the bot can no longer
// post in is handed to `onChannelGone` and its entries dropped.
import { randomBytes } from 'node:crypto';
import type { webApi } from '@slack/bolt';
import type { Logger } from '../../log.js';
import type { StateStore } from '../../state/store.js';
import type { SlackMessage } from '../blocks.js';
import {
  findPosted,
  incidentMetadata,
  type HistoryCall,
  type MessageMetadata,
  type PostMarker,
} from './posted-lookup.js';

/** The Web API calls the outbox makes (a WebClient without retries of its own in production). */
interface OutboxSlack {
  postMessage(
    args: { channel: string; thread_ts?: string; metadata?: MessageMetadata } & SlackMessage,
  ): Promise<{ ts?: string }>;
  update(args: { channel: string; ts: string } & SlackMessage): Promise<unknown>;
  /** conversations.history, to find a post whose answer was lost. */
  history: HistoryCall;
}

/** The outbox's calls on a Web API client (one that retries nothing itself: the outbox does). */
export function outboxSlackOf(web: webApi.WebClient): OutboxSlack {
  return {
    postMessage: async (args) => ({ ts: (await web.chat.postMessage(args as never)).ts }),
    update: (args) => web.chat.update(args as never),
    history: (args) => web.conversations.history(args) as Promise<never>,
  };
}

type OutboxKind = 'post' | 'update' | 'reply' | 'notice';

interface Entry {
  kind: OutboxKind;
  channel: string;
  /** Whose channel it is (the watch subscriber, `slack:<team>:<channel>`). */
  subscriber: string;
  message: SlackMessage;
  /** post: where its ts is kept once posted; update and reply: the message they act on. */
  messageKey?: string;
  seq: number;
  attempts: number;
  notBefore: number;
  /** post: what it carries as metadata, to be found in the channel if its answer is lost. */
  marker?: PostMarker;
  /** post: when its first and latest attempts started. */
  firstTriedAt?: number;
  lastTriedAt?: number;
  /** post: an attempt was started and Slack's answer never recorded, so the message may be in the channel. */
  unsure?: boolean;
  /** post: failed looks for it in the channel. */
  lookups?: number;
}

export interface OutboxOptions {
  store: StateStore;
  slack: OutboxSlack;
  log: Logger;
  now?: () => number;
  /** Entries waiting per channel and over all channels; beyond, the oldest updates go first (never a first post). */
  maxPerChannel?: number;
  maxTotal?: number;
  /** A Slack answer that says the bot cannot post there any more: the channel's watches stop. */
  onChannelGone?: (subscriber: string, reason: string) => Promise<void>;
  /** How often the store is looked at for entries another replica left (timers only; tests drain by hand). */
  pollMs?: number;
  /** This process's name on the locks. */
  holder?: string;
}

const OUTBOX_PREFIX = 'slack:outbox:';
const channelPrefix = (channel: string) => `${OUTBOX_PREFIX}${encodeURIComponent(channel)}:`;
const lockKey = (key: string) => `slack:outbox-lock:${key.slice(OUTBOX_PREFIX.length)}`;
const pauseKey = (channel: string) => `slack:outbox-pause:${encodeURIComponent(channel)}`;

const MAX_OUTBOX_PER_CHANNEL = 50;
const MAX_OUTBOX = 2_000;
/** Backoff after a 5xx or a network error: doubling from 2 s up to 5 min, for at most this many attempts. */
const BACKOFF_BASE_MS = 2_000;
const BACKOFF_MAX_MS = 5 * 60_000;
const MAX_ATTEMPTS = 12;
/**
 * Failed looks for a post that may have reached Slack (no history scope, rate limited) before it is sent anyway: a
 * lost alert is worse than a duplicate one, so doubt holds a post back only this long (about half a minute with the
 * backoff), and that post's later attempts go without looking.
 */
export const MAX_LOOKUPS = 5;
/**
 * How long one replica's hold on an entry lasts unless renewed: renewed every third of it while the entry is being
 * sent (a history lookup and a send may take longer), so a replica that dies frees its entry within this.
 */
const LOCK_MS = 15_000;
/** A message's ts is kept as long as an episode may last. */
export const MESSAGE_TTL_MS = 30 * 24 * 3600_000;
/** Entries are kept at most this long (a Slack outage longer than this is not caught up on). */
const ENTRY_TTL_MS = 24 * 3600_000;

/** Slack's answers that say the bot can no longer post in the channel (or with its token at all). */
const GONE_ERRORS = new Set([
  'channel_not_found',
  'not_in_channel',
  'is_archived',
  'account_inactive',
  'invalid_auth',
  'token_revoked',
]);

type Verdict =
  | { kind: 'retry'; afterMs?: number; why: string }
  | { kind: 'gone'; reason: string }
  | { kind: 'drop'; why: string };

/** What a failed Web API call means for the entry, from the shapes @slack/web-api's errors have. */
function classify(error: unknown): Verdict {
  const e = error as {
    code?: string;
    retryAfter?: unknown;
    statusCode?: number;
    data?: { error?: string };
    message?: string;
  };
  if (typeof e.retryAfter === 'number')
    return {
      kind: 'retry',
      afterMs: Math.max(1, e.retryAfter) * 1000,
      why: `rate limited (Retry-After ${e.retryAfter} s)`,
    };
  const platform = e.data?.error;
  if (typeof platform === 'string') {
    if (GONE_ERRORS.has(platform)) return { kind: 'gone', reason: platform };
    if (
      platform === 'ratelimited' ||
      platform === 'internal_error' ||
      platform === 'fatal_error' ||
      platform === 'service_unavailable' ||
      platform === 'request_timeout'
    ) {
      return { kind: 'retry', why: platform };
    }
    return { kind: 'drop', why: platform };
  }
  if (typeof e.statusCode === 'number')
    return e.statusCode >= 500 || e.statusCode === 408
      ? { kind: 'retry', why: `HTTP ${e.statusCode}` }
      : { kind: 'drop', why: `HTTP ${e.statusCode}` };
  // A request that never got an answer (connection refused or reset, a timeout): tried again.
  return { kind: 'retry', why: e.message ?? String(error) };
}

/**
 * Whether Slack answered a failed call, so it did nothing: a refusal (ok: false), a 429, a 4xx. A timeout, a dropped
 * connection or a 5xx (a gateway's timeout) leaves it unknown; only a connection never made is certain too.
 */
export function answered(error: unknown): boolean {
  const e = error as { retryAfter?: unknown; statusCode?: number; data?: { error?: string } };
  if (typeof e.retryAfter === 'number' || typeof e.data?.error === 'string') return true;
  if (typeof e.statusCode === 'number') return e.statusCode < 500 && e.statusCode !== 408;
  // The Web API client wraps fetch's error (`original`), which wraps the socket's (`cause`).
  let cause = error as { code?: unknown; cause?: unknown; original?: unknown } | undefined;
  for (let depth = 0; cause && depth < 4; depth += 1) {
    if (cause.code === 'ECONNREFUSED' || cause.code === 'ENOTFOUND') return true;
    cause = (cause.original ?? cause.cause) as typeof cause;
  }
  return false;
}

export class Outbox {
  private readonly now: () => number;
  private readonly holder: string;
  private seq = 0;
  private timer: NodeJS.Timeout | undefined;
  private draining: Promise<void> | undefined;
  private again = false;
  /** Draining on its own (started, not closed); drain() works either way. */
  private running = false;
  private closed = false;

  constructor(private readonly o: OutboxOptions) {
    this.now = o.now ?? Date.now;
    this.holder = o.holder ?? randomBytes(6).toString('hex');
  }

  /**
   * The first post of a message: its ts will be kept under `messageKey`. The caller claimed the message before; the
   * message carries `episode` (or the key) and the entry's id as metadata.
   */
  post(
    subscriber: string,
    channel: string,
    messageKey: string,
    message: SlackMessage,
    episode?: string,
  ): Promise<void> {
    const marker: PostMarker = { episode: episode ?? messageKey, channel, id: randomBytes(9).toString('base64url') };
    return this.enqueue(`post:${encodeURIComponent(messageKey)}`, {
      kind: 'post',
      subscriber,
      channel,
      messageKey,
      message,
      marker,
    });
  }

  /** The message's new content: only the latest one waiting is sent. */
  update(subscriber: string, channel: string, messageKey: string, message: SlackMessage): Promise<void> {
    return this.enqueue(`update:${encodeURIComponent(messageKey)}`, {
      kind: 'update',
      subscriber,
      channel,
      messageKey,
      message,
    });
  }

  /** A reply in the message's thread. */
  reply(subscriber: string, channel: string, messageKey: string, message: SlackMessage): Promise<void> {
    return this.enqueue(`reply:${this.nextSeq()}:${randomBytes(4).toString('hex')}`, {
      kind: 'reply',
      subscriber,
      channel,
      messageKey,
      message,
    });
  }

  /** A message of its own, recorded nowhere. */
  notice(subscriber: string, channel: string, message: SlackMessage): Promise<void> {
    return this.enqueue(`notice:${this.nextSeq()}:${randomBytes(4).toString('hex')}`, {
      kind: 'notice',
      subscriber,
      channel,
      message,
    });
  }

  /** Drains now and whenever something is added, and every `pollMs` for what other replicas left. */
  start(): void {
    if (this.running || this.closed) return;
    this.running = true;
    this.kick();
  }

  /** Stops draining; what waits stays in the store for the next start (or another replica). */
  async close(): Promise<void> {
    this.closed = true;
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.draining?.catch(() => undefined);
  }

  /** One pass over the due entries, oldest first (never two passes at once in a process). */
  async drain(): Promise<void> {
    if (this.draining) {
      this.again = true;
      return this.draining;
    }
    this.draining = (async () => {
      do {
        this.again = false;
        await this.pass();
      } while (this.again);
    })().finally(() => {
      this.draining = undefined;
    });
    return this.draining;
  }

  /** Whether the message under `messageKey` is known: posted (its ts kept), or its post still waiting here. */
  async knows(channel: string, messageKey: string): Promise<boolean> {
    const { store } = this.o;
    return (
      (await store.get(messageKey)) !== undefined ||
      (await store.get(`${channelPrefix(channel)}post:${encodeURIComponent(messageKey)}`)) !== undefined
    );
  }

  /** Entries waiting, for tests and /metrics. */
  async size(channel?: string): Promise<number> {
    return this.o.store.count(channel === undefined ? OUTBOX_PREFIX : channelPrefix(channel));
  }

  private nextSeq(): number {
    // Time first, so entries of several replicas sort roughly as they were made; the counter orders one process's.
    this.seq = Math.max(this.seq + 1, this.now() * 1000);
    return this.seq;
  }

  private async enqueue(id: string, entry: Omit<Entry, 'seq' | 'attempts' | 'notBefore'>): Promise<void> {
    const key = `${channelPrefix(entry.channel)}${id}`;
    const full: Entry = { ...entry, seq: this.nextSeq(), attempts: 0, notBefore: 0 };
    if (entry.kind !== 'post' && !(await this.o.store.get(key))) await this.makeRoom(entry.channel);
    await this.o.store.set(key, full, { ttlMs: ENTRY_TTL_MS });
    this.kick();
  }

  /**
   * Keeps the outbox within its caps by dropping the oldest updates, then the oldest replies and notices. A first
   * post is never dropped: there is one per episode and watched channel, and watches are capped.
   */
  private async makeRoom(channel: string): Promise<void> {
    const perChannel = this.o.maxPerChannel ?? MAX_OUTBOX_PER_CHANNEL;
    const total = this.o.maxTotal ?? MAX_OUTBOX;
    for (const [prefix, max] of [
      [channelPrefix(channel), perChannel],
      [OUTBOX_PREFIX, total],
    ] as const) {
      const entries = await this.load(prefix);
      let over = entries.length + 1 - max;
      if (over <= 0) continue;
      const rank = (e: Entry) => (e.kind === 'update' ? 0 : e.kind === 'post' ? 2 : 1);
      const droppable = entries
        .filter(([, e]) => e.kind !== 'post')
        .sort(([, a], [, b]) => rank(a) - rank(b) || a.seq - b.seq);
      for (const [key, entry] of droppable) {
        if (over <= 0) break;
        await this.o.store.delete(key);
        this.o.log.warn(`slack: outbox full; dropped a waiting ${entry.kind} for ${entry.channel}`);
        over -= 1;
      }
    }
  }

  private async load(prefix: string): Promise<Array<[string, Entry]>> {
    const keys = await this.o.store.keys(prefix);
    const found = await Promise.all(keys.map(async (key) => [key, await this.o.store.get<Entry>(key)] as const));
    return found.filter((pair): pair is [string, Entry] => pair[1] !== undefined).sort(([, a], [, b]) => a.seq - b.seq);
  }

  private kick(): void {
    if (!this.running) return;
    void this.drain()
      .catch((error: Error) => this.o.log.error(`slack: outbox: ${error.message}`))
      .finally(() => this.schedule());
  }

  private async schedule(): Promise<void> {
    if (!this.running) return;
    if (this.timer) clearTimeout(this.timer);
    const now = this.now();
    const entries = await this.load(OUTBOX_PREFIX).catch(() => []);
    // The next entry backing off, or the next look for what is waiting on something else (a post, a lock, a pause).
    const later = entries.map(([, e]) => e.notBefore).filter((at) => at > now);
    const due = Math.min(...later, now + (this.o.pollMs ?? 5_000));
    const timer = setTimeout(() => this.kick(), Math.max(50, due - now));
    timer.unref();
    this.timer = timer;
  }

  private async pass(): Promise<void> {
    const now = this.now();
    const paused = new Set<string>();
    for (const [key, entry] of await this.load(OUTBOX_PREFIX)) {
      if (this.closed) return;
      if (entry.notBefore > now || paused.has(entry.channel)) continue;
      if ((await this.o.store.get<number>(pauseKey(entry.channel))) !== undefined) {
        paused.add(entry.channel);
        continue;
      }
      if (!(await this.o.store.add(lockKey(key), this.holder, { ttlMs: LOCK_MS }))) continue;
      const holding = setInterval(
        () => void this.o.store.renew(lockKey(key), this.holder, { ttlMs: LOCK_MS }).catch(() => undefined),
        LOCK_MS / 3,
      );
      holding.unref();
      try {
        // Read again under the lock: another replica may have sent it (or newer content replaced it) since the listing.
        const current = await this.o.store.get<Entry>(key);
        if (!current || current.notBefore > now) continue;
        const outcome = await this.send(key, current);
        if (outcome === 'paused') paused.add(entry.channel);
      } finally {
        clearInterval(holding);
        await this.o.store.delete(lockKey(key));
      }
    }
  }

  /** Sends one entry; its outcome decides whether it goes, waits, or takes its channel with it. */
  private async send(key: string, entry: Entry): Promise<'done' | 'waiting' | 'paused'> {
    const { store } = this.o;
    const ts = entry.messageKey ? await store.get<string>(entry.messageKey) : undefined;
    if (entry.kind === 'post') {
      if (ts === undefined) return this.sendPost(key, entry);
      // Posted already (by a replica that died before it could drop the entry): never twice.
      await this.remove(key, entry);
      return 'done';
    }
    try {
      if (entry.kind === 'notice') {
        await this.o.slack.postMessage({ channel: entry.channel, ...entry.message });
      } else if (ts === undefined) {
        // The message is not posted yet: wait for its post, unless there is none to wait for.
        if (await store.get(`${channelPrefix(entry.channel)}post:${encodeURIComponent(entry.messageKey!)}`))
          return 'waiting';
        await store.delete(key);
        return 'done';
      } else if (entry.kind === 'update') {
        await this.o.slack.update({ channel: entry.channel, ts, ...entry.message });
      } else {
        await this.o.slack.postMessage({ channel: entry.channel, thread_ts: ts, ...entry.message });
      }
    } catch (error) {
      return this.failed(key, entry, error);
    }
    await this.remove(key, entry);
    return 'done';
  }

  /**
   * A first post: looked for in the channel first when an earlier attempt may have reached Slack, and marked as in
   * doubt in the store before it goes, so whoever sends it next (this replica or another after a crash) looks too.
   */
  private async sendPost(key: string, entry: Entry): Promise<'done' | 'waiting' | 'paused'> {
    const { store } = this.o;
    if (entry.unsure && entry.marker && (entry.lookups ?? 0) < MAX_LOOKUPS) {
      let found: string | undefined;
      try {
        found = await findPosted(this.o.slack.history, entry.marker, {
          first: entry.firstTriedAt ?? this.now(),
          last: entry.lastTriedAt ?? this.now(),
        });
      } catch (error) {
        const held = await this.lookupFailed(key, entry, error);
        if (held) return held;
        entry = { ...entry, lookups: MAX_LOOKUPS };
      }
      if (found) {
        await store.set(entry.messageKey!, found, { ttlMs: MESSAGE_TTL_MS });
        this.o.log.info(
          `slack: a post to ${entry.channel} whose answer was lost is there (ts ${found}); not posting it again`,
        );
        await this.remove(key, entry);
        return 'done';
      }
    }
    const now = this.now();
    const trying: Entry = { ...entry, unsure: true, firstTriedAt: entry.firstTriedAt ?? now, lastTriedAt: now };
    await store.set(key, trying, { ttlMs: ENTRY_TTL_MS });
    let posted: { ts?: string };
    try {
      posted = await this.o.slack.postMessage({
        channel: entry.channel,
        ...entry.message,
        ...(entry.marker ? { metadata: incidentMetadata(entry.marker) } : {}),
      });
    } catch (error) {
      return this.failed(key, answered(error) ? { ...trying, unsure: false } : trying, error);
    }
    if (posted.ts) await store.set(entry.messageKey!, posted.ts, { ttlMs: MESSAGE_TTL_MS });
    await this.remove(key, trying);
    return 'done';
  }

  /**
   * A look for a post in doubt failed: the post waits (backing off, or Slack's Retry-After) and is not sent; the
   * MAX_LOOKUPS-th failure returns undefined and the post goes anyway, said once in the log.
   */
  private async lookupFailed(
    key: string,
    entry: Entry,
    error: unknown,
  ): Promise<'waiting' | 'paused' | 'done' | undefined> {
    const verdict = classify(error);
    const { store, log } = this.o;
    if (verdict.kind === 'gone') {
      await this.channelGone(entry, verdict.reason);
      return 'done';
    }
    const why = verdict.why;
    const lookups = (entry.lookups ?? 0) + 1;
    if (lookups >= MAX_LOOKUPS) {
      const hint =
        why === 'missing_scope' ? ' (the app needs the channels:history and groups:history scopes to look)' : '';
      log.warn(
        `slack: could not look in ${entry.channel} for a post whose answer was lost (${lookups} times, last: ${why}); posting it, at the risk of a duplicate${hint}`,
      );
      return undefined;
    }
    const afterMs = verdict.kind === 'retry' ? verdict.afterMs : undefined;
    const wait = afterMs ?? Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** (lookups - 1));
    await store.set(key, { ...entry, lookups, notBefore: this.now() + wait }, { ttlMs: ENTRY_TTL_MS });
    if (afterMs !== undefined) {
      await store.set(pauseKey(entry.channel), this.now() + wait, { ttlMs: wait });
      log.info(
        `slack: ${why} looking in ${entry.channel} for a post whose answer was lost; looking again in ${Math.ceil(wait / 1000)} s`,
      );
      return 'paused';
    }
    log.info(
      `slack: could not look in ${entry.channel} for a post whose answer was lost (${why}); looking again in ${Math.ceil(wait / 1000)} s`,
    );
    return 'waiting';
  }

  /** Drops a sent entry, unless newer content replaced it meanwhile (an update coalesced while this one was sent). */
  private async remove(key: string, sent: Entry): Promise<void> {
    const taken = await this.o.store.take<Entry>(key);
    if (taken && taken.seq !== sent.seq)
      await this.o.store.add(key, { ...taken, attempts: 0, notBefore: 0 }, { ttlMs: ENTRY_TTL_MS });
  }

  private async failed(key: string, entry: Entry, error: unknown): Promise<'waiting' | 'paused' | 'done'> {
    const verdict = classify(error);
    const { store, log } = this.o;
    if (verdict.kind === 'gone') {
      await this.channelGone(entry, verdict.reason);
      return 'done';
    }
    if (verdict.kind === 'drop' || entry.attempts + 1 >= MAX_ATTEMPTS) {
      await store.delete(key);
      log.warn(
        `slack: could not send a ${entry.kind} to ${entry.channel} (${verdict.kind === 'drop' ? verdict.why : `${entry.attempts + 1} attempts, last: ${verdict.why}`}); dropped it`,
      );
      return 'done';
    }
    const attempts = entry.attempts + 1;
    const wait = verdict.afterMs ?? Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** (attempts - 1));
    // Only if it is still this entry (an update may have been replaced meanwhile: the new one goes at once).
    const current = await store.get<Entry>(key);
    if (current?.seq === entry.seq)
      await store.set(key, { ...entry, attempts, notBefore: this.now() + wait }, { ttlMs: ENTRY_TTL_MS });
    if (verdict.afterMs !== undefined) {
      // Slack limits the channel, not one message: everything for it waits.
      await store.set(pauseKey(entry.channel), this.now() + wait, { ttlMs: wait });
      log.info(`slack: ${verdict.why} on ${entry.channel}; sending again in ${Math.ceil(wait / 1000)} s`);
      return 'paused';
    }
    log.warn(
      `slack: could not send a ${entry.kind} to ${entry.channel} (${verdict.why}); trying again in ${Math.ceil(wait / 1000)} s`,
    );
    return 'waiting';
  }

  private async channelGone(entry: Entry, reason: string): Promise<void> {
    for (const [key] of await this.load(channelPrefix(entry.channel))) await this.o.store.delete(key);
    await this.o.onChannelGone?.(entry.subscriber, reason);
  }
}
