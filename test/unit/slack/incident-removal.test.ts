// A channel the bot was removed from, through the real watch hub on the sandbox: its incident message is refused
// (not_in_channel), so its watch ends and the log says why once; another channel watching the same project keeps
// its watch and gets its message.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webApi } from '@slack/bolt';
import { ManualClock } from '../../../src/sandbox/core/clock.js';
import { Identities } from '../../../src/slack/identity.js';
import { Outbox, outboxSlackOf } from '../../../src/slack/incident/outbox.js';
import { IncidentMessages } from '../../../src/slack/incident/sink.js';
import { MemoryStore } from '../../../src/state/store.js';
import { useSandbox } from '../../helpers/mcp.js';
import { startFakeSlack, type FakeSlack } from '../../helpers/slack.js';
import { operationsWithTriageAt, warningsLog } from '../../helpers/watch.js';
import { sandboxWatchHub } from '../../helpers/watch-hub.js';

const clock = new ManualClock();
const env = useSandbox({ clock });
/** The registry with triage reading the sandbox's clock. */
const ops = operationsWithTriageAt(() => clock.now());
let slack: FakeSlack;

beforeAll(async () => {
  slack = await startFakeSlack();
});
afterAll(async () => {
  await slack?.close();
});

describe('a channel the bot was removed from', () => {
  it("stops watching there, says why in the log once, and leaves the other channel's watch alone", async () => {
    const { log, warnings } = warningsLog();
    const store = new MemoryStore({ now: () => clock.now() });
    const web = new webApi.WebClient('xoxb-test', {
      slackApiUrl: `${slack.apiUrl}/`,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
    });
    let incidents: IncidentMessages | undefined;
    const outbox = new Outbox({
      store,
      log,
      now: () => clock.now(),
      slack: outboxSlackOf(web),
      onChannelGone: (subscriber, reason) => incidents!.channelGone(subscriber, reason),
    });
    incidents = new IncidentMessages({
      store,
      outbox,
      identities: new Identities({ store }),
      log,
      now: () => clock.now(),
    });
    const hub = sandboxWatchHub(env, clock, { store, operations: () => ops, log });
    hub.addSink(incidents);
    incidents.attach(hub);
    await hub.start();
    slack.refuse('chat.postMessage', 'C9', 'not_in_channel');

    await hub.subscribe({ subscriber: 'slack:T1:C9', project: 'acme/web', by: '@ana' });
    await hub.subscribe({ subscriber: 'slack:T1:C9', project: 'acme/platform/infra', by: '@ana' });
    await hub.subscribe({ subscriber: 'slack:T1:C1', project: 'acme/web', by: '@bea' });
    await outbox.drain();

    expect(await hub.subscriptions('slack:T1:C9')).toEqual([]);
    expect((await hub.subscriptions('slack:T1:C1')).map((s) => s.project)).toEqual(['acme/web']);
    const posts = slack.calls.filter((c) => c.method === 'chat.postMessage');
    expect(posts.map((c) => [c.args.channel, c.answer?.ok])).toEqual([
      ['C9', false],
      ['C1', true],
    ]);
    expect(warnings.filter((w) => w.includes('not_in_channel'))).toEqual([
      'slack: Slack answered not_in_channel for C9: stopped watching acme/web, acme/platform/infra there',
    ]);
    await hub.close();
  });
});
