// Watching acme/web's main on the sandbox's clock: red at once (broken since bob's commit), one request per check
// while nothing changes, a retry that fails again told once as still red, a revert merged to main told as green
// with how long it was red and the commit that fixed it; two watchers on one store tell each transition once; the
// lease keeps a second watcher from polling until its holder stops renewing. A revert a red report names is followed
// (one more request a check, only while it is open) and its own pipeline failing is told.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/sandbox/core/clock.js';
import { MemoryStore } from '../../../src/state/store.js';
import { BranchWatch, type WatchEvent } from '../../../src/watch/branch-watch.js';
import { leaseKey } from '../../../src/watch/watch-lease.js';
import { useSandbox } from '../../helpers/mcp.js';
import { callAnsweringYes } from '../../helpers/call-as-yes.js';
import { operationsWithTriageAt } from '../../helpers/watch.js';
import { sandboxBranchWatch } from '../../helpers/watch-hub.js';

const clock = new ManualClock();
const env = useSandbox({ clock });
const PROJECT = 'acme/web';
const CULPRIT_TITLE = "Show order dates in the store's time zone";
type Row = Record<string, unknown>;

/** The registry with triage reading the sandbox's clock. */
const ops = operationsWithTriageAt(() => clock.now());

/** Runs an operation as a person who answers yes to any approval request. */
const call = <T = Row>(name: string, input: Row): Promise<T> => callAnsweringYes<T>(env.client, name, input);

/** A watch of acme/web on the sandbox's clock recording what it tells in `events`; `changes` set its other options. */
function watcher(
  store: MemoryStore,
  events: WatchEvent[],
  holder: string | undefined,
  changes: Partial<ConstructorParameters<typeof BranchWatch>[0]> = {},
) {
  return sandboxBranchWatch(env, clock, events, { store, operations: () => ops, holder, random: () => 0, ...changes });
}

/**
 * Checks once per second of the sandbox's clock until an event of `kind` is told (every watcher checks each second),
 * and that `matches`, when given.
 */
async function until(
  watches: BranchWatch[],
  events: WatchEvent[],
  kind: WatchEvent['kind'],
  matches: (event: WatchEvent) => boolean = () => true,
): Promise<void> {
  for (let second = 0; second < 300; second++) {
    for (const watch of watches) await watch.check();
    if (events.some((e) => e.kind === kind && matches(e))) return;
    clock.advance(1000);
  }
  throw new Error(`no ${kind} within 300 s of the sandbox's clock; told: ${events.map((e) => e.kind).join(', ')}`);
}

/** What one check asked the service, by path. */
async function askedBy(watch: BranchWatch): Promise<string[]> {
  const before = env.sandbox.requests.all().length;
  expect(await watch.check()).toBe('unchanged');
  return env.sandbox.requests
    .all()
    .slice(before)
    .map((r) => r.path);
}

