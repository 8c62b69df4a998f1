// The sandbox's project webhooks: a receiver on 127.0.0.1 gets a Pipeline Hook event with the secret token for each
// status change of a pipeline the sandbox runs (its clock driven by hand); the token is never answered back; a
// project takes at most 20 hooks; a URL that is not http(s) is refused naming it; only maintainers manage hooks; a
// hook's test is sent at once and answered 201 only when the receiver took it, 422 saying why otherwise.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { hooksOf } from '../../../src/sandbox/areas/project-hooks/state.js';
import { ManualClock } from '../../../src/sandbox/core/clock.js';
import { startSandbox, type Sandbox } from '../../../src/sandbox/server.js';
import { api } from './sandbox-client.js';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
}

let sandbox: Sandbox;
let clock: ManualClock;
let receiver: Server;
let receiverUrl: string;
const received: Received[] = [];
const waiters: Array<{ test: (r: Received) => boolean; resolve: (r: Received) => void }> = [];

beforeAll(async () => {
  clock = new ManualClock(Date.now());
  sandbox = await startSandbox({ clock });
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const event = {
        path: req.url ?? '',
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
      };
      received.push(event);
      for (const waiter of waiters.filter((w) => w.test(event))) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(event);
      }
      // Two paths refuse what they get: one says why, one says nothing.
      if (req.url === '/refuses') res.writeHead(500).end('Not today: the receiver is down for maintenance');
      else if (req.url === '/refuses-quietly') res.writeHead(500).end();
      else res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await sandbox.close();
  await new Promise((resolve) => receiver.close(resolve));
});

/** Resolves with the first event the receiver got, or gets, that passes `test`. */
function arrival(test: (r: Received) => boolean): Promise<Received> {
  const already = received.find(test);
  if (already) return Promise.resolve(already);
  return new Promise((resolve) => waiters.push({ test, resolve }));
}

const WEB = `/projects/${encodeURIComponent('acme/web')}`;
const PAYMENTS = `/projects/${encodeURIComponent('acme/platform/payments-api')}`;
const TOKEN = 'hook-secret-7f3a';

async function addHook(
  project: string,
  json: Record<string, unknown>,
  as: 'maintainer' | 'developer' | 'admin' = 'maintainer',
) {
  return api(sandbox, 'POST', `${project}/hooks`, { as, json });
}

describe('pipeline events', () => {
  test('a pipeline the sandbox runs sends its creation and each status change to the hook, with the token, in order', async () => {
    const added = await addHook(WEB, {
      url: `${receiverUrl}/ci`,
      token: TOKEN,
      pipeline_events: true,
      push_events: false,
    });
    expect(added.status).toBe(201);
    expect(added.data).toMatchObject({
      url: `${receiverUrl}/ci`,
      pipeline_events: true,
      push_events: false,
      enable_ssl_verification: true,
      project_id: expect.any(Number),
    });

    const created = await api(sandbox, 'POST', `${WEB}/pipeline?ref=main`, { as: 'maintainer' });
    expect(created.status).toBe(201);
    const id = created.data.id as number;
    clock.advance(5 * 60_000);
    await api(sandbox, 'GET', '/version');

    const last = await arrival(
      (r) => r.body.object_attributes?.id === id && r.body.object_attributes.status === 'failed',
    );
    expect(last.path).toBe('/ci');
    expect(last.headers['x-gitlab-event']).toBe('Pipeline Hook');
    expect(last.headers['x-gitlab-token']).toBe(TOKEN);
    expect(last.headers['content-type']).toBe('application/json');
    expect(last.body).toMatchObject({
      object_kind: 'pipeline',
      object_attributes: {
        id,
        ref: 'main',
        tag: false,
        sha: created.data.sha,
        source: 'api',
        status: 'failed',
        detailed_status: 'failed',
        stages: ['build', 'test', 'deploy'],
      },
      project: { path_with_namespace: 'acme/web', default_branch: 'main', web_url: `${sandbox.url}/acme/web` },
      user: { username: expect.any(String) },
      commit: { id: created.data.sha, title: expect.any(String), author: { name: expect.any(String) } },
    });
    expect(last.body.object_attributes.duration).toBeGreaterThan(0);
    expect(last.body.object_attributes.finished_at).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    expect(last.body.builds.find((b: { name: string }) => b.name === 'test')).toMatchObject({
      status: 'failed',
      failure_reason: 'script_failure',
      stage: 'test',
    });

    // One event per change, in the order they happened: it ran, then it failed.
    const statuses = received
      .filter((r) => r.body.object_attributes?.id === id)
      .map((r) => r.body.object_attributes.status);
    expect(statuses).toEqual(['pending', 'running', 'failed']);
    await vi.waitFor(() =>
      expect(hooksOf(sandbox.store).hooks.find((h) => h.id === added.data.id)?.last_delivery).toMatchObject({
        status: 200,
        error: null,
      }),
    );
  });

  test("a person's retry and cancel are status changes too", async () => {
    const created = await api(sandbox, 'POST', `${WEB}/pipeline?ref=main`, { as: 'maintainer' });
    const id = created.data.id as number;
    expect((await api(sandbox, 'POST', `${WEB}/pipelines/${id}/cancel`, { as: 'maintainer' })).data.status).toBe(
      'canceled',
    );
    await arrival((r) => r.body.object_attributes?.id === id && r.body.object_attributes.status === 'canceled');
    expect((await api(sandbox, 'POST', `${WEB}/pipelines/${id}/retry`, { as: 'maintainer' })).status).toBe(201);
    clock.advance(5 * 60_000);
    await api(sandbox, 'GET', '/version');
    await arrival((r) => r.body.object_attributes?.id === id && r.body.object_attributes.status === 'failed');
    const statuses = received
      .filter((r) => r.body.object_attributes?.id === id)
      .map((r) => r.body.object_attributes.status);
    expect(statuses).toEqual(['pending', 'canceled', 'pending', 'running', 'failed']);
  });

  test('a receiver that is not there is noted on the hook, and other hooks still get their events', async () => {
    const gone = createServer();
    await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve));
    const deadUrl = `http://127.0.0.1:${(gone.address() as AddressInfo).port}/gone`;
    await new Promise((resolve) => gone.close(resolve));
    const dead = await addHook(WEB, { url: deadUrl, pipeline_events: true });
    const created = await api(sandbox, 'POST', `${WEB}/pipeline?ref=main`, { as: 'maintainer' });
    clock.advance(5 * 60_000);
    await api(sandbox, 'GET', '/version');
    await arrival(
      (r) => r.body.object_attributes?.id === created.data.id && r.body.object_attributes.status === 'failed',
    );
    await vi.waitFor(() =>
      expect(hooksOf(sandbox.store).hooks.find((h) => h.id === dead.data.id)?.last_delivery).toMatchObject({
        status: null,
        error: expect.stringMatching(/ECONNREFUSED/),
      }),
    );
  });
});

