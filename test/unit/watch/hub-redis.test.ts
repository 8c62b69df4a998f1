// Two watch hubs (replicas) on one real Redis, watching acme/web for a subscriber each, with recording sinks: Redis
// stopped and started again pauses watching (nothing asked of the service, one warning, /readyz saying so) and it
// resumes alone, telling what happened meanwhile once; the lease holder dying mid-episode, the other replica takes
// over and tells the next transition once.
import { afterAll, describe, expect, it } from 'vitest';
import { ReadinessProbe, watchCheck } from '../../../src/health.js';
import type { ApiTransport } from '../../../src/http/types.js';
import type { Logger } from '../../../src/log.js';
import type { TriageReport } from '../../../src/operations/composed/triage.js';
import { ManualClock } from '../../../src/sandbox/core/clock.js';
import type { WatchEvent } from '../../../src/watch/branch-watch.js';
import { WatchHub } from '../../../src/watch/hub.js';
import { useSandbox } from '../../helpers/mcp.js';
import { useRedis } from '../../helpers/redis.js';
import { callAnsweringYes } from '../../helpers/call-as-yes.js';
import { operationsWithTriageAt } from '../../helpers/watch.js';

const clock = new ManualClock();
const env = useSandbox({ clock });
/** The registry with triage reading the sandbox's clock. */
const ops = operationsWithTriageAt(() => clock.now());
const PROJECT = 'acme/web';
/** Redis expires the lease on its own time: a short interval keeps a takeover to a few seconds. */
const INTERVAL_MS = 1_000;
/**
 * Each story waits in several bounded steps (intervalsUntil: 20 s of real time each, with its own message), so the
 * test as a whole is given room for more than one of them on a loaded machine.
 */
const STORY_TIMEOUT_MS = 90_000;

const redis = useRedis({ keepData: true });
const hubs: WatchHub[] = [];
// Registered after useRedis's, so it runs first: the hubs stop before their stores close.
afterAll(async () => {
  for (const hub of hubs) await hub.close().catch(() => undefined);
});

interface Told {
  by: string;
  subscriber: string;
  event: WatchEvent;
}

/** What the watches asked of the service, request by request. */
let watchRequests = 0;
const countedClient = (): ApiTransport => ({
  request(req) {
    watchRequests += 1;
    return env.client.request(req);
  },
});

function recordingLog() {
  const lines = { warn: [] as string[], info: [] as string[], error: [] as string[] };
  const log: Logger = {
    error: (m) => lines.error.push(m),
    warn: (m) => lines.warn.push(m),
    info: (m) => lines.info.push(m),
    debug: () => undefined,
  };
  return { log, lines };
}

/** A replica: its own Redis connections (store and pub/sub), its hub, and a sink recording what it delivers. */
async function replica(name: string, keyPrefix: string, told: Told[]) {
  const store = await redis.open(keyPrefix);
  const { log, lines } = recordingLog();
  const hub = new WatchHub({
    store,
    peers: store,
    operations: () => ops,
    runContext: () => ({ client: countedClient() }),
    log,
    clock,
    intervalMs: INTERVAL_MS,
    random: () => 0,
    holder: name,
    storeName: store.label,
  });
  hub.addSink({
    prefix: 'test:',
    deliver: async (subscription, event) => {
      told.push({ by: name, subscriber: subscription.subscriber, event });
    },
  });
  hubs.push(hub);
  await hub.start();
  return { hub, store, lines };
}

/** Runs an operation as a person who answers yes to any approval request. */
const call = <T = Record<string, unknown>>(name: string, input: Record<string, unknown>): Promise<T> =>
  callAnsweringYes<T>(env.client, name, input);

/** One interval on the watches' clock, and a moment of real time for their checks (and Redis) to answer. */
async function interval(): Promise<void> {
  clock.advance(INTERVAL_MS);
  await new Promise((resolve) => setTimeout(resolve, 30));
}

