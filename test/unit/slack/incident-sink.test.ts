// The incident messages as the watch hub's Slack sink: one post per (episode, channel) however often red is told,
// later transitions as updates of that message, buttons stored as follow-ups bound to the channel and the thread,
// Mute for an hour, and a channel the bot was removed from losing its watches (said in the log once).
import { describe, expect, it } from 'vitest';
import type { TriageReport } from '../../../src/operations/composed/triage.js';
import { Identities } from '../../../src/slack/identity.js';
import { Outbox } from '../../../src/slack/incident/outbox.js';
import { IncidentMessages, messageKey } from '../../../src/slack/incident/sink.js';
import { Sealer } from '../../../src/slack/sealed.js';
import { MemoryStore } from '../../../src/state/store.js';
import { rollbackJobKey, type WatchEvent } from '../../../src/watch/branch-watch.js';
import type { WatchHub } from '../../../src/watch/hub.js';
import type { Subscription } from '../../../src/watch/hub-records.js';
import { redReport } from '../../helpers/incident-bot.js';
import { deploymentEvent } from '../../helpers/deployment-events.js';
import { recordingSlack } from '../../helpers/incident-bot.js';

const EPISODE = 'acme/web:main:10';

function report(kind: 'broken' | 'flaky' = 'broken'): TriageReport {
  return redReport({
    because: 'pipeline #12 failed',
    red_since: {
      first_red: { pipeline: 10, sha: 'eb4870be0123', title: 'Show order dates', author: 'Bob Chen' },
      last_green: { pipeline: 9, sha: 'aaaa' },
      suspects: [],
      more_suspects: false,
      ping: [],
    },
    failure: { kind, evidence: `test ${kind}`, jobs: [] },
    failed_jobs: [{ id: 45, name: 'test', stage: 'test' }],
  });
}