describe('a watch on acme/web main', () => {
  it('tells red once when a replica takes over from one that died after telling, before saving what it saw', async () => {
    const store = new MemoryStore({ now: () => clock.now() });
    const events: WatchEvent[] = [];
    const dying = watcher(store, events, 'replica-1');
    const next = watcher(store, events, 'replica-2');
    await Promise.all([dying.check(), next.check()]);
    expect(events.map((e) => e.kind)).toEqual(['red']);
    dying.abandon();
    await store.delete('watch:state:acme/web:main');
    clock.advance(dying.leaseMs);
    expect(await next.check()).toBe('changed');
    expect(events.map((e) => e.kind)).toEqual(['red']);
  });

  it("follows a revert a red report names: its pipeline's failure told, one more request a check only while it is open", async () => {
    const store = new MemoryStore({ now: () => clock.now() });
    const events: WatchEvent[] = [];
    const watch = watcher(store, events, 'replica-1');
    await until([watch], events, 'red');
    const red = events[0] as Extract<WatchEvent, { kind: 'red' }>;
    const culprit = red.report.red_since!.first_red.sha;
    // A revert made by hand, keeping the time-zone line (its pipeline's test fails): no report named it yet, so it
    // costs nothing.
    await call('create_branch', { id: PROJECT, branch: 'undo-dates', ref: 'main' });
    const mr = await call<{ iid: number }>('create_merge_request', {
      id: PROJECT,
      source_branch: 'undo-dates',
      target_branch: 'main',
      title: 'Undo the date change',
      description: `This reverts commit ${culprit}.`,
    });
    expect(await askedBy(watch)).toEqual([expect.stringMatching(/\/pipelines$/)]);

    // A retry of main fails again: the still-red report names the revert, and the watch follows it from then on.
    await call('retry_pipeline', { id: PROJECT, pipeline_id: red.report.head_pipeline!.id });
    await until([watch], events, 'still-red');
    await call('create_commit', {
      id: PROJECT,
      branch: 'undo-dates',
      commit_message: 'Note why the dates change goes',
      actions: [{ action: 'create', file_path: 'notes/undo-dates.md', content: 'The date test broke.\n' }],
    });
    await until([watch], events, 'revert', (e) => e.kind === 'revert' && e.pipeline.status === 'failed');
    const failed = events.find((e) => e.kind === 'revert' && e.pipeline.status === 'failed') as Extract<
      WatchEvent,
      { kind: 'revert' }
    >;
    expect(failed).toMatchObject({ revert: { iid: mr.iid, reverts: culprit }, failedJob: { name: 'test' } });
    expect(await askedBy(watch)).toEqual([
      expect.stringMatching(/\/pipelines$/),
      expect.stringMatching(new RegExp(`/merge_requests/${mr.iid}$`)),
    ]);
    // Told once: checks that see the same failed pipeline tell nothing more.
    const told = events.length;
    clock.advance(1000);
    await watch.check();
    expect(events).toHaveLength(told);

    // Closed: read once more, then no more.
    await call('update_merge_request', { id: PROJECT, merge_request_iid: mr.iid, state_event: 'close' });
    clock.advance(1000);
    await watch.check();
    clock.advance(1000);
    expect(await askedBy(watch)).toEqual([expect.stringMatching(/\/pipelines$/)]);
    await watch.stop();
  });

  it('tells red, still red after a failed retry, then green after the revert is merged, each once across two watchers', async () => {
    const store = new MemoryStore({ now: () => clock.now() });
    const events: WatchEvent[] = [];
    const first = watcher(store, events, 'replica-1');
    const second = watcher(store, events, 'replica-2');

    expect(await first.check()).toBe('changed');
    expect(events.map((e) => e.kind)).toEqual(['red']);
    const red = events[0] as Extract<WatchEvent, { kind: 'red' }>;
    expect(red.report.failure?.kind).toBe('broken');
    expect(red.report.red_since?.first_red).toMatchObject({ title: CULPRIT_TITLE, author: 'Bob Chen' });
    expect(red.episode).toBe(`${PROJECT}:main:${red.report.red_since!.first_red.pipeline}`);

    // Nothing changed: one request a check, no triage; the second watcher does not poll while the first holds the lease.
    const before = env.sandbox.requests.all().length;
    expect(await first.check()).toBe('unchanged');
    expect(await second.check()).toBe('not-holder');
    const asked = env.sandbox.requests.all().slice(before);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ method: 'GET', path: expect.stringMatching(/\/pipelines$/) });

    // The retry fails again: one running update, one still-red, whichever watcher checks.
    const head = red.report.head_pipeline!;
    await call('retry_pipeline', { id: PROJECT, pipeline_id: head.id });
    await until([first, second], events, 'still-red');
    expect(events.map((e) => e.kind)).toEqual(['red', 'running', 'still-red']);

    // The revert merged to main: its pipeline runs and passes.
    const culprit = red.report.red_since!.first_red.sha;
    const made = await call<{ merge_request: { iid: number } }>('revert_as_merge_request', {
      id: PROJECT,
      sha: culprit.slice(0, 8),
    });
    await call('merge_merge_request', { id: PROJECT, merge_request_iid: made.merge_request.iid });
    await until([first, second], events, 'green');
    expect(events.map((e) => e.kind)).toEqual(['red', 'running', 'still-red', 'running', 'green']);
    const green = events.at(-1) as Extract<WatchEvent, { kind: 'green' }>;
    const [latest] = await call<Row[]>('list_pipelines', { id: PROJECT, ref: 'main', per_page: 1 });
    expect(latest.status).toBe('success');
    expect(green.fixedBy.sha).toBe(latest.sha);
    const fixing = await call<Row>('get_commit', { id: PROJECT, sha: latest.sha });
    expect(green.fixedBy.title).toBe(fixing.title);
    // The merge commit names the merge request, which reverts the culprit: said so, as Slack and the terminal say it.
    expect(green.fixedByMergeRequest).toMatchObject({ iid: made.merge_request.iid, reverts: culprit });
    expect(green.redForMs).toBe(
      Date.parse(String(latest.updated_at)) - Date.parse(red.report.red_since!.first_red.since!),
    );
    expect(green.redForMs).toBeGreaterThan(0);

    // Later checks tell nothing more.
    clock.advance(30_000);
    await first.check();
    await second.check();
    expect(events).toHaveLength(5);
  });
});