/** Intervals until `done`, for at most 20 s of real time (a Redis starting again, a lease running out on its own time). */
async function intervalsUntil(done: () => boolean, what: string): Promise<number> {
  const deadline = Date.now() + 20_000;
  let count = 0;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen in 20 s`);
    await interval();
    count += 1;
  }
  return count;
}

/** Retries the branch's red head pipeline and runs the sandbox's clock until it has failed again. */
async function failAgain(head: number, whileRunning: () => Promise<void>): Promise<void> {
  await call('retry_pipeline', { id: PROJECT, pipeline_id: head });
  for (let step = 0; step < 600; step++) {
    const pipeline = await call<{ status: string }>('get_pipeline', { id: PROJECT, pipeline_id: head });
    if (pipeline.status === 'failed') return;
    await whileRunning();
  }
  throw new Error('the retried pipeline did not fail within 600 intervals');
}

const kinds = (told: Told[], subscriber: string) =>
  told.filter((t) => t.subscriber === subscriber).map((t) => t.event.kind);
const headOf = (told: Told[]) =>
  (told.find((t) => t.event.kind === 'red')!.event as { report: TriageReport }).report.head_pipeline!.id;

/**
 * Two replicas on Redis keys under `keyPrefix`, C1 subscribed through the first and C2 through the second, run until
 * red is told and one of them polls; `told` is what both told their subscribers.
 */
async function twoReplicasTellingRed(keyPrefix: string) {
  const told: Told[] = [];
  const one = await replica('replica-1', keyPrefix, told);
  const two = await replica('replica-2', keyPrefix, told);
  await one.hub.subscribe({ subscriber: 'test:C1', project: PROJECT });
  await two.hub.subscribe({ subscriber: 'test:C2', project: PROJECT });
  await intervalsUntil(
    () => one.hub.counts().polling + two.hub.counts().polling === 1 && kinds(told, 'test:C2').includes('red'),
    'red told and one replica polling',
  );
  return { one, two, told };
}

describe('watching through a Redis that stops and starts again', () => {
  it(
    'pauses without asking the service, says so once and on /readyz, and resumes alone telling what happened meanwhile once',
    async () => {
      const { one, two, told } = await twoReplicasTellingRed('outage:');
      for (let i = 0; i < 3; i++) await interval();
      expect(kinds(told, 'test:C1')).toEqual(['red']);
      expect(kinds(told, 'test:C2')).toEqual(['red']);
      const probe = new ReadinessProbe([watchCheck(one.hub)]);
      expect(await probe.current()).toEqual({ ready: true, checks: { watching: 'ok' } });

      await redis.server.stop({ forNow: true });
      const asked = watchRequests;
      for (let i = 0; i < 5; i++) await interval();
      expect(one.hub.paused).toMatch(/^watching paused: Redis at 127\.0\.0\.1:\d+ unreachable$/);
      expect(two.hub.paused).toBe(one.hub.paused);
      expect(one.hub.counts()).toEqual({ polling: 0, standingBy: 1 });
      expect(await new ReadinessProbe([watchCheck(one.hub)]).current()).toEqual({
        ready: false,
        checks: { watching: one.hub.paused },
      });
      // The red pipeline retried and failed again while nobody could watch: still nothing asked of the service.
      await failAgain(headOf(told), interval);
      expect(watchRequests).toBe(asked);
      for (const replicaLines of [one.lines, two.lines]) {
        expect(replicaLines.warn).toEqual([
          expect.stringMatching(/watching paused: Redis at .* unreachable; no watch asks the service/),
        ]);
        expect(replicaLines.info).toEqual([]);
        expect(replicaLines.error).toEqual([]);
      }

      await redis.server.start();
      await intervalsUntil(
        () =>
          kinds(told, 'test:C1').includes('still-red') &&
          kinds(told, 'test:C2').includes('still-red') &&
          one.hub.paused === undefined &&
          two.hub.paused === undefined,
        'still red told after Redis came back',
      );
      for (let i = 0; i < 3; i++) await interval();
      expect(kinds(told, 'test:C1')).toEqual(['red', 'still-red']);
      expect(kinds(told, 'test:C2')).toEqual(['red', 'still-red']);
      for (const replicaLines of [one.lines, two.lines]) {
        expect(replicaLines.warn).toHaveLength(1);
        expect(replicaLines.info).toEqual([
          expect.stringMatching(/^watch: watching resumed: Redis at .* answers again/),
        ]);
      }
      expect(await new ReadinessProbe([watchCheck(one.hub)]).current()).toEqual({
        ready: true,
        checks: { watching: 'ok' },
      });
    },
    STORY_TIMEOUT_MS,
  );
});

describe('the lease holder dying mid-episode', () => {
  it(
    'lets the other replica take over and tell the next transition once, to every subscriber',
    async () => {
      const { one, two, told } = await twoReplicasTellingRed('takeover:');
      const [holder, other] = one.hub.counts().polling === 1 ? [one, two] : [two, one];
      const otherName = holder === one ? 'replica-2' : 'replica-1';

      holder.hub.abandon();
      await failAgain(headOf(told), interval);
      await intervalsUntil(
        () => kinds(told, 'test:C1').includes('still-red') && kinds(told, 'test:C2').includes('still-red'),
        'still red told by the other replica',
      );
      for (let i = 0; i < 3; i++) await interval();
      expect(other.hub.counts()).toEqual({ polling: 1, standingBy: 0 });
      expect(holder.hub.counts()).toEqual({ polling: 0, standingBy: 0 });
      for (const subscriber of ['test:C1', 'test:C2']) {
        const said = kinds(told, subscriber);
        // A running update is told only if a check saw the retry running; the rest exactly once each.
        expect(said.filter((kind) => kind !== 'running')).toEqual(['red', 'still-red']);
        expect(said.filter((kind) => kind === 'running').length).toBeLessThanOrEqual(1);
      }
      expect(told.filter((t) => t.event.kind === 'still-red').every((t) => t.by === otherName)).toBe(true);
    },
    STORY_TIMEOUT_MS,
  );
});
