// OAuth access tokens on the API and on the provider's own endpoints: accepted as the user, refused once expired
// (on the sandbox clock) or revoked, held to their scopes; token info, userinfo, revocation and introspection.
import { beforeAll, describe, expect, test } from 'vitest';
import { ManualClock } from '../../../src/sandbox/core/clock.js';
import { type Application, startSandbox } from '../../../src/sandbox/server.js';
import {
  codeFlowTokens,
  Browser,
  formsOf,
  jsonOf,
  postForm,
  terminalApplication,
  tokenAnswer,
} from './oauth-browser.js';
import { api } from './sandbox-client.js';
import { useSandbox } from '../../helpers/mcp.js';

const CALLBACK = 'https://portal.example/cb';

const clock = new ManualClock();
let portal: Application;
let other: Application;
let cli: Application;

const env = useSandbox({
  clock,
  applications: [
    {
      name: 'Portal',
      redirect_uris: [CALLBACK],
      scopes: ['api', 'read_api', 'read_user', 'openid', 'profile', 'email'],
      trusted: true,
    },
    { name: 'Other', redirect_uris: [CALLBACK], scopes: ['api'], trusted: true },
    terminalApplication(['api']),
  ],
});
beforeAll(() => {
  [portal, other, cli] = env.sandbox.applications;
});

/** Tokens of `app` for a demo user with `scope`, through the browser and the token endpoint. */
async function tokensFor(username: string, scope: string, app = portal) {
  const answer = await codeFlowTokens(env.sandbox, { id: app.uid, secret: app.secret }, CALLBACK, { scope, username });
  expect(answer.status).toBe(200);
  return answer.data as { access_token: string; refresh_token: string; created_at: number };
}

const bearer = (token: string) => ({ as: 'anonymous' as const, headers: { authorization: `Bearer ${token}` } });
const WEB = '/projects/acme%2Fweb';

describe('on the API', () => {
  test('a token acts as its user everywhere in /api/v4, private projects by their membership', async () => {
    const { access_token } = await tokensFor('bob', 'api');
    expect((await api(env.sandbox, 'GET', '/user', bearer(access_token))).data.username).toBe('bob');
    const scratchpad = await api(env.sandbox, 'GET', '/projects/bob%2Fscratchpad', bearer(access_token));
    expect(scratchpad.status).toBe(200);
    const issue = await api(env.sandbox, 'POST', `${WEB}/issues`, {
      ...bearer(access_token),
      json: { title: 'From OAuth' },
    });
    expect(issue.status).toBe(201);
    expect(issue.data.author.username).toBe('bob');
    const { access_token: erins } = await tokensFor('erin', 'api');
    expect((await api(env.sandbox, 'GET', '/projects/bob%2Fscratchpad', bearer(erins))).status).toBe(404);
  });

  test("an expired token is the service's 401 invalid_token with its challenge, at two hours on the sandbox clock", async () => {
    const { access_token } = await tokensFor('alice', 'api');
    clock.advance(7_199_000);
    expect((await api(env.sandbox, 'GET', '/user', bearer(access_token))).status).toBe(200);
    clock.advance(1_000);
    const answer = await api(env.sandbox, 'GET', '/user', bearer(access_token));
    expect(answer.status).toBe(401);
    expect(answer.data).toEqual({
      error: 'invalid_token',
      error_description: 'Token is expired. You can either do re-authorization or token refresh.',
    });
    expect(answer.headers.get('www-authenticate')).toBe(
      'Bearer realm="Protected by OAuth 2.0", error="invalid_token", error_description="Token is expired. You can either do re-authorization or token refresh."',
    );
    // Even a public project is refused: a bad token is never read as no token.
    expect((await api(env.sandbox, 'GET', WEB, bearer(access_token))).status).toBe(401);
  });

  test('a revoked token is 401 invalid_token, and revoking its refresh token revokes it too', async () => {
    const first = await tokensFor('alice', 'api');
    const revoke = await postForm(env.sandbox, '/oauth/revoke', {
      token: first.access_token,
      client_id: portal.uid,
      client_secret: portal.secret,
    });
    expect(revoke.status).toBe(200);
    expect(revoke.data).toEqual({});
    const answer = await api(env.sandbox, 'GET', '/user', bearer(first.access_token));
    expect(answer.status).toBe(401);
    expect(answer.data.error_description).toBe('Token was revoked. You have to re-authorize from the user.');
    expect(answer.headers.get('www-authenticate')).toContain('error="invalid_token"');

    const second = await tokensFor('alice', 'api');
    await postForm(env.sandbox, '/oauth/revoke', {
      token: second.refresh_token,
      token_type_hint: 'refresh_token',
      client_id: portal.uid,
      client_secret: portal.secret,
    });
    expect((await api(env.sandbox, 'GET', '/user', bearer(second.access_token))).status).toBe(401);
  });

  test('a read_api token cannot write: 403 insufficient_scope naming api', async () => {
    const { access_token } = await tokensFor('alice', 'read_api');
    expect((await api(env.sandbox, 'GET', WEB, bearer(access_token))).status).toBe(200);
    const write = await api(env.sandbox, 'POST', `${WEB}/issues`, { ...bearer(access_token), json: { title: 'x' } });
    expect(write.status).toBe(403);
    expect(write.data).toEqual({
      error: 'insufficient_scope',
      error_description: 'The request requires higher privileges than provided by the access token.',
      scope: 'api',
    });
  });

  test('a read_user token reads its user but not a project', async () => {
    const { access_token } = await tokensFor('alice', 'read_user');
    expect((await api(env.sandbox, 'GET', '/user', bearer(access_token))).data.username).toBe('alice');
    const project = await api(env.sandbox, 'GET', WEB, bearer(access_token));
    expect(project.status).toBe(403);
    expect(project.data.error).toBe('insufficient_scope');
    expect(project.data.scope).toBe('api read_api');
  });

  test('an OAuth token is not a PRIVATE-TOKEN', async () => {
    const { access_token } = await tokensFor('alice', 'api');
    expect((await api(env.sandbox, 'GET', '/user', { token: access_token })).status).toBe(401);
  });

  test('deleting the application revokes what it was given', async () => {
    const app = env.sandbox.registerApplication({
      name: 'Short-lived',
      redirect_uris: [CALLBACK],
      scopes: ['api'],
      trusted: true,
    });
    const { access_token } = await tokensFor('alice', 'api', app);
    expect((await api(env.sandbox, 'GET', '/user', bearer(access_token))).status).toBe(200);
    const deleted = await api(env.sandbox, 'DELETE', `/applications/${app.id}`, { as: 'admin' });
    expect(deleted.status).toBe(204);
    expect((await api(env.sandbox, 'GET', '/user', bearer(access_token))).status).toBe(401);
  });
});