describe('the lease', () => {
  it('keeps a second watcher from polling while held, and passes to it once the holder stops renewing', async () => {
    const store = new MemoryStore({ now: () => clock.now() });
    const events: WatchEvent[] = [];
    const holder = watcher(store, events, 'replica-1');
    const other = watcher(store, events, 'replica-2');
    holder.start();
    other.start();
    // A first check triages the project (a dozen reads): on a loaded machine longer than poll's 1 s default.
    await expect.poll(() => events.length, { timeout: 15_000 }).toBe(1);
    expect(await store.get(leaseKey(PROJECT))).toBe('replica-1');
    // Renewed each interval: still held after several.
    for (let i = 0; i < 4; i++) {
      clock.advance(30_000);
      expect(await other.check()).toBe('not-holder');
      expect(await holder.check()).not.toBe('not-holder');
    }
    holder.abandon();
    clock.advance(holder.leaseMs - 1);
    expect(await other.check()).toBe('not-holder');
    clock.advance(1);
    expect(await other.check()).not.toBe('not-holder');
    expect(await store.get(leaseKey(PROJECT))).toBe('replica-2');
    // The state carried over: the red already told is not told again.
    expect(events.map((e) => e.kind)).toEqual([events[0].kind]);
    await other.stop();
    expect(await store.get(leaseKey(PROJECT))).toBeUndefined();
  });
});

describe('a takeover', () => {
  it("happens within two intervals of the dead holder's last renewal, the watches running on their own timers", async () => {
    const store = new MemoryStore({ now: () => clock.now() });
    let renewedAt = 0;
    const make = (holder: string, onCheck?: (result: string) => void) =>
      new BranchWatch({
        project: PROJECT,
        operations: () => ops,
        runContext: () => ({ client: env.client }),
        store,
        clock,
        holder,
        onEvent: () => undefined,
        random: () => 0.99,
        ...(onCheck ? { onCheck } : {}),
      });
    const holder = make('replica-1', (result) => {
      if (result !== 'not-holder') renewedAt = clock.now();
    });
    holder.start();
    await expect.poll(() => renewedAt, { timeout: 15_000 }).toBeGreaterThan(0);
    const other = make('replica-2');
    other.start();
    const interval = 30_000;
    // A few intervals pass, one second at a time, each moment given the time to run what it woke.
    const step = async () => {
      clock.advance(1000);
      await new Promise((resolve) => setTimeout(resolve, 15));
    };
    for (let second = 0; second < 95; second++) await step();
    expect(await store.get(leaseKey(PROJECT))).toBe('replica-1');
    // The holder dies just before its next check would renew the lease: the worst moment.
    const lastRenewal = renewedAt;
    const nextCheck = lastRenewal + interval * (1 + 0.1 * 0.99);
    while (clock.now() + 1000 < nextCheck) await step();
    holder.abandon();
    expect(renewedAt).toBe(lastRenewal);
    let takenAt: number | undefined;
    for (let second = 0; second < 120 && takenAt === undefined; second++) {
      await step();
      if ((await store.get(leaseKey(PROJECT))) === 'replica-2') takenAt = clock.now();
    }
    expect(takenAt).toBeDefined();
    expect(takenAt! - lastRenewal).toBeLessThanOrEqual(2 * interval);
    await other.stop();
  });
});

describe('bounds', () => {
  it('refuses a branch other than the default one, which triage does not judge', async () => {
    const store = new MemoryStore({ now: () => clock.now() });
    const watch = new BranchWatch({
      project: PROJECT,
      ref: 'feature',
      operations: () => ops,
      runContext: () => ({ client: env.client }),
      store,
      clock,
      onEvent: () => undefined,
    });
    await expect(watch.check()).rejects.toThrow(/only the default branch \(main\) of acme\/web can be watched/);
  });
});

describe('cost', () => {
  it('asks the service once per interval, the interval plus its jitter, while nothing changes', async () => {
    const store = new MemoryStore({ now: () => clock.now() });
    const events: WatchEvent[] = [];
    const watch = watcher(store, events, undefined, { intervalMs: 30_000, random: () => 0.5 });
    watch.start();
    // A first check triages the project (a dozen reads): on a loaded machine longer than poll's 1 s default.
    await expect.poll(() => events.length, { timeout: 15_000 }).toBe(1);
    const start = env.sandbox.requests.all().length;
    const asked = () => env.sandbox.requests.all().slice(start);
    // 30 s and half the 10 % jitter: 31.5 s between checks.
    for (let interval = 1; interval <= 5; interval++) {
      clock.advance(31_499);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(asked()).toHaveLength(interval - 1);
      clock.advance(1);
      await expect.poll(() => asked().length, { timeout: 15_000 }).toBe(interval);
    }
    expect(asked().every((r) => r.method === 'GET' && r.path.endsWith('/pipelines'))).toBe(true);
    expect(events).toHaveLength(1);
    await watch.stop();
  });
});
