// The pipeline webhook receiver on loopback, before a real watch hub on the sandbox's clock: the secret token decides
// (401, nothing checked), bodies are capped (413), other events are answered 200 and ignored, and a pipeline event
// makes the watch check at once — answered without waiting for that — each counted in /metrics.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerMetrics, enableMetrics, resetMetrics } from '../../../src/metrics.js';
import { ManualClock } from '../../../src/sandbox/core/clock.js';
import type { WatchHub, StatusChange } from '../../../src/watch/hub.js';
import {
  MAX_WEBHOOK_BYTES,
  PIPELINE_HOOK_PATH,
  pipelineEventProject,
  pipelineWebhook,
} from '../../../src/watch/webhook.js';
import { useSandbox } from '../../helpers/mcp.js';
import { quietLog } from '../../helpers/watch.js';
import { sandboxWatchHub } from '../../helpers/watch-hub.js';

const clock = new ManualClock();
const env = useSandbox({ clock });
const SECRET = 'a-webhook-secret-of-some-length';

let hub: WatchHub;
let base: string;
/** What the hub told its listeners about acme/web. */
const heard: StatusChange[] = [];
let stopHearing: () => Promise<void>;

/** The receiver and /metrics on one loopback server, as serve mounts them. */
async function listen(
  handler: ReturnType<typeof pipelineWebhook>,
): Promise<{ url: string; close: () => Promise<void> }> {
  const http = createServer((req, res) => {
    void answerMetrics(req, res).then((answered) => {
      if (!answered) handler(req, res);
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return {
    url,
    close: () =>
      new Promise((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

/** Lets the watch's asynchronous work run (no clock moves) until `done`, for at most 200 turns of 10 ms. */
async function settled(done: () => boolean): Promise<void> {
  for (let turn = 0; turn < 200 && !done(); turn++) await new Promise((resolve) => setTimeout(resolve, 10));
}

const pipelineEvent = (project: string) =>
  JSON.stringify({
    object_kind: 'pipeline',
    object_attributes: { id: 1, status: 'running' },
    project: { path_with_namespace: project },
  });

function post(body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${base}${PIPELINE_HOOK_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
}

async function webhookCount(result: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`forgeops_webhooks_total{result="${result}"}`));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

let closeServer: () => Promise<void>;
beforeAll(async () => {
  await enableMetrics();
  resetMetrics();
  hub = sandboxWatchHub(env, clock, { holder: 'test' });
  await hub.start();
  stopHearing = await hub.listen('acme/web', (change) => {
    heard.push(change);
  });
  // The watch's first check (it tells the branch's state, red) is over once its 'changed' is heard.
  await settled(() => heard.some((c) => c.kind === 'changed'));
  const started = await listen(pipelineWebhook({ secret: SECRET, watches: hub, log: quietLog }));
  base = started.url;
  closeServer = started.close;
});

afterAll(async () => {
  await closeServer?.();
  await stopHearing?.();
  await hub?.close();
});

/** Starts a pipeline on acme/web's default branch: the change a check would see. */
async function retryHead(): Promise<void> {
  const pipelines = await env.client.request({
    method: 'GET',
    path: '/projects/acme%2Fweb/pipelines',
    query: { ref: 'main', per_page: 1 },
    idempotent: true,
  });
  const [latest] = pipelines.data as Array<{ id: number }>;
  const retried = await env.client.request({
    method: 'POST',
    path: `/projects/acme%2Fweb/pipelines/${latest.id}/retry`,
    idempotent: false,
  });
  expect(retried.status).toBe(201);
}

describe('the pipeline webhook', () => {
  it('refuses a missing or wrong token with 401, repeating nothing sent, and checks nothing', async () => {
    await retryHead();
    heard.length = 0;
    const missing = await post(pipelineEvent('acme/web'));
    expect(missing.status).toBe(401);
    const wrong = await post(pipelineEvent('acme/web'), { 'x-gitlab-token': `${SECRET}x` });
    expect(wrong.status).toBe(401);
    const text = await wrong.text();
    expect(text).not.toContain('acme');
    expect(text).not.toContain(SECRET);
    await settled(() => heard.length > 0);
    expect(heard).toEqual([]);
    expect(await webhookCount('unauthorized')).toBe(2);
  });

  it('has the watch check at once on a pipeline event with the secret: the running pipeline is heard without the clock moving', async () => {
    heard.length = 0;
    const answer = await post(pipelineEvent('acme/web'), { 'x-gitlab-token': SECRET });
    expect(answer.status).toBe(200);
    await settled(() => heard.some((c) => c.kind === 'running'));
    expect(heard.map((c) => c.kind)).toContain('running');
    expect(await webhookCount('nudged')).toBe(1);
  });

  it('has the project checked by the number its event carries, whatever path it names (one renamed since)', async () => {
    const { id } = (
      await env.client.request<{ id: number }>({ method: 'GET', path: '/projects/acme%2Fweb', idempotent: true })
    ).data;
    await env.client.request({
      method: 'POST',
      path: '/projects/acme%2Fweb/pipeline',
      query: { ref: 'main' },
      idempotent: false,
    });
    heard.length = 0;
    // A path no watch knows, alone, reaches none.
    const event = (project: Record<string, unknown>) => JSON.stringify({ object_kind: 'pipeline', project });
    expect((await post(event({ path_with_namespace: 'acme/old-web' }), { 'x-gitlab-token': SECRET })).status).toBe(200);
    await settled(() => heard.length > 0);
    expect(heard).toEqual([]);
    // With the project's number, the watch of acme/web checks and hears the new pipeline.
    const numbered = await post(event({ id, path_with_namespace: 'acme/old-web' }), { 'x-gitlab-token': SECRET });
    expect(numbered.status).toBe(200);
    await settled(() => heard.length > 0);
    expect(heard[0]).toMatchObject({ projectId: id, project: 'acme/web' });
    expect(pipelineEventProject(JSON.parse(event({ id, path_with_namespace: 'acme/old-web' })))).toBe(String(id));
  });

  it('answers other events 200 and ignores them; a body past the cap is 413, bad JSON 400', async () => {
    heard.length = 0;
    const push = await post(JSON.stringify({ object_kind: 'push', project: { path_with_namespace: 'acme/web' } }), {
      'x-gitlab-token': SECRET,
    });
    expect(push.status).toBe(200);
    expect(await push.text()).toMatch(/Ignored/);
    const big = await post(JSON.stringify({ object_kind: 'pipeline', padding: 'x'.repeat(MAX_WEBHOOK_BYTES) }), {
      'x-gitlab-token': SECRET,
    });
    expect(big.status).toBe(413);
    const broken = await post('{"object_kind": "pipeline",', { 'x-gitlab-token': SECRET });
    expect(broken.status).toBe(400);
    const get = await fetch(`${base}${PIPELINE_HOOK_PATH}`, { headers: { 'x-gitlab-token': SECRET } });
    expect(get.status).toBe(405);
    expect(await webhookCount('ignored')).toBe(1);
    expect(await webhookCount('too_large')).toBe(1);
    expect(await webhookCount('malformed')).toBe(1);
    expect(heard).toEqual([]);
  });

  it('answers before the check is done: a hub that never finishes its nudge holds up no delivery', async () => {
    const stuck = await listen(
      pipelineWebhook({ secret: SECRET, watches: { nudge: () => new Promise<void>(() => {}) }, log: quietLog }),
    );
    try {
      const answer = await fetch(`${stuck.url}${PIPELINE_HOOK_PATH}`, {
        method: 'POST',
        headers: { 'x-gitlab-token': SECRET },
        body: pipelineEvent('acme/web'),
      });
      expect(answer.status).toBe(200);
    } finally {
      await stuck.close();
    }
  });

  it('spaces the checks of one project: a flood within the spacing is one check now and one after it, none lost', async () => {
    const nudged: string[] = [];
    const spaced = await listen(
      pipelineWebhook({
        secret: SECRET,
        watches: { nudge: async (project) => void nudged.push(project) },
        log: quietLog,
        clock,
        spacingMs: 5_000,
      }),
    );
    const send = async (project: string) => {
      const answer = await fetch(`${spaced.url}${PIPELINE_HOOK_PATH}`, {
        method: 'POST',
        headers: { 'x-gitlab-token': SECRET },
        body: pipelineEvent(project),
      });
      expect(answer.status).toBe(200);
    };
    try {
      for (let i = 0; i < 40; i++) await send('acme/web');
      await send('acme/api');
      // The first of each project looks at once; the other 39 of acme/web wait for the spacing, together.
      expect(nudged).toEqual(['acme/web', 'acme/api']);
      clock.advance(4_999);
      expect(nudged).toHaveLength(2);
      clock.advance(1);
      expect(nudged).toEqual(['acme/web', 'acme/api', 'acme/web']);
      // Nothing more came: nothing more is checked.
      clock.advance(60_000);
      expect(nudged).toHaveLength(3);
      // Past the spacing, the next one looks at once again.
      await send('acme/web');
      expect(nudged).toHaveLength(4);
    } finally {
      await spaced.close();
    }
  });

  it('reads the project of a pipeline or deployment event only', () => {
    expect(pipelineEventProject(JSON.parse(pipelineEvent('acme/web')))).toBe('acme/web');
    // A deployment's move (approved, deploying, failed) is its deploy job's, which moved its pipeline: checked too.
    expect(
      pipelineEventProject({ object_kind: 'deployment', project: { id: 7, path_with_namespace: 'acme/web' } }),
    ).toBe('7');
    expect(pipelineEventProject({ object_kind: 'pipeline', project: {} })).toBeUndefined();
    expect(
      pipelineEventProject({ object_kind: 'build', project: { path_with_namespace: 'acme/web' } }),
    ).toBeUndefined();
    expect(pipelineEventProject(null)).toBeUndefined();
  });
});