describe('accounts', () => {
  test('an account an administrator created signs in with its password; a reset one must change it; removal ends its tokens', async () => {
    const created = await api(env.sandbox, 'POST', '/users', {
      as: 'admin',
      json: {
        username: 'grace',
        name: 'Grace Hopper',
        email: 'grace@acme.example',
        password: 'grace-sandbox-password',
      },
    });
    expect(created.status).toBe(201);
    const signInAs = async (password: string) => {
      const browser = new Browser(env.sandbox);
      const page = await browser.open('/users/sign_in');
      return browser.submit(formsOf(page.html)[0], { username: 'grace', password });
    };
    const { access_token, refresh_token } = await tokensFor('grace', 'api');
    expect((await api(env.sandbox, 'GET', '/user', bearer(access_token))).data.username).toBe('grace');

    // A password an administrator sets on an existing account must be changed first; the sandbox has no page for that.
    const reset = await api(env.sandbox, 'PUT', `/users/${created.data.id}`, {
      as: 'admin',
      json: { password: 'grace-reset-5678' },
    });
    expect(reset.status).toBe(200);
    const refused = await signInAs('grace-reset-5678');
    expect(refused.status).toBe(403);
    expect(refused.html).toContain('set by an administrator');
    expect((await signInAs('grace-sandbox-password')).status).toBe(401);

    env.sandbox.store.removeUser(env.sandbox.store.findUser('grace')!, false);
    expect((await api(env.sandbox, 'GET', '/user', bearer(access_token))).status).toBe(401);
    const renewal = await tokenAnswer(env.sandbox, portal, { grant_type: 'refresh_token', refresh_token });
    expect(renewal.data.error).toBe('invalid_grant');
  });
});

