// The token endpoint as a client meets it: the authorization code grant with PKCE and client authentication, refresh
// rotation, and the attacks each check stops (wrong or missing verifier, replayed, expired, misdirected or stolen codes,
// reused refresh tokens).
import { beforeAll, describe, expect, test } from 'vitest';
import { ManualClock } from '../../../src/sandbox/core/clock.js';
import type { Application } from '../../../src/sandbox/server.js';
import {
  authorizeInBrowser,
  codeFlowTokens,
  Browser,
  pkcePair,
  postForm,
  terminalApplication,
  tokenAnswer,
} from './oauth-browser.js';
import { api } from './sandbox-client.js';
import { useSandbox } from '../../helpers/mcp.js';

const CALLBACK = 'https://review.example/oauth/callback';
const OTHER_CALLBACK = 'https://review.example/other';

const clock = new ManualClock();
let web: Application;
let rival: Application;
let cli: Application;
let browser: Browser;

const env = useSandbox({
  clock,
  applications: [
    { name: 'Review bot', redirect_uris: [CALLBACK, OTHER_CALLBACK], scopes: ['api', 'read_user'] },
    { name: 'Rival', redirect_uris: [CALLBACK], scopes: ['api'] },
    terminalApplication(['api', 'read_api']),
  ],
});
beforeAll(() => {
  [web, rival, cli] = env.sandbox.applications;
  browser = new Browser(env.sandbox);
});

/** A fresh code of the web application for alice, with a PKCE pair (or none). */
async function webCode(options: { pkce?: boolean; scope?: string; redirect_uri?: string } = {}) {
  const pair = pkcePair();
  const back = await authorizeInBrowser(browser, {
    client_id: web.uid,
    redirect_uri: options.redirect_uri ?? CALLBACK,
    scope: options.scope ?? 'api',
    ...(options.pkce === false ? {} : { code_challenge: pair.challenge, code_challenge_method: 'S256' }),
  });
  return { code: back.searchParams.get('code')!, verifier: pair.verifier };
}

function exchange(code: string, fields: Record<string, string | undefined> = {}) {
  return tokenAnswer(env.sandbox, web, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, ...fields });
}

function refresh(refreshToken: string, fields: Record<string, string | undefined> = {}) {
  return tokenAnswer(env.sandbox, web, { grant_type: 'refresh_token', refresh_token: refreshToken, ...fields });
}

const asBearer = (token: string) => ({ as: 'anonymous' as const, headers: { authorization: `Bearer ${token}` } });

describe('the authorization code grant', () => {
  test("a confidential client gets the service's token response for its code, secret and verifier", async () => {
    const { code, verifier } = await webCode({ scope: 'api read_user' });
    const answer = await exchange(code, { code_verifier: verifier });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.data).toEqual({
      access_token: expect.stringMatching(/^[0-9a-f]{64}$/),
      token_type: 'Bearer',
      expires_in: 7200,
      refresh_token: expect.stringMatching(/^[0-9a-f]{64}$/),
      scope: 'api read_user',
      created_at: Math.floor(clock.now() / 1000),
    });
    const me = await api(env.sandbox, 'GET', '/user', asBearer(answer.data.access_token));
    expect(me.data.username).toBe('alice');
  });

  test('client_secret_basic works as well as client_secret_post', async () => {
    const { code, verifier } = await webCode();
    const answer = await postForm(
      env.sandbox,
      '/oauth/token',
      { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: verifier },
      { id: web.uid, secret: web.secret },
    );
    expect(answer.status).toBe(200);
  });

  test.each([
    ['no secret', { client_secret: undefined }],
    ['a wrong secret', { client_secret: 'gloas-wrong' }],
    ['an unknown client', { client_id: 'nobody', client_secret: 'x' }],
    ['no client at all', { client_id: undefined, client_secret: undefined }],
  ])('a confidential client with %s is 401 invalid_client', async (_name, fields) => {
    const { code, verifier } = await webCode();
    const answer = await exchange(code, { code_verifier: verifier, ...fields });
    expect(answer.status).toBe(401);
    expect(answer.data.error).toBe('invalid_client');
    expect(answer.headers.get('www-authenticate')).toContain('error="invalid_client"');
    // Nothing was spent: the right client still redeems the code.
    expect((await exchange(code, { code_verifier: verifier })).status).toBe(200);
  });

  test('a wrong Basic secret is 401 too', async () => {
    const { code, verifier } = await webCode();
    const body = { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: verifier };
    const answer = await postForm(env.sandbox, '/oauth/token', body, { id: web.uid, secret: 'nope' });
    expect(answer.status).toBe(401);
  });

  test('a public client redeems its code with the PKCE verifier alone', async () => {
    const answer = await codeFlowTokens(env.sandbox, { id: cli.uid }, 'http://127.0.0.1:49152/callback', {
      scope: 'read_api',
      browser,
    });
    expect(answer.status).toBe(200);
    expect(answer.data.scope).toBe('read_api');
  });
});

