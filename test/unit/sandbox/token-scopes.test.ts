// Personal access tokens through the one credential check: sent as PRIVATE-TOKEN or as a Bearer token, and held to
// their scopes as the service holds them (api, read_api, read_user on the users API, read_repository on files).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { TokenScope } from '../../../src/sandbox/core/scopes.js';
import { type Sandbox, startSandbox } from '../../../src/sandbox/server.js';
import { api } from './sandbox-client.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
  const alice = sandbox.store.findUser('alice')!;
  const scoped: Array<[string, TokenScope[]]> = [
    ['alice-read-api', ['read_api']],
    ['alice-read-user', ['read_user']],
    ['alice-read-repository', ['read_repository']],
    ['alice-openid', ['openid', 'profile', 'email']],
  ];
  for (const [token, scopes] of scoped) alice.tokens.push({ token, scopes });
});
afterAll(() => sandbox.close());

const bearer = (token: string) => ({ as: 'anonymous' as const, headers: { authorization: `Bearer ${token}` } });
const WEB = '/projects/acme%2Fweb';

describe('a personal access token', () => {
  test('works as a Bearer token as well as PRIVATE-TOKEN', async () => {
    const answer = await api(sandbox, 'GET', '/user', bearer(sandbox.tokens.developer));
    expect(answer.status).toBe(200);
    expect(answer.data.username).toBe('bob');
  });

  test('an unknown Bearer token is 401 like an unknown PRIVATE-TOKEN, even on public data', async () => {
    const answer = await api(sandbox, 'GET', `${WEB}/pipelines`, bearer('no-such-token'));
    expect(answer.status).toBe(401);
    expect(answer.data).toEqual({ message: '401 Unauthorized' });
  });

  test('the SCIM token opens no API route', async () => {
    const answer = await api(sandbox, 'GET', '/user', bearer(sandbox.tokens.scim));
    expect(answer.status).toBe(401);
  });
});

describe('scopes', () => {
  test('read_api reads anything but cannot write: 403 insufficient_scope naming the scope that would do', async () => {
    expect((await api(sandbox, 'GET', WEB, { token: 'alice-read-api' })).status).toBe(200);
    expect((await api(sandbox, 'GET', '/user', { token: 'alice-read-api' })).status).toBe(200);
    const write = await api(sandbox, 'POST', `${WEB}/issues`, { token: 'alice-read-api', json: { title: 'x' } });
    expect(write.status).toBe(403);
    expect(write.data).toEqual({
      error: 'insufficient_scope',
      error_description: 'The request requires higher privileges than provided by the access token.',
      scope: 'api',
    });
  });

  test('read_user reads the users API and nothing else', async () => {
    const token = { token: 'alice-read-user' };
    expect((await api(sandbox, 'GET', '/user', token)).data.username).toBe('alice');
    expect((await api(sandbox, 'GET', '/users?username=bob', token)).status).toBe(200);
    expect((await api(sandbox, 'GET', '/user/status', token)).status).toBe(200);
    const project = await api(sandbox, 'GET', WEB, token);
    expect(project.status).toBe(403);
    expect(project.data).toMatchObject({ error: 'insufficient_scope', scope: 'api read_api' });
    // A user's projects belong to the projects API, not the users API.
    expect((await api(sandbox, 'GET', '/users/alice/projects', token)).status).toBe(403);
    expect((await api(sandbox, 'PUT', '/user/status', { ...token, json: { message: 'x' } })).status).not.toBe(200);
  });

  test('read_repository reads files and nothing else', async () => {
    const token = { token: 'alice-read-repository' };
    const file = await api(sandbox, 'GET', `${WEB}/repository/files/README.md?ref=main`, token);
    expect(file.status).toBe(200);
    expect(file.data.file_name).toBe('README.md');
    expect((await api(sandbox, 'GET', `${WEB}/repository/files/README.md/raw?ref=main`, token)).status).toBe(200);
    const list = await api(sandbox, 'GET', `${WEB}/repository/tree`, token);
    expect(list.status).toBe(403);
    expect(list.data.scope).toBe('api read_api');
  });

  test('OpenID Connect scopes open no API route', async () => {
    const answer = await api(sandbox, 'GET', '/user', { token: 'alice-openid' });
    expect(answer.status).toBe(403);
    expect(answer.data.scope).toBe('api read_api read_user');
  });

  test('the scope check comes before the account state: a blocked account with a narrow token hears of the scope', async () => {
    const carol = sandbox.store.findUser('carol')!;
    carol.tokens.push({ token: 'carol-read-user', scopes: ['read_user'] });
    carol.state = 'blocked';
    try {
      expect((await api(sandbox, 'GET', WEB, { token: 'carol-read-user' })).data.error).toBe('insufficient_scope');
      const blocked = await api(sandbox, 'GET', '/user', { token: 'carol-read-user' });
      expect(blocked.data).toEqual({ message: '403 Forbidden - Your account has been blocked' });
    } finally {
      carol.state = 'active';
    }
  });
});
