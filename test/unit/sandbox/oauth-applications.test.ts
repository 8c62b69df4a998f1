// The admin Applications API as the service answers it (create, list without secrets, delete, renew the secret, the
// validation messages), and applications registered when the sandbox starts.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ManualClock } from '../../../src/sandbox/core/clock.js';
import { type Sandbox, startSandbox } from '../../../src/sandbox/server.js';
import { authorizeInBrowser, codeFlowTokens, authorizeUrl, Browser } from './oauth-browser.js';
import { api } from './sandbox-client.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({
    clock: new ManualClock(),
    applications: [
      { name: 'Fixed', uid: 'fixed-client-id', redirect_uris: ['https://fixed.example/cb'], scopes: ['read_api'] },
    ],
  });
});
afterAll(() => sandbox.close());

function create(form: string, as: 'admin' | 'developer' | 'anonymous' = 'admin') {
  return api(sandbox, 'POST', '/applications', { as, form });
}

describe('the admin Applications API', () => {
  test('only administrators may use it', async () => {
    expect((await api(sandbox, 'GET', '/applications', { as: 'anonymous' })).status).toBe(401);
    expect((await api(sandbox, 'GET', '/applications', { as: 'maintainer' })).status).toBe(403);
    const refused = await create('name=x&redirect_uri=https://x.example/cb&scopes=api', 'developer');
    expect(refused.status).toBe(403);
  });

  test('creates an application with its secret once; the list never shows a secret', async () => {
    const created = await create(
      `name=${encodeURIComponent('Review app')}&redirect_uri=${encodeURIComponent('https://r.example/cb\nhttps://r.example/other')}&scopes=${encodeURIComponent('api read_user')}`,
    );
    expect(created.status).toBe(201);
    expect(created.data).toEqual({
      id: expect.any(Number),
      application_id: expect.stringMatching(/^[0-9a-f]{64}$/),
      application_name: 'Review app',
      secret: expect.stringMatching(/^gloas-[0-9a-f]{64}$/),
      callback_url: 'https://r.example/cb\nhttps://r.example/other',
      confidential: true,
      scopes: ['api', 'read_user'],
    });
    const list = await api(sandbox, 'GET', '/applications', { as: 'admin' });
    const listed = list.data.find((a: { id: number }) => a.id === created.data.id);
    expect(listed).toEqual({ ...created.data, secret: undefined });
    expect(JSON.stringify(list.data)).not.toContain('gloas-');
    expect(list.data.map((a: { application_id: string }) => a.application_id)).toContain('fixed-client-id');

    // Each of its redirect URIs works, exactly.
    const back = await authorizeInBrowser(new Browser(sandbox), {
      client_id: created.data.application_id,
      redirect_uri: 'https://r.example/other',
      scope: 'read_user',
    });
    expect(back.searchParams.get('code')).toBeTruthy();
  });

  test('confidential=false makes a public client', async () => {
    const created = await create('name=Cli&redirect_uri=http://127.0.0.1/callback&scopes=api&confidential=false');
    expect(created.data.confidential).toBe(false);
  });

  test.each([
    ['redirect_uri=http://&scopes=api&name=x', { message: { redirect_uri: ['must be a valid URI.'] } }],
    [
      'redirect_uri=javascript://alert()&scopes=api&name=x',
      { message: { redirect_uri: ['is forbidden by the server.'] } },
    ],
    [
      'redirect_uri=https://x.example/cb%23frag&scopes=api&name=x',
      { message: { redirect_uri: ['cannot contain a fragment.'] } },
    ],
    ['redirect_uri=/relative&scopes=api&name=x', { message: { redirect_uri: ['must be an absolute URI.'] } }],
    ['redirect_uri=https://x.example/cb&name=x', { error: 'scopes is missing, scopes is empty' }],
    ['redirect_uri=https://x.example/cb&scopes=&name=x', { error: 'scopes is empty' }],
    [
      'redirect_uri=https://x.example/cb&scopes=api%20sudo&name=x',
      { message: { scopes: ["doesn't match configured on the server."] } },
    ],
    ['redirect_uri=https://x.example/cb&scopes=api', { error: 'name is missing' }],
  ])('%s is 400 %j', async (form, body) => {
    const before = (await api(sandbox, 'GET', '/applications', { as: 'admin' })).data.length;
    const answer = await create(form);
    expect(answer.status).toBe(400);
    expect(answer.data).toEqual(body);
    expect((await api(sandbox, 'GET', '/applications', { as: 'admin' })).data.length).toBe(before);
  });

  test('renewing the secret: the new one works at the token endpoint, the old one no longer', async () => {
    const created = (await create('name=Renew&redirect_uri=https://n.example/cb&scopes=api')).data;
    const renewed = await api(sandbox, 'POST', `/applications/${created.id}/renew-secret`, { as: 'admin' });
    expect(renewed.status).toBe(201);
    expect(renewed.data.secret).toMatch(/^gloas-/);
    expect(renewed.data.secret).not.toBe(created.secret);

    const exchange = (secret: string) =>
      codeFlowTokens(sandbox, { id: created.application_id, secret }, 'https://n.example/cb');
    expect((await exchange(created.secret)).status).toBe(401);
    expect((await exchange(renewed.data.secret)).status).toBe(200);
    const missing = await api(sandbox, 'POST', '/applications/999999/renew-secret', { as: 'admin' });
    expect(missing.status).toBe(404);
  });

  test('deleting: 204, then its client id is unknown to the provider; an unknown id is 404', async () => {
    const created = (await create('name=Gone&redirect_uri=https://g.example/cb&scopes=api')).data;
    expect((await api(sandbox, 'DELETE', `/applications/${created.id}`, { as: 'admin' })).status).toBe(204);
    const again = await api(sandbox, 'DELETE', `/applications/${created.id}`, { as: 'admin' });
    expect(again.status).toBe(404);
    expect(again.data).toEqual({ message: '404 Application Not Found' });
    const page = await new Browser(sandbox).open(
      authorizeUrl({ client_id: created.application_id, redirect_uri: 'https://g.example/cb', response_type: 'code' }),
    );
    expect(page.status).toBe(401);
    expect(page.html).toContain('invalid_client');
  });
});

describe('applications registered at start', () => {
  test('keep their fixed client id, and get a generated secret handed back in process', () => {
    const [fixed] = sandbox.applications;
    expect(fixed).toMatchObject({ uid: 'fixed-client-id', name: 'Fixed', confidential: true, trusted: false });
    expect(fixed.secret).toMatch(/^gloas-[0-9a-f]{64}$/);
  });

  test('a taken client id or an invalid application is refused', () => {
    expect(() =>
      sandbox.registerApplication({
        name: 'Twin',
        uid: 'fixed-client-id',
        redirect_uris: ['https://t.example/cb'],
        scopes: ['api'],
      }),
    ).toThrow(/client id fixed-client-id is taken/);
    expect(() =>
      sandbox.registerApplication({ name: 'Bad', redirect_uris: ['javascript:alert(1)'], scopes: ['api'] }),
    ).toThrow(/redirect_uri is forbidden by the server/);
  });

  test('an invalid application fails the start, and leaves no server behind', async () => {
    await expect(
      startSandbox({
        seed: false,
        applications: [{ name: 'Bad', redirect_uris: ['https://b.example/cb'], scopes: [] }],
      }),
    ).rejects.toThrow(/scopes doesn't match/);
  });
});