describe('attacks on the code', () => {
  test.each([
    ['a wrong verifier', () => pkcePair().verifier],
    ['no verifier', () => undefined],
    ['a malformed verifier', () => 'short'],
  ])('%s is invalid_grant', async (_name, verifierOf) => {
    const { code } = await webCode();
    const answer = await exchange(code, { code_verifier: verifierOf() });
    expect(answer.status).toBe(400);
    expect(answer.data).toEqual({
      error: 'invalid_grant',
      error_description: expect.stringContaining('The provided authorization grant is invalid'),
    });
  });

  test('a verifier sent for a code issued without a challenge is refused (PKCE cannot be stripped off)', async () => {
    const { code } = await webCode({ pkce: false });
    expect((await exchange(code, { code_verifier: pkcePair().verifier })).data.error).toBe('invalid_grant');
    // Without a challenge, a confidential client redeems it with its secret alone, as on the service.
    expect((await exchange(code)).status).toBe(200);
  });

  test('a replayed code fails and revokes every token it gave, refreshed ones included', async () => {
    const { code, verifier } = await webCode();
    const first = await exchange(code, { code_verifier: verifier });
    expect(first.status).toBe(200);
    const refreshed = await refresh(first.data.refresh_token);
    expect(refreshed.status).toBe(200);
    const live = await api(env.sandbox, 'GET', '/user', asBearer(refreshed.data.access_token));
    expect(live.status).toBe(200);

    const replay = await exchange(code, { code_verifier: verifier });
    expect(replay.status).toBe(400);
    expect(replay.data.error).toBe('invalid_grant');
    const after = await api(env.sandbox, 'GET', '/user', asBearer(refreshed.data.access_token));
    expect(after.status).toBe(401);
    expect(after.data).toEqual({
      error: 'invalid_token',
      error_description: 'Token was revoked. You have to re-authorize from the user.',
    });
    expect((await refresh(refreshed.data.refresh_token)).data.error).toBe('invalid_grant');
  });

  test('a redirect_uri changed between authorize and token is invalid_grant; a missing one invalid_request', async () => {
    const { code, verifier } = await webCode();
    const changed = await exchange(code, { code_verifier: verifier, redirect_uri: OTHER_CALLBACK });
    expect(changed.data.error).toBe('invalid_grant');
    const missing = await exchange(code, { code_verifier: verifier, redirect_uri: undefined });
    expect(missing.data).toEqual({
      error: 'invalid_request',
      error_description: 'Missing required parameter: redirect_uri.',
    });
  });

  test("another client's code is invalid_grant, even with that client's own valid credentials", async () => {
    const { code, verifier } = await webCode();
    const stolen = await exchange(code, { code_verifier: verifier, client_id: rival.uid, client_secret: rival.secret });
    expect(stolen.status).toBe(400);
    expect(stolen.data.error).toBe('invalid_grant');
    expect((await exchange(code, { code_verifier: verifier })).status).toBe(200);
  });

  test('a code expires after ten minutes on the sandbox clock', async () => {
    const fresh = await webCode();
    const stale = await webCode();
    clock.advance(9 * 60 * 1000);
    expect((await exchange(fresh.code, { code_verifier: fresh.verifier })).status).toBe(200);
    clock.advance(60 * 1000);
    const late = await exchange(stale.code, { code_verifier: stale.verifier });
    expect(late.status).toBe(400);
    expect(late.data.error).toBe('invalid_grant');
  });
});

describe('refresh', () => {
  test('each refresh gives a new pair and ends both old tokens; an old refresh token fails', async () => {
    const { code, verifier } = await webCode({ scope: 'api read_user' });
    const first = (await exchange(code, { code_verifier: verifier })).data;
    const second = await refresh(first.refresh_token);
    expect(second.status).toBe(200);
    expect(second.data.scope).toBe('api read_user');
    expect(second.data.access_token).not.toBe(first.access_token);
    expect(second.data.refresh_token).not.toBe(first.refresh_token);

    expect((await api(env.sandbox, 'GET', '/user', asBearer(first.access_token))).status).toBe(401);
    expect((await api(env.sandbox, 'GET', '/user', asBearer(second.data.access_token))).status).toBe(200);
    const reused = await refresh(first.refresh_token);
    expect(reused.status).toBe(400);
    expect(reused.data.error).toBe('invalid_grant');
    // The failed reuse took nothing from the current pair.
    expect((await api(env.sandbox, 'GET', '/user', asBearer(second.data.access_token))).status).toBe(200);
  });

  test('a refresh token works after its access token expired; another client cannot use it', async () => {
    const { code, verifier } = await webCode();
    const first = (await exchange(code, { code_verifier: verifier })).data;
    expect((await refresh(first.refresh_token, { client_id: rival.uid, client_secret: rival.secret })).status).toBe(
      400,
    );
    clock.advance(2 * 60 * 60 * 1000);
    const expired = await api(env.sandbox, 'GET', '/user', asBearer(first.access_token));
    expect(expired.status).toBe(401);
    expect(expired.data.error_description).toBe(
      'Token is expired. You can either do re-authorization or token refresh.',
    );
    const renewed = await refresh(first.refresh_token);
    expect(renewed.status).toBe(200);
    expect((await api(env.sandbox, 'GET', '/user', asBearer(renewed.data.access_token))).status).toBe(200);
  });

  test('a refresh may narrow the scopes, never widen them', async () => {
    const { code, verifier } = await webCode();
    const first = (await exchange(code, { code_verifier: verifier })).data;
    expect((await refresh(first.refresh_token, { scope: 'api read_user' })).data.error).toBe('invalid_scope');
    const { code: code2, verifier: verifier2 } = await webCode({ scope: 'api read_user' });
    const both = (await exchange(code2, { code_verifier: verifier2 })).data;
    const narrowed = await refresh(both.refresh_token, { scope: 'read_user' });
    expect(narrowed.data.scope).toBe('read_user');
  });
});

describe('grant types', () => {
  test.each([
    [{}, 'invalid_request'],
    [{ grant_type: 'password', username: 'alice', password: 'alice-sandbox-password' }, 'unsupported_grant_type'],
    [{ grant_type: 'client_credentials' }, 'unsupported_grant_type'],
  ])('%j is refused with %s', async (fields, error) => {
    const answer = await tokenAnswer(env.sandbox, web, fields);
    expect(answer.status).toBe(400);
    expect(answer.data.error).toBe(error);
  });
});
