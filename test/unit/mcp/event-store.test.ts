// The bounded event store behind resumable SSE streams: replay after an id, caps per stream and in total, expiry; and
// a POST's stream, whose messages are kept as they are while its response is written and copied only if it breaks off.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { BoundedEventStore, EventBudget } from '../../../src/mcp/event-store.js';

const note = (n: number): JSONRPCMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/message',
  params: { level: 'info', data: `line ${n}` },
});

async function replay(store: BoundedEventStore, after: string) {
  const sent: Array<[string, JSONRPCMessage]> = [];
  const stream = await store.replayEventsAfter(after, {
    send: async (id, message) => {
      sent.push([id, message]);
    },
  });
  return { stream, sent };
}

/** A store on a clock the test moves. */
function storeAt(limits: ConstructorParameters<typeof BoundedEventStore>[0] = {}) {
  const clock = { now: 1_000 };
  return { store: new BoundedEventStore(limits, () => clock.now), clock };
}

describe('BoundedEventStore', () => {
  it('replays the events of one stream after the given id, skipping the priming event', async () => {
    const { store } = storeAt();
    const priming = await store.storeEvent('_GET_stream', {} as JSONRPCMessage);
    const first = await store.storeEvent('_GET_stream', note(1));
    await store.storeEvent('other', note(99));
    await store.storeEvent('_GET_stream', note(2));
    expect(priming).toMatch(/^_GET_stream_\d+$/);

    const fromPriming = await replay(store, priming);
    expect(fromPriming.stream).toBe('_GET_stream');
    expect(fromPriming.sent.map(([, m]) => (m as unknown as { params: { data: string } }).params.data)).toEqual([
      'line 1',
      'line 2',
    ]);
    const fromFirst = await replay(store, first);
    expect(fromFirst.sent.map(([id]) => id)).toEqual([fromPriming.sent[1][0]]);
    expect(await store.getStreamIdForEventId(first)).toBe('_GET_stream');
  });

  it('knows no made-up, future or malformed ids', async () => {
    const { store } = storeAt();
    const id = await store.storeEvent('s', note(1));
    for (const bad of ['nonsense', 's_x', 's_7', 'unknown_0', '_0'])
      expect(await store.getStreamIdForEventId(bad)).toBeUndefined();
    await expect(replay(store, 's_7')).rejects.toThrow(/unknown or expired/);
    expect(await store.getStreamIdForEventId(id)).toBe('s');
  });

  it('keeps at most maxEventsPerStream of a stream, and will not resume across what it dropped', async () => {
    const { store } = storeAt({ maxEventsPerStream: 3 });
    const ids: string[] = [];
    for (let n = 0; n < 5; n++) ids.push(await store.storeEvent('s', note(n)));
    expect(store.size().events).toBe(3);
    // Events 1 and 2 are gone: resuming after 0 would silently skip them.
    expect(await store.getStreamIdForEventId(ids[0])).toBeUndefined();
    // After 1, the next kept event is 2: nothing is missing.
    expect((await replay(store, ids[1])).sent.map(([id]) => id)).toEqual(ids.slice(2));
  });

  it('keeps at most maxEvents and maxBytes in total, dropping the oldest of any stream', async () => {
    const { store } = storeAt({ maxEvents: 4 });
    for (let n = 0; n < 3; n++) await store.storeEvent('a', note(n));
    for (let n = 0; n < 3; n++) await store.storeEvent('b', note(n));
    expect(store.size().events).toBe(4);
    expect(await store.getStreamIdForEventId('a_0')).toBeUndefined();
    expect((await replay(store, 'a_1')).sent.map(([id]) => id)).toEqual(['a_2']);

    const bytes = JSON.stringify(note(0)).length;
    const small = storeAt({ maxBytes: bytes * 2 }).store;
    for (let n = 0; n < 5; n++) await small.storeEvent('s', note(n));
    expect(small.size()).toMatchObject({ events: 2 });
    expect(small.size().bytes).toBeLessThanOrEqual(bytes * 2);
  });

  it('forgets events after ttlMs, and streams quiet that long', async () => {
    const { store, clock } = storeAt({ ttlMs: 60_000 });
    const old = await store.storeEvent('old', note(1));
    clock.now += 30_000;
    const recent = await store.storeEvent('recent', note(2));
    clock.now += 30_000;
    expect(await store.getStreamIdForEventId(old)).toBeUndefined();
    expect(await store.getStreamIdForEventId(recent)).toBe('recent');
    expect(store.size()).toEqual({ streams: 1, events: 1, bytes: JSON.stringify(note(2)).length });
  });

  it('forgets each event on its own time, also after a walk that forgot others (the walk waits for the next due)', async () => {
    const { store, clock } = storeAt({ ttlMs: 60_000 });
    await store.storeEvent('a', note(1));
    clock.now += 30_000;
    const second = await store.storeEvent('b', note(2));
    clock.now += 30_000;
    expect(store.size()).toMatchObject({ streams: 2, events: 2 });
    expect(await store.getStreamIdForEventId(second)).toBe('b');
    expect(store.size()).toMatchObject({ streams: 1, events: 1 });
    clock.now += 29_999;
    expect(await store.getStreamIdForEventId(second)).toBe('b');
    clock.now += 1;
    expect(await store.getStreamIdForEventId(second)).toBeUndefined();
    expect(store.size()).toMatchObject({ streams: 0, events: 0, bytes: 0 });
    // An empty store starts over: a new event is due a full ttl after it was stored.
    const third = await store.storeEvent('c', note(3));
    clock.now += 59_999;
    expect(await store.getStreamIdForEventId(third)).toBe('c');
    clock.now += 1;
    expect(await store.getStreamIdForEventId(third)).toBeUndefined();
  });

  it('remembers at most maxStreams streams, forgetting the oldest', async () => {
    const { store } = storeAt({ maxStreams: 2 });
    const first = await store.storeEvent('one', note(1));
    await store.storeEvent('two', note(2));
    await store.storeEvent('three', note(3));
    expect(store.size()).toMatchObject({ streams: 2, events: 2 });
    expect(await store.getStreamIdForEventId(first)).toBeUndefined();
  });

  it('resumes after the last event even when nothing new came (nothing was missed)', async () => {
    const { store } = storeAt();
    const last = await store.storeEvent('s', note(1));
    expect(await replay(store, last)).toEqual({ stream: 's', sent: [] });
  });

  it('holds all sessions to one byte budget: a store over it drops its own oldest events, and gives its bytes back on close', async () => {
    const size = JSON.stringify(note(1)).length;
    const budget = new EventBudget(size * 5);
    const quiet = new BoundedEventStore({}, Date.now, budget);
    const busy = new BoundedEventStore({}, Date.now, budget);
    const kept = await quiet.storeEvent('q', note(1));
    for (let n = 0; n < 20; n++) await busy.storeEvent('b', note(n % 10));
    expect(budget.bytes).toBeLessThanOrEqual(size * 5);
    // The store that went over paid for it; the other one's events are all still replayable.
    expect(quiet.size().events).toBe(1);
    expect(busy.size().events).toBe(4);
    expect(await quiet.getStreamIdForEventId(kept)).toBe('q');
    busy.release();
    expect(budget.bytes).toBe(quiet.size().bytes);
  });

  describe("a stream written to a response (the SDK opens a POST's stream while expectStream names its response)", () => {
    /** A response that closes when the test says, written to its end or broken off. */
    class FakeResponse extends EventEmitter {
      writableFinished = false;
      closed = false;
      close(finished: boolean): void {
        this.writableFinished = finished;
        this.closed = true;
        this.emit('close');
      }
    }
    const result = (rows: number): JSONRPCMessage => ({
      jsonrpc: '2.0',
      id: 7,
      result: {
        content: [{ type: 'text', text: JSON.stringify({ rows: Array.from({ length: rows }, (_, i) => i) }) }],
      },
    });

    async function openStream(store: BoundedEventStore, streamId: string) {
      const res = new FakeResponse();
      store.expectStream(res);
      const priming = await store.storeEvent(streamId, {} as JSONRPCMessage);
      store.expectStream(undefined);
      return { res, priming };
    }

    it('copies nothing while the response is written, and keeps nothing once it was written to its end', async () => {
      const budget = new EventBudget();
      const store = new BoundedEventStore({}, Date.now, budget);
      const { res, priming } = await openStream(store, 'post-1');
      await store.storeEvent('post-1', result(500));
      expect(store.size()).toMatchObject({ events: 2, bytes: 4 });
      res.close(true);
      expect(store.size()).toMatchObject({ events: 0, bytes: 0 });
      expect(budget.bytes).toBe(0);
      // Nothing is offered for a stream the client read to its end.
      expect(await store.getStreamIdForEventId(priming)).toBeUndefined();
      // A message the stream gets after its response ended is kept as any other, after the ones it had.
      const late = await store.storeEvent('post-1', note(1));
      expect(late).toBe('post-1_2');
      expect(store.size().bytes).toBe(JSON.stringify(note(1)).length);
    });

    it('copies what a broken-off response held, as it was then, and replays it', async () => {
      const store = new BoundedEventStore();
      const { res, priming } = await openStream(store, 'post-2');
      const answer = result(3);
      await store.storeEvent('post-2', answer);
      const copy = structuredClone(answer);
      res.close(false);
      expect(store.size().bytes).toBe(JSON.stringify(answer).length + 2);
      // The copy was made when the response broke off: what the caller's object becomes later is not replayed.
      (answer as { id: number }).id = 99;
      expect((await replay(store, priming)).sent).toEqual([['post-2_1', copy]]);
      // The answer that comes after the break is copied at once, and replayed after it.
      await store.storeEvent('post-2', note(2));
      expect((await replay(store, priming)).sent.map(([id]) => id)).toEqual(['post-2_1', 'post-2_2']);
    });

    it('replays a live stream from the messages it holds, and binds only the first stream opened while expected', async () => {
      const store = new BoundedEventStore();
      const res = new FakeResponse();
      store.expectStream(res);
      const priming = await store.storeEvent('post-3', {} as JSONRPCMessage);
      await store.storeEvent('other', note(1));
      store.expectStream(undefined);
      await store.storeEvent('post-3', note(3));
      expect((await replay(store, priming)).sent).toEqual([['post-3_1', note(3)]]);
      // 'other' was not the expected response's stream: its message was copied at once.
      expect(store.size().bytes).toBe(2 + JSON.stringify(note(1)).length + 2);
    });

    it('copies at once the messages of a stream whose response had closed before the stream began', async () => {
      const store = new BoundedEventStore();
      const res = new FakeResponse();
      res.close(false);
      store.expectStream(res);
      await store.storeEvent('post-5', {} as JSONRPCMessage);
      store.expectStream(undefined);
      await store.storeEvent('post-5', note(5));
      // Counted at its size, under the limits, not held uncounted until it expires.
      expect(store.size().bytes).toBe(2 + JSON.stringify(note(5)).length);
    });

    it('holds a response closed after its session: nothing is counted twice', async () => {
      const budget = new EventBudget();
      const store = new BoundedEventStore({}, Date.now, budget);
      const { res } = await openStream(store, 'post-4');
      await store.storeEvent('post-4', result(10));
      store.release();
      res.close(false);
      expect(store.size()).toMatchObject({ events: 0, bytes: 0 });
      expect(budget.bytes).toBe(0);
    });
  });
});
