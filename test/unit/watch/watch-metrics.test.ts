// /metrics for watching, as Prometheus scrapes it: the branches this replica watches (polling or standing by), its
// checks by result, every request the checks sent the service (a retry included) and the transitions it told.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../../src/http/client.js';
import type { ApiTransport } from '../../../src/http/types.js';
import { answerMetrics, countWatchesWith, watchRecorder } from '../../../src/metrics.js';
import { ManualClock } from '../../../src/sandbox/core/clock.js';
import { MemoryStore } from '../../../src/state/store.js';
import { WatchHub } from '../../../src/watch/hub.js';
import { useSandbox } from '../../helpers/mcp.js';
import { operationsWithTriageAt, quietLog } from '../../helpers/watch.js';
import { countedClient, series } from '../../helpers/metrics.js';

const clock = new ManualClock();
const env = useSandbox({ clock });
/** The registry with triage reading the sandbox's clock. */
const ops = operationsWithTriageAt(() => clock.now());
const INTERVAL_MS = 30_000;

let metricsServer: Server;
let client: HttpClient;
beforeAll(async () => {
  client = await countedClient(env.sandbox);
  metricsServer = createServer(
    (req, res) => void answerMetrics(req, res).then((answered) => answered || res.writeHead(404).end()),
  );
  await new Promise<void>((resolve) => metricsServer.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await new Promise((resolve) => metricsServer?.close(resolve));
  await client?.close();
});

async function scrape(): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${(metricsServer.address() as AddressInfo).port}/metrics`);
  expect(res.status).toBe(200);
  return res.text();
}

/** Requests sent through the client (each attempt: a retry is one more). */
let checkRequests = 0;
const counted: ApiTransport = {
  request(req) {
    checkRequests += 1;
    return client.request({
      ...req,
      onProgress: (event) => {
        if (event.kind === 'retry') checkRequests += 1;
        req.onProgress?.(event);
      },
    });
  },
};

/** Lets the watches' asynchronous work run without moving the clock. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

describe('/metrics for watching', () => {
  it('shows the watches polling and standing by, checks by result, the requests they cost and the transitions told', async () => {
    const store = new MemoryStore({ now: () => clock.now() });
    const hub = (holder: string) =>
      new WatchHub({
        store,
        operations: () => ops,
        runContext: () => ({ client: counted }),
        log: quietLog,
        clock,
        intervalMs: INTERVAL_MS,
        random: () => 0,
        holder,
        recorder: watchRecorder,
      });
    const one = hub('replica-1');
    const two = hub('replica-2');
    countWatchesWith(() => one.counts());
    await one.start();
    await two.start();
    await one.subscribe({ subscriber: 'test:C1', project: 'acme/web' });
    // The first check triages the project (a dozen reads): on a loaded machine that takes longer than poll's 1 s default.
    await expect
      .poll(async () => series(await scrape(), 'forgeops_watch_events_total', { kind: 'red' }), { timeout: 15_000 })
      .toBe(1);
    await settle();
    // From here on only the watches read the service (a person's subscription above read it too, uncounted).
    const before = { counted: checkRequests, shown: series(await scrape(), 'forgeops_watch_service_requests_total')! };

    const checks = async (result: string) => series(await scrape(), 'forgeops_watch_checks_total', { result }) ?? 0;
    // The second replica finds the watch at its next look at the store and stands by; the first polls each interval.
    // Each check is waited for: on a loaded machine one outlasts a short settle and would be counted after the faults.
    for (let i = 0; i < 3; i++) {
      const seen = await checks('unchanged');
      clock.advance(INTERVAL_MS);
      await expect.poll(() => checks('unchanged'), { timeout: 15_000 }).toBeGreaterThan(seen);
      await settle();
    }
    // The watch asks for the project by its number.
    const { id } = (
      await env.client.request<{ id: number }>({ method: 'GET', path: '/projects/acme%2Fweb', idempotent: true })
    ).data;
    env.sandbox.faults.add({
      method: 'GET',
      path: `/projects/${id}/pipelines`,
      status: 429,
      headers: { 'retry-after': '0' },
    });
    const unchangedBefore = await checks('unchanged');
    clock.advance(INTERVAL_MS);
    // Each check is waited for, not a fixed while: on a loaded machine a check outlasts a short settle, and the next
    // fault would meet the check before it.
    await expect.poll(() => checks('unchanged'), { timeout: 15_000 }).toBeGreaterThan(unchangedBefore);
    env.sandbox.faults.add({ method: 'GET', path: `/projects/${id}/pipelines`, status: 500 });
    clock.advance(INTERVAL_MS);
    await expect.poll(() => checks('failed'), { timeout: 15_000 }).toBe(1);
    await settle();

    const text = await scrape();
    const holder = one.counts().polling === 1 ? one : two;
    expect(one.counts().polling + two.counts().polling).toBe(1);
    expect(series(text, 'forgeops_watches', { role: 'polling' })).toBe(one.counts().polling);
    expect(series(text, 'forgeops_watches', { role: 'standing_by' })).toBe(one.counts().standingBy);
    expect(one.counts().polling + one.counts().standingBy).toBe(1);
    expect(series(text, 'forgeops_watch_checks_total', { result: 'changed' })).toBe(1);
    expect(series(text, 'forgeops_watch_checks_total', { result: 'unchanged' })).toBeGreaterThanOrEqual(3);
    expect(series(text, 'forgeops_watch_checks_total', { result: 'not_holder' })).toBeGreaterThanOrEqual(1);
    expect(series(text, 'forgeops_watch_checks_total', { result: 'failed' })).toBe(1);
    // Three unchanged checks, one retried after a 429, one failed: six requests, each counted.
    expect(series(text, 'forgeops_watch_service_requests_total')! - before.shown).toBe(checkRequests - before.counted);
    expect(checkRequests - before.counted).toBe(6);
    expect(series(text, 'forgeops_watch_events_total', { kind: 'red' })).toBe(1);
    expect(holder.size).toBe(1);
    await one.close();
    await two.close();
  });
});