function setup() {
  let now = Date.parse('2026-11-27T10:30:00Z');
  const store = new MemoryStore({ now: () => now });
  const { slack, calls } = recordingSlack();
  const logged: string[] = [];
  const log = { error: () => {}, warn: (m: string) => logged.push(m), info: () => {}, debug: () => {} };
  const outbox = new Outbox({ store, log, now: () => now, slack });
  const identities = new Identities({ store, sealer: new Sealer('k'.repeat(40)) });
  const incidents = new IncidentMessages({ store, outbox, identities, log, now: () => now });
  const unsubscribed: string[] = [];
  const subscriptions = new Map<string, Subscription[]>();
  incidents.attach({
    subscriptions: async (subscriber: string) => subscriptions.get(subscriber) ?? [],
    unsubscribe: async (s: { subscriber: string; project: string }) => {
      unsubscribed.push(`${s.subscriber} ${s.project}`);
      return true;
    },
  } as unknown as WatchHub);
  return {
    store,
    outbox,
    incidents,
    calls,
    logged,
    unsubscribed,
    subscriptions,
    identities,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

const sub = (channel: string): Subscription => ({ subscriber: `slack:T1:${channel}`, project: 'acme/web', since: 0 });
const red = (episode = EPISODE, kind: 'broken' | 'flaky' = 'broken'): WatchEvent => ({
  kind: 'red',
  project: 'acme/web',
  ref: 'main',
  episode,
  report: report(kind),
});
/** The next check of the same episode: main is still red. */
const stillRedAgain = (): WatchEvent => ({
  kind: 'still-red',
  project: 'acme/web',
  ref: 'main',
  episode: EPISODE,
  report: report(),
});
const labels = (args: Record<string, unknown>) =>
  (args.blocks as Array<{ type: string; elements?: Array<{ text: { text: string }; value: string }> }>)
    .filter((b) => b.type === 'actions')
    .flatMap((b) => b.elements!);

describe('incident messages', () => {
  it('posts one message per episode and channel, however often red is told', async () => {
    const { incidents, outbox, calls } = setup();
    await incidents.deliver(sub('C1'), red());
    await incidents.deliver(sub('C1'), red());
    await incidents.deliver(sub('C2'), red());
    await outbox.drain();
    await incidents.deliver(sub('C1'), red());
    await outbox.drain();
    expect(calls.map((c) => [c.method, c.args.channel])).toEqual([
      ['post', 'C1'],
      ['post', 'C2'],
    ]);
  });

  it('updates that message on running, still red and green; green takes the buttons away', async () => {
    const { incidents, outbox, calls, store } = setup();
    await incidents.deliver(sub('C1'), red());
    await incidents.deliver(sub('C1'), {
      kind: 'running',
      project: 'acme/web',
      ref: 'main',
      episode: EPISODE,
      pipeline: { id: 12, sha: 'cafebabe0000', status: 'running' },
    });
    await outbox.drain();
    await incidents.deliver(sub('C1'), stillRedAgain());
    await outbox.drain();
    await incidents.deliver(sub('C1'), {
      kind: 'green',
      project: 'acme/web',
      ref: 'main',
      episode: EPISODE,
      redForMs: 420_000,
      fixedBy: { sha: 'f00d0000' },
      report: report(),
    });
    // An episode this channel has no message of changes nothing.
    await incidents.deliver(sub('C1'), {
      kind: 'green',
      project: 'acme/web',
      ref: 'main',
      episode: 'acme/web:main:99',
      redForMs: 1,
      fixedBy: { sha: 'f00d0000' },
      report: report(),
    });
    await outbox.drain();
    expect(await store.get(messageKey(EPISODE, 'C1'))).toBe('100');
    expect(calls.map((c) => [c.method, c.args.ts])).toEqual([
      ['post', undefined],
      ['update', '100'],
      ['update', '100'],
      ['update', '100'],
    ]);
    const [, running, stillRed, green] = calls.map((c) => JSON.stringify(c.args.blocks));
    expect(running).toContain('retrying… pipeline #12');
    expect(labels(calls[1].args).map((b) => b.text.text)).not.toContain('Retry failed jobs');
    expect(stillRed).toContain('still red after the retry: broken, not flaky');
    expect(labels(calls[2].args).map((b) => b.text.text)).toContain('Retry failed jobs');
    // One Mute reference per message, however often it is updated.
    const mute = (i: number) => labels(calls[i].args).find((b) => b.text.text === 'Mute for an hour')!.value;
    expect(mute(1)).toBe(mute(0));
    expect(mute(2)).toBe(mute(0));
    expect(green).toContain('green again after 7 min');
    expect(labels(calls[3].args)).toEqual([]);
  });

  it("says the open revert's own pipeline failed, in place and in the thread, offering its retry and log; passed, its merge", async () => {
    const { incidents, outbox, calls } = setup();
    const open = {
      iid: 6,
      title: 'Revert "Show order dates"',
      source_branch: 'revert-eb4870be',
      sha: 'abcd1234',
      matched_by: 'branch' as const,
      pipeline: { id: 23, status: 'running' },
      merge_when_pipeline_succeeds: false,
    };
    await incidents.deliver(sub('C1'), { ...red(), report: { ...report(), open_reverts: [open] } } as WatchEvent);
    await outbox.drain();
    const revert = (status: string, iid = 6): WatchEvent => ({
      kind: 'revert',
      project: 'acme/web',
      ref: 'main',
      episode: EPISODE,
      revert: { iid, source_branch: open.source_branch, sha: 'abcd5678', reverts: 'eb4870be0123' },
      pipeline: { id: 23, status },
      ...(status === 'failed' ? { failedJob: { id: 77, name: 'test' } } : {}),
    });
    // Another merge request's pipeline is not this message's.
    await incidents.deliver(sub('C1'), revert('failed', 7));
    await outbox.drain();
    expect(calls).toHaveLength(1);

    await incidents.deliver(sub('C1'), revert('failed'));
    await outbox.drain();
    const [, failed, failedLine] = calls;
    expect(failed.method).toBe('update');
    expect(JSON.stringify(failed.args.blocks)).toContain("!6's pipeline #23 failed at test");
    const offered = labels(failed.args).map((b) => b.text.text);
    expect(offered[0]).toBe('Retry pipeline #23 of !6');
    expect(offered).toContain("Show !6's log");
    expect(offered).not.toContain('Merge when green');
    expect(failedLine.args.thread_ts).toBe('100');
    expect(failedLine.args.text).toBe(":x: !6's pipeline #23 failed at test");

    await incidents.deliver(sub('C1'), revert('success'));
    await outbox.drain();
    const [passed, passedLine] = calls.slice(3);
    expect(JSON.stringify(passed.args.blocks)).toContain('open: pipeline #23 success');
    expect(labels(passed.args).map((b) => b.text.text)).toEqual(expect.arrayContaining(['Merge when green']));
    expect(labels(passed.args).map((b) => b.text.text)).not.toContain("Show !6's log");
    expect(passedLine.args.text).toBe(":white_check_mark: !6's pipeline #23 passed");
  });

  it('follows a rollback pressed on the message: the watch reads its deployment, and the thread hears how it ended', async () => {
    const { incidents, outbox, calls, store } = setup();
    await incidents.deliver(sub('C1'), red());
    await outbox.drain();
    const incident = {
      subscriber: 'slack:T1:C1',
      messageKey: messageKey(EPISODE, 'C1'),
      label: 'Roll back production',
    };
    const rolled = (job: number) =>
      incidents.acted(incident, {
        operation: 'rollback_environment',
        input: { id: 'acme/web', environment: 1, to: 4, current_deployment_id: 19 },
        data: {
          environment: { id: 1, name: 'production' },
          to: { id: 4, sha: 'eff0067012345678', ref: 'v1.1.0' },
          job: { id: job, name: 'deploy:production', status: 'manual' },
        },
      });
    await rolled(74);
    await rolled(75);
    // The watch of the episode follows the newest rollback's job until its deployment ends.
    expect(await store.get(rollbackJobKey(EPISODE))).toBe(75);
    const ended = (job: number, status: string): WatchEvent => ({
      kind: 'deployment',
      project: 'acme/web',
      ref: 'main',
      deployment: {
        id: job - 54,
        status,
        sha: 'eff0067012345678',
        ref: 'v1.1.0',
        environment: 'production',
        user: 'alice',
        job: { id: job, name: 'deploy:production' },
        pending_approval_count: 0,
        approvals: [],
        updated_at: '2026-11-27T10:40:00Z',
      },
    });
    // Another deployment's end, and one still running, say nothing in the thread.
    await incidents.deliver(sub('C1'), ended(80, 'success'));
    await incidents.deliver(sub('C1'), ended(74, 'running'));
    await outbox.drain();
    const thread = () => calls.filter((c) => c.args.thread_ts === '100').map((c) => c.args.text);
    expect(thread()).toEqual([]);
    await incidents.deliver(sub('C1'), ended(74, 'failed'));
    await incidents.deliver(sub('C1'), ended(75, 'success'));
    await incidents.deliver(sub('C1'), ended(75, 'success'));
    await outbox.drain();
    expect(thread()).toEqual([
      ':warning: production was not rolled back to v1.1.0 (eff00670): deployment #20 is failed',
      ':rewind: production rolled back to v1.1.0 (eff00670) by @alice',
    ]);
  });

  it("stores each button as a follow-up bound to the channel and the message's thread; Revert only when broken", async () => {
    const { incidents, outbox, calls, store } = setup();
    await incidents.deliver(sub('C1'), red());
    await incidents.deliver(sub('C2'), red('acme/web:main:11', 'flaky'));
    await outbox.drain();
    const [broken, flaky] = calls.map((c) => labels(c.args));
    expect(broken.map((b) => b.text.text)).toEqual([
      'Retry failed jobs',
      'Revert eb4870be as a merge request',
      'Open an incident issue',
      'Show the log',
      'Mute for an hour',
    ]);
    expect(flaky.map((b) => b.text.text)).toEqual([
      'Retry failed jobs',
      'Open an incident issue',
      'Show the log',
      'Mute for an hour',
    ]);
    expect(await store.get(`followup:${broken[0].value}`)).toEqual({
      operation: 'retry_pipeline',
      input: { id: 'acme/web', pipeline_id: 12 },
      place: 'C1',
      incident: { subscriber: 'slack:T1:C1', messageKey: messageKey(EPISODE, 'C1'), label: 'Retry failed jobs' },
      premise: { kind: 'retry', project: 'acme/web', ref: 'main', pipeline_id: 12 },
    });
    expect(await store.get(`followup:${broken[3].value}`)).toMatchObject({
      operation: 'get_job_log',
      input: { id: 'acme/web', job_id: 45, lines: 50 },
    });
  });

  it("names the culprit's author by mention once they linked their account", async () => {
    const { incidents, outbox, calls, identities } = setup();
    await identities.link({ teamId: 'T1', userId: 'U2' }, 'token', { username: 'bob', name: 'Bob Chen' });
    await incidents.deliver(sub('C1'), red());
    await outbox.drain();
    expect(JSON.stringify(calls[0].args.blocks)).toContain('by <@U2>');
    await identities.unlink({ teamId: 'T1', userId: 'U2' });
    expect(await identities.slackUserOf('T1', 'bob chen')).toBeUndefined();
  });

  it('mutes new messages for the project in that channel for an hour; the message already there still updates', async () => {
    const { incidents, outbox, calls, advance } = setup();
    await incidents.deliver(sub('C1'), red());
    await outbox.drain();
    const mute = labels(calls[0].args).find((b) => b.text.text === 'Mute for an hour')!;
    expect(await incidents.mute('U3', 'C2', mute.value)).toMatch(/no longer works/);
    expect(await incidents.mute('U3', 'C1', mute.value)).toMatch(
      /^Muted: no new incident or deployment message for acme\/web in this channel for an hour/,
    );
    await incidents.deliver(sub('C1'), red('acme/web:main:20'));
    await incidents.deliver(sub('C1'), stillRedAgain());
    await outbox.drain();
    expect(calls.map((c) => [c.method, c.args.thread_ts ?? c.args.ts])).toEqual([
      ['post', undefined],
      ['post', '100'],
      ['update', '100'],
    ]);
    expect(JSON.stringify(calls[1].args.blocks)).toContain('<@U3> pressed Mute for an hour');
    advance(3600_000);
    await incidents.deliver(sub('C1'), red('acme/web:main:21'));
    await outbox.drain();
    expect(calls.filter((c) => c.method === 'post' && c.args.thread_ts === undefined)).toHaveLength(2);
  });

  it('mutes new deployment messages for the project in that channel too; one already there still follows its deployment', async () => {
    const { incidents, outbox, calls, advance } = setup();
    const deployment = (id: number, status: string) => deploymentEvent(id, status, 'eff0067012345678');
    const posted = () => calls.filter((c) => c.method === 'post' && c.args.thread_ts === undefined);
    // Deployment #1 waits before the mute: its message is there. The incident message's Mute is then pressed.
    await incidents.deliver(sub('C1'), deployment(1, 'blocked'));
    await incidents.deliver(sub('C1'), { ...red(), projectId: 7 });
    await outbox.drain();
    expect(posted()).toHaveLength(2);
    const mute = labels(posted()[1].args).find((b) => b.text.text === 'Mute for an hour')!;
    expect(await incidents.mute('U3', 'C1', mute.value)).toMatch(/^Muted: no new incident or deployment message/);
    // Muted: deployment #2 waiting and #3 failing post nothing in C1 (C2 is not muted); #1's message follows it still.
    await incidents.deliver(sub('C1'), deployment(2, 'blocked'));
    await incidents.deliver(sub('C1'), deployment(3, 'failed'));
    await incidents.deliver(sub('C2'), deployment(2, 'blocked'));
    await incidents.deliver(sub('C1'), deployment(1, 'success'));
    await outbox.drain();
    expect(posted().map((c) => [c.args.channel, /Deployment #(\d+)/.exec(String(c.args.text))?.[1]])).toEqual([
      ['C1', '1'],
      ['C1', undefined],
      ['C2', '2'],
    ]);
    expect(calls.filter((c) => c.method === 'update').map((c) => String(c.args.text))).toEqual([
      expect.stringMatching(/Deployment #1 .* deployed/),
    ]);
    // An hour later the mute is over: #3, told again (it failed), gets its message.
    advance(3600_000);
    await incidents.deliver(sub('C1'), deployment(3, 'failed'));
    await outbox.drain();
    expect(posted().map((c) => /Deployment #(\d+)/.exec(String(c.args.text))?.[1])).toEqual(['1', undefined, '2', '3']);
  });

  it('tells the channel once, in a message of its own, that a project can no longer be read', async () => {
    const { incidents, outbox, calls } = setup();
    await incidents.deliver(sub('C1'), {
      kind: 'gone',
      project: 'acme/web',
      ref: 'main',
      reason: '404 Project Not Found',
    });
    await outbox.drain();
    expect(calls.map((c) => [c.method, c.args.channel, c.args.text])).toEqual([
      ['post', 'C1', 'stopped watching acme/web main: it can no longer be read (404 Project Not Found)'],
    ]);
  });

  it('stops the watches of a channel the bot was removed from, and says so in the log once', async () => {
    const { incidents, unsubscribed, subscriptions, logged } = setup();
    subscriptions.set('slack:T1:C9', [sub('C9'), { ...sub('C9'), project: 'acme/api' }]);
    await incidents.channelGone('slack:T1:C9', 'not_in_channel');
    subscriptions.delete('slack:T1:C9');
    await incidents.channelGone('slack:T1:C9', 'not_in_channel');
    expect(unsubscribed).toEqual(['slack:T1:C9 acme/web', 'slack:T1:C9 acme/api']);
    expect(logged).toEqual(['slack: Slack answered not_in_channel for C9: stopped watching acme/web, acme/api there']);
  });
});
