// Two replicas on one real Redis, each with its incident sink and outbox: told the same red at once (a takeover, a
// subscription while red), and draining at the same moment, they post the episode's message once, and its update
// and thread reply once each.
import { describe, expect, it } from 'vitest';
import { Identities } from '../../../src/slack/identity.js';
import { Outbox } from '../../../src/slack/incident/outbox.js';
import { IncidentMessages, messageKey } from '../../../src/slack/incident/sink.js';
import { renderTimeline } from '../../../src/slack/incident/render.js';
import type { WatchEvent } from '../../../src/watch/branch-watch.js';
import { useRedis } from '../../helpers/redis.js';
import { quietLog } from '../../helpers/watch.js';
import { redReport } from '../../helpers/incident-bot.js';

const redis = useRedis();

const report = redReport();
const EPISODE = 'acme/web:main:10';
const subscription = { subscriber: 'slack:T1:C1', project: 'acme/web', since: 0 };

describe('the incident outbox on Redis', () => {
  it('posts, updates and replies once though two replicas are told and drain at the same time', async () => {
    const sent: Array<{ method: string; text: unknown; ts?: unknown }> = [];
    // A Slack that takes a moment to answer, so both replicas are at work together.
    const slow = () => new Promise((resolve) => setTimeout(resolve, 30));
    const replica = async (name: string) => {
      const store = await redis.open('outbox-test:');
      const outbox = new Outbox({
        store,
        log: quietLog,
        holder: name,
        slack: {
          postMessage: async (args) => {
            await slow();
            sent.push({ method: 'post', text: args.text, ts: args.thread_ts });
            return { ts: '100' };
          },
          update: async (args) => {
            await slow();
            sent.push({ method: 'update', text: args.text, ts: args.ts });
            return {};
          },
          // Every post is answered here, so none is ever looked for.
          history: async () => ({ messages: [] }),
        },
      });
      return {
        store,
        outbox,
        incidents: new IncidentMessages({ store, outbox, identities: new Identities({ store }), log: quietLog }),
      };
    };
    const [one, two] = [await replica('one'), await replica('two')];
    const redEvent: WatchEvent = { kind: 'red', project: 'acme/web', ref: 'main', episode: EPISODE, report };
    await Promise.all([one.incidents.deliver(subscription, redEvent), two.incidents.deliver(subscription, redEvent)]);
    await Promise.all([one.outbox.drain(), two.outbox.drain()]);
    expect(sent).toEqual([{ method: 'post', text: 'acme/web main is red', ts: undefined }]);
    expect(await one.store.get(messageKey(EPISODE, 'C1'))).toBe('100');

    await one.incidents.deliver(subscription, {
      kind: 'running',
      project: 'acme/web',
      ref: 'main',
      episode: EPISODE,
      pipeline: { id: 12, sha: 'cafe0000', status: 'running' },
    });
    await two.incidents.timeline(
      { subscriber: 'slack:T1:C1', messageKey: messageKey(EPISODE, 'C1'), label: 'Retry failed jobs' },
      renderTimeline({ user: 'U1', did: 'pressed', label: 'Retry failed jobs', outcome: 'Retried pipeline #12' }),
    );
    await Promise.all([one.outbox.drain(), two.outbox.drain(), one.outbox.drain()]);
    expect(sent.slice(1).sort((a, b) => a.method.localeCompare(b.method))).toEqual([
      { method: 'post', text: '<@U1> pressed *Retry failed jobs* → Retried pipeline #12', ts: '100' },
      { method: 'update', text: 'acme/web main is red', ts: '100' },
    ]);
    expect(await one.outbox.size()).toBe(0);
  });
});
