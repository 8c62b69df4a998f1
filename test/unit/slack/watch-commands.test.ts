// `/forge watch`, `unwatch` and `watching` as words: usage, the channel's default project, the asker's own read
// before anything is kept, the hub's refusals in its words, and what the answer says about the incident message.
import { describe, expect, it } from 'vitest';
import type { TriageReport } from '../../../src/operations/composed/triage.js';
import { Identities } from '../../../src/slack/identity.js';
import { watchCommand, type WatchCommandContext } from '../../../src/slack/incident/commands.js';
import { Outbox } from '../../../src/slack/incident/outbox.js';
import { IncidentMessages } from '../../../src/slack/incident/sink.js';
import { MemoryStore } from '../../../src/state/store.js';
import { WatchRefusedError } from '../../../src/watch/branch-watch.js';
import type { WatchHub } from '../../../src/watch/hub.js';
import type { Subscription } from '../../../src/watch/hub-records.js';
import { quietLog } from '../../helpers/watch.js';
import { redReport } from '../../helpers/incident-bot.js';

const NOW = Date.parse('2026-11-27T10:30:00Z');

const red = (project: string): TriageReport => redReport({ project });

function setup(options: { refuse?: string; verdict?: 'red' | 'green' } = {}) {
  let now = NOW;
  const store = new MemoryStore({ now: () => now });
  const outbox = new Outbox({
    store,
    log: quietLog,
    now: () => now,
    slack: {
      postMessage: async () => ({ ts: '1' }),
      update: async () => ({}),
      history: async () => ({ messages: [] }),
    },
  });
  const incidents = new IncidentMessages({
    store,
    outbox,
    identities: new Identities({ store }),
    log: quietLog,
    now: () => now,
  });
  const subs = new Map<string, Subscription>();
  const asked: string[] = [];
  /** The projects' numbers, as the service would give them. */
  const numbers = new Map([
    ['acme/web', 1],
    ['acme/api', 2],
  ]);
  const hub = {
    async subscribe(request: Omit<Subscription, 'since' | 'projectId'>) {
      asked.push(request.project);
      if (options.refuse) throw new WatchRefusedError(options.refuse);
      const projectId = numbers.get(request.project) ?? 99;
      const existing = subs.get(request.project);
      if (!existing) subs.set(request.project, { ...request, projectId, since: now });
      const subscription = subs.get(request.project)!;
      const report =
        options.verdict === 'green'
          ? { ...red(request.project), verdict: 'green' as const, red_since: undefined }
          : red(request.project);
      const episode = report.verdict === 'red' ? `${projectId}:main:10` : undefined;
      if (episode)
        await incidents.deliver(subscription, {
          kind: 'red',
          project: request.project,
          projectId,
          ref: 'main',
          episode,
          report,
        });
      return { created: !existing, report, subscription, ...(episode ? { episode } : {}) };
    },
    async unsubscribe(request: { project: string | number }) {
      const found = [...subs.values()].find((s) => s.projectId === request.project || s.project === request.project);
      return found ? subs.delete(found.project) : false;
    },
    async subscriptions() {
      return [...subs.values()];
    },
    async find(_subscriber: string, named: string) {
      return [...subs.values()].find((s) => s.project.toLowerCase() === named.toLowerCase());
    },
  } as unknown as WatchHub;
  const ctx = (over: Partial<WatchCommandContext> = {}): WatchCommandContext => ({
    hub,
    incidents,
    teamId: 'T1',
    channel: 'C1',
    by: '@ana',
    now: () => now,
    readProject: async (project) => ({ ok: true, path: project.toLowerCase() }),
    defaultProject: async () => undefined,
    projectOf: (word) => word,
    ...over,
  });
  return {
    ctx,
    asked,
    incidents,
    store,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('watch commands', () => {
  it('watches a red project and says its message comes below; again, that it is above', async () => {
    const { ctx, advance } = setup();
    expect(await watchCommand(['watch', 'Acme/Web'], ctx())).toEqual({
      text: 'Watching acme/web main in this channel: it is red now (message below).',
      ok: true,
      inChannel: true,
    });
    advance(60_000);
    expect((await watchCommand(['watch', 'acme/web'], ctx())).text).toBe(
      'Already watching acme/web main in this channel: it is red now (its message is above).',
    );
  });

  it("says green, and uses the channel's default project when none is named", async () => {
    const { ctx } = setup({ verdict: 'green' });
    expect((await watchCommand(['watch'], ctx())).text).toBe(
      'Name a project. Usage: `/forge watch <project> [branch]`, `/forge unwatch <project>`, `/forge watching`.',
    );
    expect((await watchCommand(['watch'], ctx({ defaultProject: async () => 'acme/api' }))).text).toBe(
      'Watching acme/api main in this channel: it is green now.',
    );
  });

  it("refuses a project the asker cannot read before the hub keeps anything, and says the hub's refusal in its words", async () => {
    const { ctx, asked } = setup();
    const refused = await watchCommand(
      ['watch', 'acme/secret'],
      ctx({ readProject: async () => ({ ok: false, why: '404 Project Not Found' }) }),
    );
    expect(refused).toEqual({
      text: 'Not watching acme/secret: you cannot read it (404 Project Not Found).',
      ok: false,
      inChannel: false,
    });
    expect(asked).toEqual([]);
    const capped = setup({ refuse: 'this channel watches its maximum of 10 branches; unwatch one first' });
    expect((await watchCommand(['watch', 'acme/web'], capped.ctx())).text).toBe(
      'Not watching acme/web: this channel watches its maximum of 10 branches; unwatch one first.',
    );
  });

  it('says a muted project has no message, muted by its number or (a mute from before numbers) by its path', async () => {
    for (const key of ['watch:mute:C1:1', 'watch:mute:C1:acme%2Fweb']) {
      const { ctx, store } = setup();
      await store.set(key, NOW + 1800_000);
      expect((await watchCommand(['watch', 'acme/web'], ctx())).text, key).toBe(
        'Watching acme/web main in this channel: it is red now (muted here until 11:00 UTC: no message).',
      );
    }
    // Another project's mute is not this one's.
    const { ctx, store } = setup();
    await store.set('watch:mute:C1:2', NOW + 1800_000);
    expect((await watchCommand(['watch', 'acme/web'], ctx())).text).toBe(
      'Watching acme/web main in this channel: it is red now (message below).',
    );
  });

  it("lists the channel's watches, stops one named in any case, and says when nothing was watched", async () => {
    const { ctx } = setup({ verdict: 'green' });
    expect((await watchCommand(['watching'], ctx())).text).toBe(
      'This channel watches nothing. `/forge watch <project>` starts.',
    );
    await watchCommand(['watch', 'acme/web'], ctx());
    expect((await watchCommand(['watching'], ctx())).text).toBe(
      'This channel watches:\n• acme/web (default branch), since 10:30 UTC, by @ana',
    );
    expect(await watchCommand(['unwatch', 'ACME/WEB'], ctx())).toEqual({
      text: 'Stopped watching acme/web in this channel (watched since 10:30 UTC, by @ana).',
      ok: true,
      inChannel: true,
    });
    expect((await watchCommand(['unwatch', 'acme/web'], ctx())).text).toBe(
      'This channel was not watching acme/web; nothing changed.',
    );
    for (const words of [['watching', 'x'], ['unwatch'], ['watch', 'a', 'b', 'c']])
      expect((await watchCommand(words, ctx())).ok).toBe(false);
  });
});
