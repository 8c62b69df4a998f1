// The incident outbox against a fake Slack through the real Web API client, its clock driven by hand: a 500 is sent
// again after its backoff and posts once; a 429's Retry-After is waited out; another outbox on the same store (a
// restart, a replica) carries on without posting twice; updates coalesce; caps drop old updates, never a first post;
// a channel the bot was removed from is handed over and emptied.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { webApi } from '@slack/bolt';
import { MemoryStore } from '../../../src/state/store.js';
import { Outbox, outboxSlackOf, type OutboxOptions } from '../../../src/slack/incident/outbox.js';
import { startFakeSlack, type FakeSlack } from '../../helpers/slack.js';
import { warningsLog } from '../../helpers/watch.js';

let slack: FakeSlack;
let now = Date.parse('2026-11-27T10:00:00Z');
const clock = () => now;
const { log, warnings } = warningsLog();

beforeAll(async () => {
  slack = await startFakeSlack();
});
afterAll(async () => {
  await slack?.close();
});
afterEach(() => {
  slack.calls.length = 0;
  warnings.length = 0;
});

function outbox(store: MemoryStore, over: Partial<OutboxOptions> = {}): Outbox {
  const web = new webApi.WebClient('xoxb-test', {
    slackApiUrl: `${slack.apiUrl}/`,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
  });
  return new Outbox({
    store,
    log,
    now: clock,
    slack: outboxSlackOf(web),
    ...over,
  });
}

const message = (text: string) => ({ text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] });
const SUB = 'slack:T1:C1';
const KEY = 'watch:msg:acme/web:main:10:C1';
const sent = (method: string) => slack.calls.filter((c) => c.method === method);

