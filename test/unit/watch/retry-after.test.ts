// A watch against a scripted service that answers 429 or 503 with Retry-After: no request reaches the service
// before the wait is over (not its own next check, not a nudge, not another replica taking the lease), a read
// refused inside triage is not judged on, and a wait of hours is cut to MAX_RETRY_AFTER_MS.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HttpClient } from '../../../src/http/client.js';
import { ManualClock } from '../../../src/sandbox/core/clock.js';
import { MemoryStore } from '../../../src/state/store.js';
import {
  BranchWatch,
  MAX_RETRY_AFTER_MS,
  type CheckOutcome,
  type WatchEvent,
} from '../../../src/watch/branch-watch.js';
import { startScriptedServer, type RecordedRequest, type Reply, type ScriptedServer } from '../http/scripted-server.js';
import { operationsWithTriageAt } from '../../helpers/watch.js';

const INTERVAL_MS = 30_000;
const clock = new ManualClock();
/** The registry with triage reading the sandbox's clock. */
const ops = operationsWithTriageAt(() => clock.now());
const PIPELINE = {
  id: 7,
  sha: 'a'.repeat(40),
  status: 'failed',
  ref: 'main',
  updated_at: '2026-11-20T10:00:00Z',
  created_at: '2026-11-20T09:50:00Z',
};

let service: ScriptedServer;
let client: HttpClient;
/** What the service answers a request path (the project's own path, its pipelines, its branch, …); 404 for the rest. */
let answer: (path: string, req: RecordedRequest) => Reply | undefined;

beforeEach(async () => {
  service = await startScriptedServer();
  // The client's own retries stay on, as in production: a Retry-After beyond its 30 s cap fails the call at once.
  client = new HttpClient({ baseUrl: service.url, token: 'watch-token' });
  answer = () => undefined;
  const route = (req: RecordedRequest): Reply =>
    answer(new URL(req.url, service.url).pathname.replace('/api/v4/projects/acme%2Fweb', ''), req) ?? {
      status: 404,
      body: { message: '404 Not Found' },
    };
  service.reply(...Array.from({ length: 500 }, () => route));
});
afterEach(async () => {
  await client.close();
  await service.close();
});

const project = (path: string): Reply | undefined =>
  path === '' ? { body: { id: 1, path_with_namespace: 'acme/web', default_branch: 'main' } } : undefined;
const limited = (seconds: number, status = 429): Reply => ({
  status,
  headers: { 'retry-after': String(seconds) },
  body: { message: `${status} slow down` },
});

function watcher(store: MemoryStore, holder: string, seen: { events: WatchEvent[]; checks: CheckOutcome[] }) {
  return new BranchWatch({
    project: 'acme/web',
    operations: () => ops,
    runContext: () => ({ client }),
    store,
    clock,
    intervalMs: INTERVAL_MS,
    random: () => 0,
    holder,
    onEvent: (event) => {
      seen.events.push(event);
    },
    onCheck: (result) => {
      seen.checks.push(result);
    },
  });
}

/** Lets the watch's asynchronous work run without moving the clock. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

describe('a watch told to wait by the service', () => {
  it('sends nothing before a 429 Retry-After is over: not its own check, not a nudge, not a replica taking the lease', async () => {
    let open = false;
    answer = (path) => project(path) ?? (path === '/pipelines' ? (open ? { body: [] } : limited(120)) : undefined);
    const store = new MemoryStore({ now: () => clock.now() });
    const seen = { events: [] as WatchEvent[], checks: [] as CheckOutcome[] };
    const watch = watcher(store, 'replica-1', seen);
    const other = watcher(store, 'replica-2', { events: [], checks: [] });
    watch.start();
    await expect.poll(() => seen.checks).toEqual(['failed']);
    const asked = service.requests.length;
    expect(service.requests.at(-1)?.url).toMatch(/\/pipelines\?/);

    // Four intervals pass, a webhook nudges, and the other replica checks after the lease would have run out.
    for (let second = 0; second < 119; second += 1) {
      clock.advance(1000);
      if (second % 30 === 0) {
        expect(await watch.check()).toBe('deferred');
        expect(await other.check()).toBe('not-holder');
      }
    }
    clock.advance(999);
    await settle();
    expect(service.requests.length).toBe(asked);

    open = true;
    clock.advance(1);
    await expect.poll(() => service.requests.length).toBeGreaterThan(asked);
    await expect.poll(() => seen.events.map((e) => e.kind)).toEqual(['watching']);
    await watch.stop();
  });

  it('does not judge a change on a triage read refused with 503 Retry-After, and judges it once the wait is over', async () => {
    let open = false;
    answer = (path) => {
      if (path === '/pipelines') return { body: [PIPELINE] };
      if (path === '/repository/branches/main')
        return open ? { body: { name: 'main', commit: { id: PIPELINE.sha, title: 'Break it' } } } : limited(45, 503);
      return project(path);
    };
    const store = new MemoryStore({ now: () => clock.now() });
    const seen = { events: [] as WatchEvent[], checks: [] as CheckOutcome[] };
    const watch = watcher(store, 'replica-1', seen);
    watch.start();
    await expect.poll(() => seen.checks).toEqual(['failed']);
    expect(seen.events).toEqual([]);
    const asked = service.requests.length;

    // One interval (30 s) would be the next check; the service asked for 45.
    clock.advance(44_999);
    await settle();
    expect(service.requests.length).toBe(asked);
    open = true;
    clock.advance(1);
    await expect.poll(() => seen.events.map((e) => e.kind)).toEqual(['red']);
    expect(seen.checks).toEqual(['failed', 'changed']);
    await watch.stop();
  });

  it('waits at most MAX_RETRY_AFTER_MS, whatever Retry-After says', async () => {
    let open = false;
    answer = (path) =>
      project(path) ?? (path === '/pipelines' ? (open ? { body: [] } : limited(24 * 3600)) : undefined);
    const store = new MemoryStore({ now: () => clock.now() });
    const seen = { events: [] as WatchEvent[], checks: [] as CheckOutcome[] };
    const watch = watcher(store, 'replica-1', seen);
    watch.start();
    await expect.poll(() => seen.checks).toEqual(['failed']);
    const asked = service.requests.length;
    clock.advance(MAX_RETRY_AFTER_MS - 1);
    await settle();
    expect(service.requests.length).toBe(asked);
    open = true;
    clock.advance(1);
    await expect.poll(() => seen.checks).toEqual(['failed', 'changed']);
    await watch.stop();
  });
});
