// How the bot answers: through the request's response_url (Slack allows 5 uses in 30 minutes), and messages of its
// own through a bounded queue that posts about one message a second per channel and waits out a 429's Retry-After.
import type { Logger } from '../log.js';
import type { SlackMessage } from './blocks.js';

export type Visibility = 'ephemeral' | 'in_channel';

/** Slack's rules for a response_url. */
const RESPONSE_URL_USES = 5;
const RESPONSE_URL_LIFETIME_MS = 30 * 60_000;
const RESPONSE_TIMEOUT_MS = 10_000;
/** Response URLs remembered at once (their use counts); a stranger's flood must not grow it without end. */
const MAX_TRACKED_URLS = 10_000;

let fetchPrepared: Promise<void> | undefined;

/**
 * Builds fetch's machinery now: Node loads and compiles it on the first call (tens of ms of blocked event loop), which
 * would otherwise land on the first reply after a start, while the acks of the requests that came with it wait.
 * Nothing leaves the process: a data: URL.
 */
export function prepareFetch(): Promise<void> {
  fetchPrepared ??= fetch('data:,').then(
    (response) => response.arrayBuffer().then(() => undefined),
    () => undefined,
  );
  return fetchPrepared;
}

/** Posts to response_urls, counting their uses; says false when the URL is spent or Slack refused, so the caller can fall back. */
export class ResponseUrls {
  private readonly uses = new Map<string, { count: number; firstAt: number }>();

  constructor(
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  async send(
    url: string,
    message: SlackMessage,
    options: { visibility?: Visibility; replaceOriginal?: boolean } = {},
  ): Promise<boolean> {
    const now = this.now();
    const used = this.uses.get(url) ?? { count: 0, firstAt: now };
    if (used.count >= RESPONSE_URL_USES || now - used.firstAt > RESPONSE_URL_LIFETIME_MS) return false;
    used.count += 1;
    this.uses.delete(url);
    this.uses.set(url, used);
    if (this.uses.size > MAX_TRACKED_URLS) this.uses.delete(this.uses.keys().next().value as string);
    const body = {
      ...message,
      ...(options.replaceOriginal ? { replace_original: true } : { response_type: options.visibility ?? 'ephemeral' }),
    };
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(RESPONSE_TIMEOUT_MS),
      });
      await response.arrayBuffer().catch(() => undefined);
      if (!response.ok) this.log.warn(`slack: response_url answered ${response.status}`);
      return response.ok;
    } catch (error) {
      this.log.warn(`slack: response_url failed: ${(error as Error).message}`);
      return false;
    }
  }
}

/** The Web API call the queue makes; Bolt's WebClient in production, anything with the same shape in tests. */
type PostMessage = (args: { channel: string } & SlackMessage) => Promise<unknown>;

interface PostQueueOptions {
  post: PostMessage;
  log: Logger;
  /** Gap between two messages to one channel (Slack: about one a second). */
  intervalMs?: number;
  /** Messages waiting per channel, and over all channels; more are dropped with a warning. */
  maxPerChannel?: number;
  maxTotal?: number;
  /** Attempts of one message on 429 before it is dropped. */
  maxAttempts?: number;
}

interface Queued {
  channel: string;
  message: SlackMessage;
  attempts: number;
  done: (posted: boolean) => void;
}

/** A rate-limited answer: `retryAfter` in seconds (WebClient's WebAPIRateLimitedError has this shape). */
function retryAfterSeconds(error: unknown): number | undefined {
  const value = (error as { retryAfter?: unknown }).retryAfter;
  return typeof value === 'number' && value >= 0 ? value : undefined;
}

export class PostQueue {
  private readonly queues = new Map<string, Queued[]>();
  private readonly busy = new Set<string>();
  /** When each channel may get its next message. */
  private readonly notBefore = new Map<string, number>();
  private total = 0;
  private closed = false;

  constructor(private readonly options: PostQueueOptions) {}

  /** Resolves true once posted, false when dropped (queue full, rate limited too often, or an error). */
  post(channel: string, message: SlackMessage): Promise<boolean> {
    const { maxPerChannel = 50, maxTotal = 1000 } = this.options;
    const queue = this.queues.get(channel) ?? [];
    if (this.closed || queue.length >= maxPerChannel || this.total >= maxTotal) {
      this.options.log.warn(`slack: dropped a message to ${channel}: the post queue is full`);
      return Promise.resolve(false);
    }
    return new Promise((done) => {
      queue.push({ channel, message, attempts: 0, done });
      this.queues.set(channel, queue);
      this.total += 1;
      void this.drain(channel);
    });
  }

  private async drain(channel: string): Promise<void> {
    if (this.busy.has(channel)) return;
    this.busy.add(channel);
    const { intervalMs = 1000, maxAttempts = 3 } = this.options;
    try {
      for (let item = this.queues.get(channel)?.[0]; item && !this.closed; item = this.queues.get(channel)?.[0]) {
        const gap = (this.notBefore.get(channel) ?? 0) - Date.now();
        if (gap > 0) await new Promise((resolve) => setTimeout(resolve, gap).unref());
        let finished = true;
        let wait = intervalMs;
        try {
          item.attempts += 1;
          await this.options.post({ channel, ...item.message });
          item.done(true);
        } catch (error) {
          const after = retryAfterSeconds(error);
          if (after !== undefined && item.attempts < maxAttempts) {
            wait = Math.max(intervalMs, after * 1000);
            finished = false;
            this.options.log.info(`slack: rate limited on ${channel}; retrying in ${Math.ceil(wait / 1000)} s`);
          } else {
            this.options.log.warn(`slack: could not post to ${channel}: ${(error as Error).message}`);
            item.done(false);
          }
        }
        this.notBefore.set(channel, Date.now() + wait);
        if (finished) {
          this.queues.get(channel)?.shift();
          this.total -= 1;
        }
      }
    } finally {
      this.queues.delete(channel);
      this.busy.delete(channel);
      // Only the channels posted to within the last interval matter for spacing.
      const now = Date.now();
      for (const [name, at] of this.notBefore) if (at < now) this.notBefore.delete(name);
    }
  }

  /** Drops whatever waits (at shutdown). */
  close(): void {
    this.closed = true;
    for (const queue of this.queues.values()) for (const item of queue) item.done(false);
    this.queues.clear();
    this.total = 0;
  }
}
