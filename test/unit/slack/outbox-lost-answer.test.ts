// A first post whose answer never came back (the connection dropped after Slack took it, a gateway timeout, a replica
// that died before saving the ts) against a fake Slack through the real Web API client, clock driven by hand: the
// message carries its outbox id as metadata, and the channel's history is searched for it before anything is posted
// again, so the channel gets it once; a lookup that keeps failing holds the post back only so long.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { webApi } from '@slack/bolt';
import { Identities } from '../../../src/slack/identity.js';
import { MAX_LOOKUPS, Outbox, outboxSlackOf } from '../../../src/slack/incident/outbox.js';
import { IncidentMessages, messageKey } from '../../../src/slack/incident/sink.js';
import { MemoryStore, type StateStore } from '../../../src/state/store.js';
import { startFakeSlack, type FakeSlack } from '../../helpers/slack.js';
import { redReport } from '../../helpers/incident-bot.js';

let slack: FakeSlack;
let now = Date.parse('2026-11-27T10:00:00Z');
const clock = () => now;
const logged: string[] = [];
const log = {
  error: (m: string) => logged.push(m),
  warn: (m: string) => logged.push(m),
  info: (m: string) => logged.push(m),
  debug: () => {},
};

beforeAll(async () => {
  slack = await startFakeSlack({ now: clock });
});
afterAll(async () => {
  await slack?.close();
});
afterEach(() => {
  slack.calls.length = 0;
  logged.length = 0;
});

function outbox(store: StateStore, holder: string): Outbox {
  const web = new webApi.WebClient('xoxb-test', {
    slackApiUrl: `${slack.apiUrl}/`,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
  });
  return new Outbox({ store, log, now: clock, holder, slack: outboxSlackOf(web) });
}

const message = (text: string) => ({ text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] });
const SUB = 'slack:T1:C1';
const sent = (method: string) => slack.calls.filter((c) => c.method === method);