describe('the incident outbox', () => {
  it('sends a post again after a 500, once, and records its ts for the updates and replies that waited for it', async () => {
    const store = new MemoryStore({ now: clock });
    const box = outbox(store);
    slack.failNext('chat.postMessage', 1, 500);
    await box.post(SUB, 'C1', KEY, message('red'));
    await box.update(SUB, 'C1', KEY, message('running'));
    await box.reply(SUB, 'C1', KEY, message('ana pressed Retry'));
    await box.drain();
    expect(slack.calls).toEqual([]);
    // Backing off: the same moment sends nothing.
    await box.drain();
    expect(slack.calls).toEqual([]);
    now += 2_000;
    await box.drain();
    expect(sent('chat.postMessage').map((c) => [c.args.text, c.args.thread_ts])).toEqual([
      ['red', undefined],
      ['ana pressed Retry', '1000'],
    ]);
    expect(sent('chat.update').map((c) => [c.args.text, c.args.ts])).toEqual([['running', '1000']]);
    expect(await store.get(KEY)).toBe('1000');
    expect(await box.size()).toBe(0);
    await box.drain();
    expect(sent('chat.postMessage')).toHaveLength(2);
  });

  it('keeps a post whose request never got an answer, and tries it again later', async () => {
    const store = new MemoryStore({ now: clock });
    const web = new webApi.WebClient('xoxb-test', {
      slackApiUrl: 'http://127.0.0.1:9/api/',
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
    });
    const box = new Outbox({ store, log, now: clock, slack: outboxSlackOf(web) });
    await box.post(SUB, 'C1', KEY, message('red'));
    await box.drain();
    expect(await box.size()).toBe(1);
    expect(warnings.some((w) => /could not send a post to C1 .*trying again in 2 s/.test(w))).toBe(true);
  });

  it("waits out a 429's Retry-After for the whole channel", async () => {
    const store = new MemoryStore({ now: clock });
    const box = outbox(store);
    slack.rateLimit('chat.postMessage', 1, 7);
    await box.post(SUB, 'C1', KEY, message('red'));
    await box.notice(SUB, 'C1', message('stopped watching'));
    await box.notice('slack:T1:C2', 'C2', message('elsewhere'));
    await box.drain();
    // The other channel is not held up.
    expect(sent('chat.postMessage').map((c) => c.args.channel)).toEqual(['C2']);
    now += 6_000;
    await box.drain();
    expect(sent('chat.postMessage')).toHaveLength(1);
    now += 1_000;
    await box.drain();
    expect(sent('chat.postMessage').map((c) => c.args.text)).toEqual(['elsewhere', 'red', 'stopped watching']);
  });

  it('carries on from the store after a restart without posting twice', async () => {
    const store = new MemoryStore({ now: clock });
    // The first process queued a post and an update, then stopped before sending anything.
    const first = outbox(store);
    await first.post(SUB, 'C1', KEY, message('red'));
    await first.update(SUB, 'C1', KEY, message('running'));
    await first.close();
    const second = outbox(store);
    await second.drain();
    expect(sent('chat.postMessage').map((c) => c.args.text)).toEqual(['red']);
    expect(sent('chat.update').map((c) => c.args.text)).toEqual(['running']);
    // A process that posted and kept the ts, but died before its entry went: the next one does not post again.
    const other = 'watch:msg:acme/web:main:11:C1';
    await first.post(SUB, 'C1', other, message('red again'));
    await store.set(other, '999');
    await outbox(store).drain();
    expect(sent('chat.postMessage')).toHaveLength(1);
    expect(await second.size()).toBe(0);
  });

  it('sends only the latest content of a message waiting to be updated', async () => {
    const store = new MemoryStore({ now: clock });
    await store.set(KEY, '1000');
    const box = outbox(store);
    for (const text of ['running', 'still red', 'green']) await box.update(SUB, 'C1', KEY, message(text));
    expect(await box.size('C1')).toBe(1);
    await box.drain();
    expect(sent('chat.update').map((c) => [c.args.text, c.args.ts])).toEqual([['green', '1000']]);
  });

  it('keeps within its caps by dropping the oldest updates, then the oldest replies, never a first post', async () => {
    const store = new MemoryStore({ now: clock });
    const box = outbox(store, { maxPerChannel: 3 });
    await box.post(SUB, 'C1', KEY, message('red'));
    await box.update(SUB, 'C1', 'watch:msg:other:C1', message('old update'));
    await box.reply(SUB, 'C1', KEY, message('reply 1'));
    await box.reply(SUB, 'C1', KEY, message('reply 2'));
    await box.reply(SUB, 'C1', KEY, message('reply 3'));
    await box.post(SUB, 'C1', 'watch:msg:acme/web:main:12:C1', message('another red'));
    expect(await box.size('C1')).toBe(4);
    await box.drain();
    expect(sent('chat.postMessage').map((c) => c.args.text)).toEqual(['red', 'reply 2', 'reply 3', 'another red']);
    expect(sent('chat.update')).toEqual([]);
    expect(warnings.filter((w) => w.includes('outbox full'))).toHaveLength(2);
  });

  it('hands over a channel the bot was removed from (not_in_channel) and drops what waited for it', async () => {
    const store = new MemoryStore({ now: clock });
    const gone: Array<[string, string]> = [];
    const box = outbox(store, {
      onChannelGone: async (subscriber, reason) => {
        gone.push([subscriber, reason]);
      },
    });
    slack.refuse('chat.postMessage', 'C9', 'not_in_channel');
    await box.post('slack:T1:C9', 'C9', 'watch:msg:acme/web:main:10:C9', message('red'));
    await box.reply('slack:T1:C9', 'C9', 'watch:msg:acme/web:main:10:C9', message('reply'));
    await box.notice(SUB, 'C1', message('here'));
    await box.drain();
    expect(gone).toEqual([['slack:T1:C9', 'not_in_channel']]);
    expect(await box.size('C9')).toBe(0);
    expect(sent('chat.postMessage').map((c) => c.args.channel)).toEqual(['C9', 'C1']);
  });
});
