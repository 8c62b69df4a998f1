// A bounded in-memory event store for one Streamable HTTP session: what a dropped SSE stream missed is kept a while,
// so its client reconnects with Last-Event-ID and gets it. A stream written out to its end needs nothing kept.
import type { EventId, EventStore, StreamId } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

interface EventStoreLimits {
  /** Events kept per stream (one stream per POST that answers with SSE, and the GET stream). */
  maxEventsPerStream: number;
  /** Events kept in the whole store. */
  maxEvents: number;
  /** Bytes of JSON kept in the whole store. */
  maxBytes: number;
  /** How long an event is kept: a client that comes back later starts over. */
  ttlMs: number;
  /** Streams remembered, with or without events (a stream is small, but a client can open many). */
  maxStreams: number;
}

/**
 * Per session. A default-sized tool result is ~60 KB, so a session keeps the last dozen or more; all sessions of a
 * replica together are held to EventBudget's bytes besides (1,000 sessions × 1 MiB would be too much for one process).
 */
const DEFAULT_EVENT_STORE_LIMITS: EventStoreLimits = {
  maxEventsPerStream: 100,
  maxEvents: 500,
  maxBytes: 1024 * 1024,
  ttlMs: 5 * 60_000,
  maxStreams: 200,
};

/** How long a client waits before reconnecting a dropped stream (the SSE `retry` field of the priming event). */
export const SSE_RETRY_MS = 1_000;

interface StoredEvent {
  seq: number;
  /** Store-wide insertion order, to find the oldest event of all streams. */
  order: number;
  /**
   * The message as JSON text, or undefined for a priming event (nothing to replay) and while `message` holds it.
   * Text, not the object: a result's object graph takes several times its JSON's size in memory, and a replay is rare.
   */
  json?: string;
  /**
   * The message itself while its stream's response is still being written (see expectStream): the response holds it
   * anyway. Turned into `json` if that response breaks off; dropped with the rest once it was written to its end.
   */
  message?: JSONRPCMessage;
  bytes: number;
  storedAt: number;
}

interface Stream {
  events: StoredEvent[];
  /** Sequence number the next event of this stream gets. */
  nextSeq: number;
  lastStoredAt: number;
  /** Being written to an HTTP response still open (see expectStream): its events wait as messages, not copies. */
  live: boolean;
}

/** What the store needs of the HTTP response a stream is written to: when it closes, whether all of it went out. */
export interface StreamResponse {
  once(event: 'close', listener: () => void): unknown;
  /** True once everything written was handed to the operating system (Node's ServerResponse has it). */
  readonly writableFinished: boolean;
  /** True once it closed: its 'close' has been emitted already. */
  readonly closed: boolean;
}

/** `<stream id>_<sequence>`; the SDK's stream ids contain underscores, so the last one separates. */
function parseEventId(eventId: EventId): { streamId: StreamId; seq: number } | undefined {
  const at = eventId.lastIndexOf('_');
  const seq = Number(eventId.slice(at + 1));
  if (at <= 0 || !Number.isSafeInteger(seq) || seq < 0) return undefined;
  return { streamId: eventId.slice(0, at), seq };
}

/** Priming events carry no message (the SDK stores `{}`): nothing to replay. */
function isPriming(message: JSONRPCMessage): boolean {
  return Object.keys(message).length === 0;
}

/** What a priming event, or a message not yet copied, counts against the limits. */
const UNCOPIED_BYTES = 2;

/**
 * Bytes of events all sessions of one server may hold together; a store over it drops its own oldest events first.
 * A client whose stream dropped comes back within seconds (SSE_RETRY_MS): at 1,000 calls a second of 20 KB results
 * this keeps more than a second and a half of them.
 */
const DEFAULT_EVENT_BUDGET_BYTES = 32 * 1024 * 1024;

/** The byte count shared by every session's store of one server. */
export class EventBudget {
  bytes = 0;
  constructor(readonly maxBytes = DEFAULT_EVENT_BUDGET_BYTES) {}
}

export class BoundedEventStore implements EventStore {
  private readonly streams = new Map<StreamId, Stream>();
  private readonly limits: EventStoreLimits;
  private events = 0;
  private bytes = 0;
  private order = 0;
  /** The response the next new stream is written to, while the SDK starts a POST's stream (see expectStream). */
  private expected?: StreamResponse;
  /**
   * Nothing held is due to expire before this time, so expire() walks the streams only from then: a session keeps a
   * stream for each of its calls of the last five minutes, and walking them all on every event cost more than the rest.
   */
  private nextExpiryAt = Number.POSITIVE_INFINITY;

  constructor(
    limits: Partial<EventStoreLimits> = {},
    private readonly now: () => number = Date.now,
    private readonly budget: EventBudget = new EventBudget(Infinity),
  ) {
    this.limits = { ...DEFAULT_EVENT_STORE_LIMITS, ...limits };
  }

  /** Gives this store's bytes back to the shared budget (its session closed). */
  release(): void {
    this.budget.bytes -= this.bytes;
    this.streams.clear();
    this.events = 0;
    this.bytes = 0;
    this.nextExpiryAt = Number.POSITIVE_INFINITY;
  }