describe('managing hooks', () => {
  test('the token is written, used, and never answered', async () => {
    const added = await addHook(PAYMENTS, { url: 'https://hooks.example.com/forge', token: TOKEN, name: 'forge' });
    expect(added.data).not.toHaveProperty('token');
    expect(added.data).toMatchObject({ name: 'forge', push_events: true, pipeline_events: false });
    const reads = [
      await api(sandbox, 'GET', `${PAYMENTS}/hooks`, { as: 'maintainer' }),
      await api(sandbox, 'GET', `${PAYMENTS}/hooks/${added.data.id}`, { as: 'maintainer' }),
      await api(sandbox, 'PUT', `${PAYMENTS}/hooks/${added.data.id}`, {
        as: 'maintainer',
        json: { token: 'another-secret', pipeline_events: true },
      }),
    ];
    for (const read of [added, ...reads]) {
      expect(read.status).toBeLessThan(300);
      expect(read.text).not.toContain(TOKEN);
      expect(read.text).not.toContain('another-secret');
    }
    expect(reads[2].data).toMatchObject({ pipeline_events: true, name: 'forge' });
    expect(hooksOf(sandbox.store).hooks.find((h) => h.id === added.data.id)?.token).toBe('another-secret');
    expect((await api(sandbox, 'DELETE', `${PAYMENTS}/hooks/${added.data.id}`, { as: 'maintainer' })).status).toBe(204);
    expect((await api(sandbox, 'GET', `${PAYMENTS}/hooks/${added.data.id}`, { as: 'maintainer' })).data).toEqual({
      message: '404 Not found',
    });
  });

  test('a URL that is not http(s) is refused naming the url, before anything is stored', async () => {
    for (const url of ['ftp://hooks.example.com/x', 'file:///etc/passwd', 'not a url']) {
      const refused = await addHook(PAYMENTS, { url });
      expect([refused.status, refused.data]).toEqual([422, { message: 'Invalid url given' }]);
    }
    expect((await addHook(PAYMENTS, { pipeline_events: true })).data).toEqual({ error: 'url is missing' });
    expect((await api(sandbox, 'GET', `${PAYMENTS}/hooks`, { as: 'maintainer' })).data).toEqual([]);
  });

  test('a project takes at most 20 hooks', async () => {
    const INFRA = `/projects/${encodeURIComponent('acme/platform/infra')}`;
    for (let i = 0; i < 20; i++)
      expect((await addHook(INFRA, { url: `https://hooks.example.com/${i}` })).status).toBe(201);
    const refused = await addHook(INFRA, { url: 'https://hooks.example.com/21' });
    expect([refused.status, refused.data]).toEqual([
      422,
      { message: { base: ['Maximum number of project hooks (20) exceeded'] } },
    ]);
    expect((await api(sandbox, 'GET', `${INFRA}/hooks?per_page=100`, { as: 'maintainer' })).data).toHaveLength(20);
  });

  test('only maintainers and administrators manage hooks; a private project is not there for outsiders', async () => {
    expect((await api(sandbox, 'GET', `${WEB}/hooks`, { as: 'developer' })).status).toBe(403);
    expect((await addHook(WEB, { url: 'https://hooks.example.com/dev' }, 'developer')).status).toBe(403);
    expect((await api(sandbox, 'GET', `${WEB}/hooks`, { as: 'anonymous' })).status).toBe(401);
    expect((await api(sandbox, 'GET', `${PAYMENTS}/hooks`, { as: 'outsider' })).status).toBe(404);
    expect((await api(sandbox, 'GET', `${WEB}/hooks`, { as: 'admin' })).status).toBe(200);
  });
});

