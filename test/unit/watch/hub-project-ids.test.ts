// Watches kept by the project's number, on the sandbox's clock: a project renamed while watched stays one watch and
// one red episode whose transitions say the new path; naming it by its old path, its new path or its number is the
// same watch; and watches written before numbers (keyed by path, as a running deployment left them) are moved to the
// number at the hub's first look, the open episode going on under the key it began with.
import { describe, expect, it } from 'vitest';
import type { TriageReport } from '../../../src/operations/composed/triage.js';
import { ManualClock } from '../../../src/sandbox/core/clock.js';
import { MemoryStore } from '../../../src/state/store.js';
import type { WatchEvent } from '../../../src/watch/branch-watch.js';
import type { WatchHub } from '../../../src/watch/hub.js';
import { callAnsweringYes } from '../../helpers/call-as-yes.js';
import { useSandbox } from '../../helpers/mcp.js';
import { operationsWithTriageAt, quietLog } from '../../helpers/watch.js';
import { sandboxWatchHub } from '../../helpers/watch-hub.js';

const clock = new ManualClock();
const env = useSandbox({ clock });
/** The registry with triage reading the sandbox's clock. */
const ops = operationsWithTriageAt(() => clock.now());
type Row = Record<string, unknown>;
const call = <T = Row>(name: string, input: Row): Promise<T> => callAnsweringYes<T>(env.client, name, input);

interface Told {
  subscriber: string;
  /** The path the subscription handed to the sink showed. */
  shown: string;
  event: WatchEvent;
}

function watchHub(store: MemoryStore, told: Told[], lines: string[] = []): WatchHub {
  const hub = sandboxWatchHub(env, clock, {
    store,
    operations: () => ops,
    log: { ...quietLog, info: (line) => lines.push(line), warn: (line) => lines.push(line) },
    holder: 'replica-1',
  });
  hub.addSink({
    prefix: 'test:',
    deliver: async (subscription, event) => {
      told.push({ subscriber: subscription.subscriber, shown: subscription.project, event });
    },
  });
  return hub;
}

/** Intervals of the watches' clock, each with a moment of real time for their checks, until `done` (at most 60). */
async function intervalsUntil(done: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 60; i++) {
    if (await done()) return;
    clock.advance(31_000);
    await new Promise((resolve) => setTimeout(resolve, 40));
  }
  throw new Error(`${what} did not happen within 60 intervals`);
}

/** Retries the branch's red head pipeline (a person pressing Retry); it fails again on the same commit. */
async function retryHead(project: string | number, report: TriageReport): Promise<void> {
  await call('retry_pipeline', { id: project, pipeline_id: report.head_pipeline!.id });
}

const projectNumber = async (path: string) => (await call<{ id: number }>('get_project', { id: path })).id;

describe('a watched project renamed', () => {
  it('stays one watch and one episode, its transitions say the new path, and every name of it is that watch', async () => {
    const store = new MemoryStore({ now: () => clock.now() });
    const told: Told[] = [];
    const lines: string[] = [];
    const hub = watchHub(store, told, lines);
    await hub.start();
    const id = await projectNumber('acme/web');
    const { report, episode } = await hub.subscribe({ subscriber: 'test:C1', project: 'acme/web' });
    expect(report.verdict).toBe('red');
    expect(episode).toBe(`${id}:main:${report.red_since!.first_red.pipeline}`);
    // The watch's own first check is over once it keeps the episode in its state.
    const opened = async () =>
      (await store.get<{ episode?: unknown }>(`watch:state:${id}:main`))?.episode !== undefined;
    await intervalsUntil(opened, "the watch's first check");
    try {
      // Renamed and moved out of its old path while watched (the service keeps the old path as a redirect).
      const renamed = await env.client.request<{ path_with_namespace: string }>({
        method: 'PUT',
        path: `/projects/${id}`,
        body: { path: 'web-app', name: 'Web App' },
        idempotent: false,
      });
      expect(renamed.data.path_with_namespace).toBe('acme/web-app');

      // The failed job retried: the watch, asked to look now, tells it running (the clock stands still meanwhile, so
      // the pipeline is still running when it looks), then still red; both under the new path.
      await retryHead(id, report);
      await hub.nudge(id);
      await expect.poll(() => told.some((t) => t.event.kind === 'running'), { timeout: 30_000 }).toBe(true);
      await intervalsUntil(() => told.some((t) => t.event.kind === 'still-red'), 'the still-red');
      const kinds = told.map((t) => t.event.kind);
      expect(kinds.filter((k) => k === 'red')).toHaveLength(1);
      expect(kinds).toContain('running');
      for (const t of told.filter((t) => t.event.kind !== 'red')) {
        expect(t.event.project, t.event.kind).toBe('acme/web-app');
        expect(t.shown, t.event.kind).toBe('acme/web-app');
        expect(t.event.projectId, t.event.kind).toBe(id);
        expect((t.event as { episode?: string }).episode, t.event.kind).toBe(episode);
      }
      expect(lines).toContain(`watch: acme/web is now acme/web-app (project ${id}); still one watch of it`);

      // Listed under the new path; one watch, one entry, one state, whatever it is called.
      expect((await hub.subscriptions('test:C1')).map((s) => [s.project, s.projectId])).toEqual([['acme/web-app', id]]);
      for (const name of ['acme/web', 'acme/web-app', String(id), 'ACME/Web/'])
        expect((await hub.subscribe({ subscriber: 'test:C1', project: name })).created, name).toBe(false);
      const second = await hub.subscribe({ subscriber: 'test:C2', project: 'acme/web' });
      expect(second).toMatchObject({ created: true, episode, subscription: { project: 'acme/web-app' } });
      expect(await store.keys('watch:entry:')).toEqual([`watch:entry:${id}`]);
      expect(await store.keys('watch:state:')).toEqual([`watch:state:${id}:main`]);
      expect(hub.size).toBe(1);
      // The second channel is told the same episode (its red), under the new path; the first hears nothing new.
      const reds = told.filter((t) => t.event.kind === 'red');
      expect(reds.map((t) => [t.subscriber, t.shown, (t.event as { episode: string }).episode])).toEqual([
        ['test:C1', 'acme/web', episode],
        ['test:C2', 'acme/web-app', episode],
      ]);

      // Unwatched by its old path, and by its number.
      expect(await hub.unsubscribe({ subscriber: 'test:C1', project: 'acme/web' })).toBe(true);
      expect(await hub.unsubscribe({ subscriber: 'test:C2', project: id })).toBe(true);
      expect(await store.keys('watch:entry:')).toEqual([]);
      expect(await store.keys('watch:name:')).toEqual([]);
    } finally {
      await env.client.request({
        method: 'PUT',
        path: `/projects/${id}`,
        body: { path: 'web', name: 'Web' },
        idempotent: false,
      });
      await hub.close();
    }
  }, 90_000);
});