describe('the provider endpoints', () => {
  test('token info: owner, scopes, time left, application and creation, with the old aliases', async () => {
    const { access_token, created_at } = await tokensFor('carol', 'read_api read_user');
    clock.advance(200_000);
    const carol = env.sandbox.store.findUser('carol')!;
    for (const request of [
      fetch(`${env.sandbox.url}/oauth/token/info`, { headers: { authorization: `Bearer ${access_token}` } }),
      fetch(`${env.sandbox.url}/oauth/token/info?access_token=${access_token}`),
    ]) {
      const response = await request;
      expect(response.status).toBe(200);
      expect(await jsonOf(response)).toEqual({
        resource_owner_id: carol.id,
        scope: ['read_api', 'read_user'],
        expires_in: 7000,
        application: { uid: portal.uid },
        created_at,
        scopes: ['read_api', 'read_user'],
        expires_in_seconds: 7000,
      });
    }
    const unknown = await fetch(`${env.sandbox.url}/oauth/token/info`, { headers: { authorization: 'Bearer nope' } });
    expect(unknown.status).toBe(401);
    expect((await jsonOf(unknown)).error).toBe('invalid_token');
  });

  test('userinfo needs openid; the primary email only with the email scope', async () => {
    const info = async (token: string) =>
      fetch(`${env.sandbox.url}/oauth/userinfo`, { headers: { authorization: `Bearer ${token}` } });
    const { access_token: apiOnly } = await tokensFor('alice', 'api');
    const refused = await info(apiOnly);
    expect(refused.status).toBe(403);
    expect((await jsonOf(refused)).error).toBe('insufficient_scope');

    const alice = env.sandbox.store.findUser('alice')!;
    const { access_token } = await tokensFor('alice', 'openid profile email');
    const claims = await jsonOf(await info(access_token));
    expect(claims).toMatchObject({
      sub: String(alice.id),
      name: 'Alice Martin',
      nickname: 'alice',
      preferred_username: 'alice',
      email: alice.email,
      email_verified: true,
      profile: `${env.sandbox.url}/alice`,
    });
    expect(claims.picture).toMatch(/^https?:\/\//);
    expect(claims.groups).toContain('acme');

    alice.public_email = '';
    try {
      const { access_token: openidOnly } = await tokensFor('alice', 'openid');
      expect((await jsonOf(await info(openidOnly))).email).toBeNull();
    } finally {
      alice.public_email = alice.email;
    }
  });

  test("revocation: unknown tokens are fine (RFC 7009), another confidential client's tokens are not its to revoke", async () => {
    const { access_token } = await tokensFor('alice', 'api');
    const stranger = await postForm(env.sandbox, '/oauth/revoke', {
      token: access_token,
      client_id: other.uid,
      client_secret: other.secret,
    });
    expect(stranger.status).toBe(403);
    expect(stranger.data.error).toBe('unauthorized_client');
    const anonymous = await postForm(env.sandbox, '/oauth/revoke', { token: access_token });
    expect(anonymous.status).toBe(401);
    expect((await api(env.sandbox, 'GET', '/user', bearer(access_token))).status).toBe(200);
    const unknown = await postForm(env.sandbox, '/oauth/revoke', { token: 'no-such-token', client_id: cli.uid });
    expect(unknown.status).toBe(200);
  });

  test('introspection tells the owning client about its token, and anyone else that it is inactive', async () => {
    const { access_token } = await tokensFor('dave', 'api');
    const own = await postForm(
      env.sandbox,
      '/oauth/introspect',
      { token: access_token },
      { id: portal.uid, secret: portal.secret },
    );
    expect(own.data).toMatchObject({
      active: true,
      scope: 'api',
      client_id: portal.uid,
      username: 'dave',
      token_type: 'Bearer',
    });
    expect(own.data.exp - own.data.iat).toBe(7200);
    const foreign = await postForm(
      env.sandbox,
      '/oauth/introspect',
      { token: access_token },
      { id: other.uid, secret: other.secret },
    );
    expect(foreign.data).toEqual({ active: false });
    const noClient = await postForm(env.sandbox, '/oauth/introspect', { token: access_token });
    expect(noClient.status).toBe(401);
  });

  test('the authorization server metadata names every endpoint and what they support', async () => {
    const response = await fetch(`${env.sandbox.url}/.well-known/oauth-authorization-server`);
    const metadata = await jsonOf(response);
    expect(metadata).toMatchObject({
      issuer: env.sandbox.url,
      authorization_endpoint: `${env.sandbox.url}/oauth/authorize`,
      token_endpoint: `${env.sandbox.url}/oauth/token`,
      device_authorization_endpoint: `${env.sandbox.url}/oauth/authorize_device`,
      code_challenge_methods_supported: ['S256'],
    });
    expect(metadata.scopes_supported).toContain('read_api');
  });
});

describe('the time scale', () => {
  test('a sandbox running ten times faster gives tokens a tenth of the lifetime, and says so', async () => {
    const fast = await startSandbox({
      clock: new ManualClock(),
      jobTimeScale: 0.1,
      applications: [{ name: 'Fast', redirect_uris: [CALLBACK], scopes: ['api'], trusted: true }],
    });
    try {
      const [app] = fast.applications;
      const answer = await codeFlowTokens(fast, { id: app.uid, secret: app.secret }, CALLBACK);
      expect(answer.data.expires_in).toBe(720);
    } finally {
      await fast.close();
    }
  });
});
