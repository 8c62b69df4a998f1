// GET /user: the caller's own account, the administrator form, and sudo.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../../../src/sandbox/server.js';
import { api } from './sandbox-client.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());

test('a user sees their own account details but not the administrator fields', async () => {
  const answer = await api(sandbox, 'GET', '/user');
  expect(answer.data).toMatchObject({
    username: 'bob',
    name: 'Bob Chen',
    state: 'active',
    email: 'bob@acme.example',
    web_url: `${sandbox.url}/bob`,
    two_factor_enabled: false,
  });
  expect(answer.data).not.toHaveProperty('is_admin');
});

test('an administrator gets the administrator form', async () => {
  const answer = await api(sandbox, 'GET', '/user', { as: 'admin' });
  expect(answer.data).toMatchObject({ username: 'root', is_admin: true });
});

test('sudo by id or username lets an administrator act as someone else', async () => {
  const byName = await api(sandbox, 'GET', '/user?sudo=alice', { as: 'admin' });
  expect(byName.data).toMatchObject({ username: 'alice' });
  expect(byName.data).not.toHaveProperty('is_admin');
  const byId = await api(sandbox, 'GET', `/user?sudo=${byName.data.id}`, { as: 'admin' });
  expect(byId.data.username).toBe('alice');
  const nobody = await api(sandbox, 'GET', '/user?sudo=nobody', { as: 'admin' });
  expect(nobody.status).toBe(404);
  expect(nobody.data).toEqual({ message: '404 User Not Found' });
});

test('sudo by a non-administrator is 403', async () => {
  const answer = await api(sandbox, 'GET', '/user?sudo=root');
  expect(answer.status).toBe(403);
  expect(answer.data).toEqual({ message: '403 Forbidden - Must be admin to use sudo' });
});
