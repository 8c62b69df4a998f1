// A bounded in-memory event store for one Streamable HTTP session: what went out on its SSE streams is kept a while,
// so a client whose stream dropped reconnects with Last-Event-ID and gets what it missed.
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
   * The message as JSON text, or undefined for a priming event (nothing to replay). Text, not the object: a
   * result's object graph takes several times its JSON's size in memory, and a replay is rare.
   */
  json?: string;
  bytes: number;
  storedAt: number;
}

interface Stream {
  events: StoredEvent[];
  /** Sequence number the next event of this stream gets. */
  nextSeq: number;
  lastStoredAt: number;
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
  }

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const now = this.now();
    this.expire(now);
    let stream = this.streams.get(streamId);
    if (!stream) {
      stream = { events: [], nextSeq: 0, lastStoredAt: now };
      this.streams.set(streamId, stream);
      this.forgetStreamsOverLimit();
    }
    const json = isPriming(message) ? undefined : JSON.stringify(message);
    const event: StoredEvent = {
      seq: stream.nextSeq++,
      order: this.order++,
      json,
      bytes: json?.length ?? 2,
      storedAt: now,
    };
    stream.events.push(event);
    stream.lastStoredAt = now;
    this.events += 1;
    this.bytes += event.bytes;
    this.budget.bytes += event.bytes;
    while (stream.events.length > this.limits.maxEventsPerStream) this.dropOldest(stream);
    while (this.events > this.limits.maxEvents || this.bytes > this.limits.maxBytes) this.dropOldestOfAll();
    // Over the server-wide budget, this store pays from its own older events, keeping the one just stored.
    while (this.budget.bytes > this.budget.maxBytes && this.events > 1) this.dropOldestOfAll();
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
      if (event.seq > after && event.json !== undefined)
        await send(`${streamId}_${event.seq}`, JSON.parse(event.json) as JSONRPCMessage);
    }
    return streamId;
  }

  /** What the store holds now (for tests and diagnostics). */
  size(): { streams: number; events: number; bytes: number } {
    return { streams: this.streams.size, events: this.events, bytes: this.bytes };
  }

  private dropOldest(stream: Stream): void {
    const event = stream.events.shift();
    if (!event) return;
    this.events -= 1;
    this.bytes -= event.bytes;
    this.budget.bytes -= event.bytes;
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
    const cutoff = now - this.limits.ttlMs;
    for (const [id, stream] of this.streams) {
      while (stream.events.length > 0 && stream.events[0].storedAt <= cutoff) this.dropOldest(stream);
      if (stream.events.length === 0 && stream.lastStoredAt <= cutoff) this.streams.delete(id);
    }
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