describe('watches written before they were kept by number', () => {
  it('are moved to the number at the first look: listed, watched, the open episode going on in its old key', async () => {
    const store = new MemoryStore({ now: () => clock.now() });
    const path = 'acme/web';
    const id = await projectNumber(path);
    // The records a deployment from before left: keyed by the encoded path, the state by the path, the episode's
    // key starting with the path, what the watch saw and told.
    const report = await call<TriageReport>('triage_project', { id: path });
    const first = report.red_since!.first_red.pipeline;
    const [latest] = await call<Array<{ id: number; sha: string; status: string; updated_at: string }>>(
      'list_pipelines',
      { id: path, ref: 'main', per_page: 1 },
    );
    const seen = `${latest.id}@${latest.updated_at}`;
    const oldEpisode = `${path}:main:${first}`;
    await store.set('watch:epoch', clock.now());
    await store.set('watch:entry:acme%2Fweb', { project: path });
    await store.set('watch:subs:acme%2Fweb:test%3AC1', 1);
    await store.set('watch:sub:test%3AC1:acme%2Fweb', { subscriber: 'test:C1', project: path, by: 'alice', since: 5 });
    await store.set('watch:state:acme/web:main', {
      latest: { id: latest.id, sha: latest.sha, status: latest.status, updated_at: latest.updated_at },
      finished: seen,
      episode: { key: oldEpisode, firstRed: first, lastTold: seen, attempt: 0 },
    });
    await store.set(`watch:told:${oldEpisode}:red`, clock.now(), { ttlMs: 3600_000 });
    await store.set(`watch:told:${oldEpisode}:red:to:test%3AC1`, clock.now(), { ttlMs: 3600_000 });
    // And one of a project deleted since.
    await store.set('watch:entry:acme%2Fgone-since', { project: 'acme/gone-since' });
    await store.set('watch:subs:acme%2Fgone-since:test%3AC1', 1);
    await store.set('watch:sub:test%3AC1:acme%2Fgone-since', {
      subscriber: 'test:C1',
      project: 'acme/gone-since',
      since: 6,
    });

    const told: Told[] = [];
    const lines: string[] = [];
    const hub = watchHub(store, told, lines);
    await hub.start();
    try {
      expect(await hub.subscriptions('test:C1')).toEqual([
        { subscriber: 'test:C1', projectId: id, project: path, by: 'alice', since: 5 },
      ]);
      // Nothing of the watch is left under the path; what was told stays (the episode's records are found by its key).
      const kept = await store.keys('watch:');
      expect(kept.filter((key) => /^watch:(sub|subs|entry|state):/.test(key) && key.includes('acme'))).toEqual([]);
      expect(kept).toEqual(
        expect.arrayContaining([`watch:told:${oldEpisode}:red`, `watch:told:${oldEpisode}:red:to:test%3AC1`]),
      );
      expect(await store.keys('watch:entry:')).toEqual([`watch:entry:${id}`]);
      expect((await store.get<{ episode: { key: string } }>(`watch:state:${id}:main`))?.episode.key).toBe(oldEpisode);
      expect(lines).toContain(
        `watch: moved the watch of ${path} to project number ${id}: watches are kept by number, so a rename keeps them`,
      );
      // The deleted one is told gone, once, and forgotten.
      expect(told.map((t) => [t.event.kind, t.event.project])).toEqual([['gone', 'acme/gone-since']]);
      expect(hub.size).toBe(1);

      // Watched on: the red already told is not told again; the retry's still-red is told in the episode's old key.
      await retryHead(path, report);
      await hub.nudge(id);
      await intervalsUntil(() => told.some((t) => t.event.kind === 'still-red'), 'the still-red');
      expect(told.filter((t) => t.event.kind === 'red')).toEqual([]);
      expect(told.find((t) => t.event.kind === 'still-red')?.event).toMatchObject({
        episode: oldEpisode,
        projectId: id,
      });
      // A subscription made now joins that episode, by its number.
      expect(await hub.subscribe({ subscriber: 'test:C2', project: String(id) })).toMatchObject({
        created: true,
        episode: oldEpisode,
      });
      expect((await hub.subscribe({ subscriber: 'test:C1', project: path })).created).toBe(false);
    } finally {
      await hub.close();
    }
  }, 90_000);
});