describe('as the vendor runs hooks', () => {
  test("a hook's test sends a sample event of the trigger's kind to its URL before answering 201; an unknown trigger is a 400", async () => {
    const added = await addHook(WEB, { url: `${receiverUrl}/tested`, token: TOKEN, push_events: false });
    const hook = `${WEB}/hooks/${added.data.id}`;
    const pushed = await api(sandbox, 'POST', `${hook}/test/push_events`, { as: 'maintainer' });
    expect({ status: pushed.status, data: pushed.data }).toEqual({ status: 201, data: { message: '201 Created' } });
    // Sent before the answer, not queued after it.
    const push = received.find((r) => r.path === '/tested' && r.headers['x-gitlab-event'] === 'Push Hook');
    expect(push?.body).toMatchObject({ object_kind: 'push', project: { path_with_namespace: 'acme/web' } });
    expect(push?.headers['x-gitlab-token']).toBe(TOKEN);
    expect(hooksOf(sandbox.store).hooks.find((h) => h.id === added.data.id)?.last_delivery).toMatchObject({
      event: 'Push Hook',
      status: 200,
      error: null,
    });
    expect((await api(sandbox, 'POST', `${hook}/test/pipeline_events`, { as: 'maintainer' })).status).toBe(201);
    const pipeline = received.find((r) => r.path === '/tested' && r.headers['x-gitlab-event'] === 'Pipeline Hook');
    expect(pipeline?.body.object_kind).toBe('pipeline');
    for (const trigger of ['build_events', 'constructor']) {
      const refused = await api(sandbox, 'POST', `${hook}/test/${trigger}`, { as: 'maintainer' });
      expect({ trigger, status: refused.status, data: refused.data }).toEqual({
        trigger,
        status: 400,
        data: { error: 'trigger does not have a valid value' },
      });
    }
    expect((await api(sandbox, 'POST', `${hook}/test/push_events`, { as: 'developer' })).status).toBe(403);
  });

  test("a hook's test its receiver refuses is a 422 with the receiver's words, or its status when it says none", async () => {
    for (const [path, message] of [
      ['/refuses', 'Not today: the receiver is down for maintenance'],
      ['/refuses-quietly', '500 Internal Server Error'],
    ]) {
      const added = await addHook(WEB, { url: `${receiverUrl}${path}` });
      const tested = await api(sandbox, 'POST', `${WEB}/hooks/${added.data.id}/test/push_events`, { as: 'maintainer' });
      expect({ path, status: tested.status, data: tested.data }).toEqual({ path, status: 422, data: { message } });
      expect(received.some((r) => r.path === path)).toBe(true);
      expect(hooksOf(sandbox.store).hooks.find((h) => h.id === added.data.id)?.last_delivery).toMatchObject({
        status: 500,
      });
    }
  });

  test("a hook's test whose receiver cannot be reached is a 422 saying so", async () => {
    const gone = createServer();
    await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve));
    const port = (gone.address() as AddressInfo).port;
    await new Promise((resolve) => gone.close(resolve));
    const added = await addHook(WEB, { url: `http://127.0.0.1:${port}/gone` });
    const tested = await api(sandbox, 'POST', `${WEB}/hooks/${added.data.id}/test/push_events`, { as: 'maintainer' });
    expect(tested.status).toBe(422);
    expect(tested.data.message).toMatch(new RegExp(`^Failed to reach 127\\.0\\.0\\.1:${port}: .*ECONNREFUSED`));
    expect(hooksOf(sandbox.store).hooks.find((h) => h.id === added.data.id)?.last_delivery).toMatchObject({
      status: null,
      error: expect.stringMatching(/ECONNREFUSED/),
    });
  });

  test("changing a hook's URL without a new token resets the token; with one, or without a URL change, it is kept", async () => {
    const added = await addHook(WEB, { url: `${receiverUrl}/old`, token: TOKEN, push_events: false });
    const id = added.data.id as number;
    const stored = () => hooksOf(sandbox.store).hooks.find((h) => h.id === id)!.token;
    const edit = (json: Record<string, unknown>) =>
      api(sandbox, 'PUT', `${WEB}/hooks/${id}`, { as: 'maintainer', json });
    expect((await edit({ url: `${receiverUrl}/old`, name: 'same url' })).status).toBe(200);
    expect(stored()).toBe(TOKEN);
    expect((await edit({ url: `${receiverUrl}/new`, token: 'new-secret' })).status).toBe(200);
    expect(stored()).toBe('new-secret');
    expect((await edit({ url: `${receiverUrl}/elsewhere` })).status).toBe(200);
    expect(stored()).toBeNull();
  });
});