  /**
   * Names the HTTP response of the stream the SDK is about to open, for the duration of a synchronous call into it:
   * the SDK stores a POST's priming event, the new stream's first, before its first await. That stream's messages are
   * then kept as they are, not copied: once the response was written to its end they are dropped (the client has
   * them, and replay is for a stream that broke off), and if it breaks off first they are copied for replay. When the
   * SDK stores nothing new meanwhile (an older client gets no priming event), every message is copied, as always.
   */
  expectStream(res: StreamResponse | undefined): void {
    this.expected = res;
  }

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const now = this.now();
    this.expire(now);
    let stream = this.streams.get(streamId);
    if (!stream) {
      stream = { events: [], nextSeq: 0, lastStoredAt: now, live: false };
      this.streams.set(streamId, stream);
      // A response closed already (its client left before the stream began) will not say so again: copy as always.
      if (this.expected && !this.expected.closed) this.follow(streamId, stream, this.expected);
      this.expected = undefined;
      this.forgetStreamsOverLimit();
    }
    const priming = isPriming(message);
    const json = priming || stream.live ? undefined : JSON.stringify(message);
    const event: StoredEvent = {
      seq: stream.nextSeq++,
      order: this.order++,
      json,
      message: priming || !stream.live ? undefined : message,
      bytes: json?.length ?? UNCOPIED_BYTES,
      storedAt: now,
    };
    stream.events.push(event);
    stream.lastStoredAt = now;
    this.nextExpiryAt = Math.min(this.nextExpiryAt, now + this.limits.ttlMs);
    this.events += 1;
    this.count(event.bytes);
    while (stream.events.length > this.limits.maxEventsPerStream) this.dropOldest(stream);
    this.fitLimits();
    return `${streamId}_${event.seq}`;
  }

  /**
   * The stream of an event id, when every event after it is still here; otherwise undefined, which the SDK answers
   * with 400: a client must not resume past a gap as if nothing had been lost.
   */
  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    this.expire(this.now());
    const parsed = parseEventId(eventId);
    if (!parsed) return undefined;
    const stream = this.streams.get(parsed.streamId);
    if (!stream || parsed.seq >= stream.nextSeq) return undefined;
    const firstKept = stream.events[0]?.seq ?? stream.nextSeq;
    return parsed.seq + 1 >= firstKept ? parsed.streamId : undefined;
  }

  async replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId> {
    const streamId = await this.getStreamIdForEventId(lastEventId);
    if (streamId === undefined) throw new Error(`event ${lastEventId} is unknown or expired`);
    const after = parseEventId(lastEventId)!.seq;
    // A copy: sending may store new events on this stream meanwhile.
    for (const event of [...this.streams.get(streamId)!.events]) {
      const message = event.message ?? (event.json === undefined ? undefined : JSON.parse(event.json));
      if (event.seq > after && message !== undefined) await send(`${streamId}_${event.seq}`, message as JSONRPCMessage);
    }
    return streamId;
  }

  /** What the store holds now (for tests and diagnostics). */
  size(): { streams: number; events: number; bytes: number } {
    return { streams: this.streams.size, events: this.events, bytes: this.bytes };
  }

  /** Watches the response a new stream is written to: its end decides what of the stream is kept (expectStream). */
  private follow(streamId: StreamId, stream: Stream, res: StreamResponse): void {
    stream.live = true;
    res.once('close', () => {
      // A stream forgotten meanwhile (its session closed, or over the limits) has been accounted for already.
      if (!stream.live || this.streams.get(streamId) !== stream) return;
      stream.live = false;
      if (res.writableFinished) {
        while (stream.events.length > 0) this.dropOldest(stream);
        return;
      }
      for (const event of stream.events) {
        if (event.message === undefined) continue;
        const json = JSON.stringify(event.message);
        event.message = undefined;
        event.json = json;
        this.count(json.length - event.bytes);
        event.bytes = json.length;
      }
      this.fitLimits();
    });
  }

  private count(bytes: number): void {
    this.bytes += bytes;
    this.budget.bytes += bytes;
  }

  /** Within this store's limits, then the server-wide budget, paid from this store's own oldest events. */
  private fitLimits(): void {
    while (this.events > this.limits.maxEvents || this.bytes > this.limits.maxBytes) this.dropOldestOfAll();
    // Over the server-wide budget, this store pays from its own older events, keeping the newest.
    while (this.budget.bytes > this.budget.maxBytes && this.events > 1) this.dropOldestOfAll();
  }

  private dropOldest(stream: Stream): void {
    const event = stream.events.shift();
    if (!event) return;
    this.events -= 1;
    this.count(-event.bytes);
  }

  private dropOldestOfAll(): void {
    let oldest: Stream | undefined;
    for (const stream of this.streams.values()) {
      const first = stream.events[0];
      if (first && (!oldest || first.order < oldest.events[0].order)) oldest = stream;
    }
    if (oldest) this.dropOldest(oldest);
  }

  /** Events past their time go; so do streams with nothing left that have been quiet as long. */
  private expire(now: number): void {
    if (now < this.nextExpiryAt) return;
    const cutoff = now - this.limits.ttlMs;
    let oldestKept = Number.POSITIVE_INFINITY;
    for (const [id, stream] of this.streams) {
      while (stream.events.length > 0 && stream.events[0].storedAt <= cutoff) this.dropOldest(stream);
      if (stream.events.length === 0 && stream.lastStoredAt <= cutoff) this.streams.delete(id);
      else oldestKept = Math.min(oldestKept, stream.events[0]?.storedAt ?? stream.lastStoredAt);
    }
    this.nextExpiryAt = oldestKept + this.limits.ttlMs;
  }

  /** Insertion order is opening order: the streams forgotten first are the oldest. */
  private forgetStreamsOverLimit(): void {
    for (const [id, stream] of this.streams) {
      if (this.streams.size <= this.limits.maxStreams) return;
      while (stream.events.length > 0) this.dropOldest(stream);
      this.streams.delete(id);
    }
  }
}
