// Fault injection (status, body, headers, times, connection resets) and its record in the request log.
import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../../../src/sandbox/server.js';
import { api } from './sandbox-client.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ seed: true });
});
afterAll(() => sandbox.close());
beforeEach(() => {
  sandbox.faults.clear();
  sandbox.requests.clear();
});

test('a fault answers before routing, as often as asked, then the real answer comes back', async () => {
  sandbox.faults.add({
    method: 'GET',
    path: '/projects/acme%2Fweb/pipelines',
    status: 429,
    body: 'Retry later',
    headers: { 'retry-after': '1', 'content-type': 'text/plain' },
    times: 2,
  });
  const first = await api(sandbox, 'GET', '/projects/acme%2Fweb/pipelines?status=failed');
  expect(first.status).toBe(429);
  expect(first.text).toBe('Retry later');
  expect(first.headers.get('retry-after')).toBe('1');
  expect((await api(sandbox, 'GET', '/projects/acme%2Fweb/pipelines')).status).toBe(429);
  expect((await api(sandbox, 'GET', '/projects/acme%2Fweb/pipelines')).status).toBe(200);
  expect(sandbox.faults.pending).toBe(0);
  expect(sandbox.requests.all().map((r) => r.status)).toEqual([429, 429, 200]);
});

test('without a body the fault sends the JSON message of its status', async () => {
  sandbox.faults.add({ status: 503 });
  const answer = await api(sandbox, 'GET', '/user');
  expect(answer.status).toBe(503);
  expect(answer.data).toEqual({ message: '503 Service Unavailable' });
});

test('method and path prefix must both match', async () => {
  sandbox.faults.add({ method: 'POST', path: '/projects/1/pipeline', status: 502 });
  expect((await api(sandbox, 'GET', '/projects/1/pipelines')).status).toBe(200);
  expect(sandbox.faults.pending).toBe(1);
  const post = await api(sandbox, 'POST', '/projects/1/pipeline', { json: { ref: 'main' } });
  expect(post.status).toBe(502);
  // The faulted POST never reached the route: no pipeline was created.
  const pending = await api(sandbox, 'GET', '/projects/1/pipelines?status=pending');
  expect(pending.data.map((p: { id: number }) => p.id)).toEqual([11]);
});

test('a connection reset is seen by the client and logged with status 0', async () => {
  sandbox.faults.add({ path: '/user', status: 500, resetConnection: true });
  await expect(api(sandbox, 'GET', '/user')).rejects.toThrow();
  expect(sandbox.requests.filter({ path: '/user' })).toEqual([
    { method: 'GET', path: '/user', status: 0, unknownParams: [] },
  ]);
  expect((await api(sandbox, 'GET', '/user')).status).toBe(200);
});

test('a POST sent once is logged once', async () => {
  await api(sandbox, 'POST', '/projects/1/pipeline', { json: { ref: 'main' } });
  expect(sandbox.requests.filter({ method: 'POST', path: '/projects/1/pipeline' })).toHaveLength(1);
});

test('bad fault specifications are refused', () => {
  expect(() => sandbox.faults.add({ status: 42 })).toThrow(/status/);
  expect(() => sandbox.faults.add({ status: 500, times: 0 })).toThrow(/times/);
});