describe('a first post whose answer was lost', () => {
  it('is found in the channel by its metadata and not posted again; its update goes to that message', async () => {
    const store = new MemoryStore({ now: clock });
    const box = outbox(store, 'one');
    const key = messageKey('acme/web:main:20', 'C1');
    slack.loseAnswer('chat.postMessage', 1);
    await box.post(SUB, 'C1', key, message('red'), 'acme/web:main:20');
    const firstAttempt = now;
    await box.drain();
    expect(slack.channelMessages('C1').map((m) => m.text)).toEqual(['red']);
    expect(await store.get(key)).toBeUndefined();
    expect(await box.size('C1')).toBe(1);

    now += 2_000;
    await box.update(SUB, 'C1', key, message('running'));
    await box.drain();
    const posted = slack.channelMessages('C1');
    expect(posted.map((m) => m.text)).toEqual(['running']);
    expect(sent('chat.postMessage')).toHaveLength(1);
    expect(posted[0].metadata).toEqual({
      event_type: 'forgeops_incident',
      event_payload: { episode: 'acme/web:main:20', channel: 'C1', id: expect.any(String) },
    });
    expect(await store.get(key)).toBe(posted[0].ts);
    expect(sent('chat.update').map((c) => c.args.ts)).toEqual([posted[0].ts]);
    const [lookup] = sent('conversations.history');
    expect(lookup.args).toMatchObject({ channel: 'C1', include_all_metadata: 'true', limit: '15' });
    expect(Number(lookup.args.oldest) * 1000).toBeLessThan(firstAttempt);
    expect(await box.size()).toBe(0);
  });

  it('is posted once when the lookup shows Slack never got it (a gateway timeout)', async () => {
    const store = new MemoryStore({ now: clock });
    const box = outbox(store, 'one');
    const key = messageKey('acme/web:main:21', 'C2');
    slack.failNext('chat.postMessage', 1, 504);
    await box.post('slack:T1:C2', 'C2', key, message('red'), 'acme/web:main:21');
    await box.drain();
    expect(slack.channelMessages('C2')).toEqual([]);
    now += 2_000;
    await box.drain();
    expect(sent('conversations.history')).toHaveLength(1);
    expect(slack.channelMessages('C2').map((m) => m.text)).toEqual(['red']);
    expect(await store.get(key)).toBe(slack.channelMessages('C2')[0].ts);
  });

  it('survives the replica that posted it dying before saving the ts: the next one finds it and updates it', async () => {
    const store = new MemoryStore({ now: clock });
    const episode = 'acme/web:main:22';
    const storeOfA = diesWhenSavingTheTs(store);
    const replicaA = outbox(storeOfA, 'a');
    const incidentsA = new IncidentMessages({
      store: storeOfA,
      outbox: replicaA,
      identities: new Identities({ store: storeOfA }),
      log,
      now: clock,
    });
    await incidentsA.deliver(subscription('C3'), { kind: 'red', project: 'acme/web', ref: 'main', episode, report });
    await expect(replicaA.drain()).rejects.toThrow(/died/);
    expect(slack.channelMessages('C3')).toHaveLength(1);

    const replicaB = outbox(store, 'b');
    const incidentsB = new IncidentMessages({
      store,
      outbox: replicaB,
      identities: new Identities({ store }),
      log,
      now: clock,
    });
    await replicaB.drain();
    // A's lock on the entry holds until it expires; then B takes the post over.
    expect(sent('conversations.history')).toEqual([]);
    now += 60_000;
    await incidentsB.deliver(subscription('C3'), {
      kind: 'running',
      project: 'acme/web',
      ref: 'main',
      episode,
      pipeline: { id: 13, sha: 'cafe0000', status: 'running' },
    });
    await replicaB.drain();
    const [only] = slack.channelMessages('C3');
    expect(slack.channelMessages('C3')).toHaveLength(1);
    expect(sent('chat.postMessage')).toHaveLength(1);
    expect(await store.get(messageKey(episode, 'C3'))).toBe(only.ts);
    expect(sent('chat.update').map((c) => [c.args.channel, c.args.ts])).toEqual([['C3', only.ts]]);
    expect(only.metadata).toMatchObject({ event_payload: { episode, channel: 'C3' } });
  });

  it(`waits while the lookup fails, then after ${MAX_LOOKUPS} failed lookups (missing_scope) posts once and says so once`, async () => {
    const store = new MemoryStore({ now: clock });
    const box = outbox(store, 'one');
    const key = messageKey('acme/web:main:23', 'C4');
    slack.refuse('conversations.history', 'C4', 'missing_scope');
    slack.failNext('chat.postMessage', 1, 504);
    await box.post('slack:T1:C4', 'C4', key, message('red'), 'acme/web:main:23');
    await box.drain();
    for (let lookup = 1; lookup < MAX_LOOKUPS; lookup += 1) {
      now += 60_000;
      await box.drain();
      // Backing off: the same moment neither looks nor posts.
      await box.drain();
      expect(sent('conversations.history')).toHaveLength(lookup);
      expect(slack.channelMessages('C4')).toEqual([]);
    }
    now += 60_000;
    await box.drain();
    expect(sent('conversations.history')).toHaveLength(MAX_LOOKUPS);
    expect(slack.channelMessages('C4').map((m) => m.text)).toEqual(['red']);
    expect(await store.get(key)).toBe(slack.channelMessages('C4')[0].ts);
    const gaveUp = logged.filter((line) => line.includes('posting it, at the risk of a duplicate'));
    expect(gaveUp).toEqual([
      expect.stringContaining(`C4 for a post whose answer was lost (${MAX_LOOKUPS} times, last: missing_scope)`),
    ]);
  });

  it("is found past the first page of a busy channel's history", async () => {
    const store = new MemoryStore({ now: clock });
    const box = outbox(store, 'one');
    const key = messageKey('acme/web:main:25', 'C6');
    slack.loseAnswer('chat.postMessage', 1);
    await box.post('slack:T1:C6', 'C6', key, message('red'), 'acme/web:main:25');
    await box.drain();
    for (let i = 0; i < 20; i += 1) await box.notice('slack:T1:C6', 'C6', message(`chatter ${i}`));
    await box.drain();
    now += 2_000;
    await box.drain();
    expect(sent('conversations.history').map((c) => c.args.cursor)).toEqual([undefined, '15']);
    expect(slack.channelMessages('C6').filter((m) => m.text === 'red')).toHaveLength(1);
    expect(await store.get(key)).toBe(slack.channelMessages('C6')[0].ts);
  });

  it('waits out a rate-limited lookup rather than posting, then finds the post', async () => {
    const store = new MemoryStore({ now: clock });
    const box = outbox(store, 'one');
    const key = messageKey('acme/web:main:24', 'C5');
    slack.loseAnswer('chat.postMessage', 1);
    slack.rateLimit('conversations.history', 1, 30);
    await box.post('slack:T1:C5', 'C5', key, message('red'), 'acme/web:main:24');
    await box.drain();
    now += 2_000;
    await box.drain();
    now += 29_000;
    await box.drain();
    expect(await store.get(key)).toBeUndefined();
    now += 1_000;
    await box.drain();
    expect(slack.channelMessages('C5')).toHaveLength(1);
    expect(sent('chat.postMessage')).toHaveLength(1);
    expect(await store.get(key)).toBe(slack.channelMessages('C5')[0].ts);
  });
});

const report = redReport();
const subscription = (channel: string) => ({ subscriber: `slack:T1:${channel}`, project: 'acme/web', since: 0 });

/** The store as a replica sees it that dies the moment it would save a posted message's ts: nothing after that. */
function diesWhenSavingTheTs(store: StateStore): StateStore {
  let dead = false;
  return new Proxy(store, {
    get(target, name) {
      const member = Reflect.get(target, name, target);
      if (typeof member !== 'function') return member;
      return async (...args: unknown[]) => {
        if (!dead && name === 'set' && String(args[0]).startsWith('watch:msg:')) dead = true;
        if (dead) throw new Error('the replica died');
        return member.apply(target, args);
      };
    },
  });
}
