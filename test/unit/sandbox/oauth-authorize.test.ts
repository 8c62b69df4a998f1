// The OAuth provider's browser side, driven as a browser would: sign-in and consent pages, the session cookie,
// errors shown on the page or sent back to the client, and forged forms.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ManualClock } from '../../../src/sandbox/core/clock.js';
import { type Sandbox, startSandbox } from '../../../src/sandbox/server.js';
import { authorizeInBrowser, authorizeUrl, Browser, formOf, pkcePair, signInFrom } from './oauth-browser.js';

const WEB_CALLBACK = 'https://review.example/oauth/callback';
const CLI_CALLBACK = 'http://127.0.0.1/callback';

let sandbox: Sandbox;
let web: Sandbox['applications'][number];
let cli: Sandbox['applications'][number];
let trusted: Sandbox['applications'][number];

beforeAll(async () => {
  sandbox = await startSandbox({
    clock: new ManualClock(),
    applications: [
      // A name with markup: every page must show it as text.
      {
        name: 'Review <b>Bot</b>',
        redirect_uris: [WEB_CALLBACK, 'https://review.example/second'],
        scopes: ['api', 'read_user'],
      },
      { name: 'Terminal', redirect_uris: [CLI_CALLBACK], scopes: ['api', 'read_api'], confidential: false },
      { name: 'Company portal', redirect_uris: [WEB_CALLBACK], scopes: ['read_user'], trusted: true },
    ],
  });
  [web, cli, trusted] = sandbox.applications;
});
afterAll(() => sandbox.close());

function codeRequest(app: { uid: string }, extra: Record<string, string | undefined> = {}) {
  return authorizeUrl({
    client_id: app.uid,
    redirect_uri: WEB_CALLBACK,
    response_type: 'code',
    state: 'xyz-state',
    scope: 'api',
    code_challenge: pkcePair().challenge,
    code_challenge_method: 'S256',
    ...extra,
  });
}

describe('signing in and consenting', () => {
  test('a signed-out browser signs in, consents to the named application and scopes, and gets a code with its state', async () => {
    const browser = new Browser(sandbox);
    const signInPage = await browser.open(codeRequest(web, { scope: 'api read_user' }));
    expect(signInPage.url).toBe(`${sandbox.url}/users/sign_in`);
    expect(signInPage.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = signInPage.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    // The session cookie is for the server only and does not ride along on cross-site posts.
    const session = browser.setCookies.find((c) => c.startsWith('_gitlab_session='));
    expect(session).toMatch(/; HttpOnly/);
    expect(session).toMatch(/; SameSite=Lax/);

    const consent = await signInFrom(browser, signInPage, 'alice');
    expect(consent.status).toBe(200);
    expect(consent.url).toContain('/oauth/authorize?');
    expect(consent.html).toContain('Authorize Review &lt;b&gt;Bot&lt;/b&gt; to use your account?');
    expect(consent.html).not.toContain('<b>Bot</b>');
    expect(consent.html).toContain('<code>api</code>');
    expect(consent.html).toContain('<code>read_user</code>');
    expect(consent.html).toContain('Alice Martin');
    // The browser may follow the consent form's redirect to the client, and nowhere else.
    expect(consent.headers.get('content-security-policy')).toContain("form-action 'self' https://review.example");
    expect(formOf(consent).decisions).toEqual(['authorize', 'deny']);

    const back = await browser.submit(formOf(consent), { decision: 'authorize' });
    expect(back.status).toBe(302);
    expect(`${back.leftTo?.origin}${back.leftTo?.pathname}`).toBe(WEB_CALLBACK);
    expect(back.leftTo?.searchParams.get('state')).toBe('xyz-state');
    expect(back.leftTo?.searchParams.get('code')).toMatch(/^[0-9a-f]{64}$/);
  });

  test('a wrong password shows the sign-in page again with the reason, and signs nobody in', async () => {
    const browser = new Browser(sandbox);
    const page = await browser.open(codeRequest(web));
    const wrong = await signInFrom(browser, page, 'alice', 'not-her-password');
    expect(wrong.status).toBe(401);
    expect(wrong.html).toContain('Invalid login or password.');
    const unknown = await signInFrom(browser, wrong, 'nobody-here', 'whatever-password');
    expect(unknown.status).toBe(401);
    const again = await browser.open(codeRequest(web));
    expect(again.url).toBe(`${sandbox.url}/users/sign_in`);
  });

  test('a blocked account cannot sign in, even with its password', async () => {
    const erin = sandbox.store.users.find((u) => u.username === 'erin')!;
    erin.state = 'blocked';
    try {
      const browser = new Browser(sandbox);
      const refused = await signInFrom(browser, await browser.open(codeRequest(web)), 'erin');
      expect(refused.status).toBe(403);
      expect(refused.html).toContain('Your account has been blocked');
    } finally {
      erin.state = 'active';
    }
  });

  test('a second authorization skips the password; a trusted application skips the consent page too', async () => {
    const browser = new Browser(sandbox);
    await authorizeInBrowser(browser, { client_id: web.uid, redirect_uri: WEB_CALLBACK, scope: 'api' }, 'bob');
    const second = await browser.open(codeRequest(web, { scope: 'read_user' }));
    expect(second.url).toContain('/oauth/authorize?');
    expect(second.html).toContain('Bob Chen');
    expect(formOf(second).decisions).toEqual(['authorize', 'deny']);

    const portal = await browser.open(codeRequest(trusted, { scope: 'read_user' }));
    expect(portal.status).toBe(302);
    expect(portal.leftTo?.searchParams.get('code')).toMatch(/^[0-9a-f]{64}$/);
  });

  test('Deny sends the browser back with access_denied and the state, and no code', async () => {
    const browser = new Browser(sandbox);
    const consent = await signInFrom(browser, await browser.open(codeRequest(web)), 'carol');
    const back = await browser.submit(formOf(consent), { decision: 'deny' });
    expect(back.leftTo?.searchParams.get('error')).toBe('access_denied');
    expect(back.leftTo?.searchParams.get('state')).toBe('xyz-state');
    expect(back.leftTo?.searchParams.has('code')).toBe(false);
  });

  test('signing out ends the session: the next authorization asks for the password again', async () => {
    const browser = new Browser(sandbox);
    await signInFrom(browser, await browser.open('/users/sign_in'), 'dave');
    const signedIn = await browser.open('/users/sign_in');
    expect(signedIn.html).toContain('You are signed in as');
    const out = await browser.submit(formOf(signedIn));
    expect(out.html).toContain('You have been signed out.');
    expect((await browser.open(codeRequest(web))).url).toBe(`${sandbox.url}/users/sign_in`);
  });
});

describe('errors', () => {
  test.each([
    ['an unknown client', { client_id: 'no-such-client' }, 401, 'invalid_client'],
    ['no client', { client_id: undefined }, 400, 'Missing required parameter: client_id.'],
    [
      'an unregistered redirect URI',
      { redirect_uri: 'https://evil.example/oauth/callback' },
      400,
      'invalid_redirect_uri',
    ],
    ['a longer redirect URI', { redirect_uri: `${WEB_CALLBACK}/more` }, 400, 'invalid_redirect_uri'],
    ['a redirect URI with a query added', { redirect_uri: `${WEB_CALLBACK}?next=x` }, 400, 'invalid_redirect_uri'],
    ['no redirect URI', { redirect_uri: undefined }, 400, 'invalid_redirect_uri'],
  ])('%s is shown on the page, never redirected', async (_name, change, status, words) => {
    const browser = new Browser(sandbox);
    const page = await browser.open(codeRequest(web, change));
    expect(page.status).toBe(status);
    expect(page.leftTo).toBeUndefined();
    expect(page.headers.get('location')).toBeNull();
    expect(page.html).toContain(words);
  });

  test('the second registered redirect URI is accepted exactly', async () => {
    const browser = new Browser(sandbox);
    const back = await authorizeInBrowser(browser, {
      client_id: web.uid,
      redirect_uri: 'https://review.example/second',
      scope: 'api',
    });
    expect(`${back.origin}${back.pathname}`).toBe('https://review.example/second');
    expect(back.searchParams.get('code')).toBeTruthy();
  });

  test.each([
    ['an unsupported response type', { response_type: 'token' }, 'unsupported_response_type'],
    ['a scope the application was not given', { scope: 'api read_repository' }, 'invalid_scope'],
    ['an unknown scope', { scope: 'sudo' }, 'invalid_scope'],
    ['the plain PKCE method', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['a challenge without a method (plain)', { code_challenge_method: undefined }, 'invalid_request'],
    ['a malformed challenge', { code_challenge: 'short' }, 'invalid_request'],
  ])('%s goes back to the client with error= and state=', async (_name, change, error) => {
    const browser = new Browser(sandbox);
    const page = await browser.open(codeRequest(web, change));
    expect(page.status).toBe(302);
    expect(page.leftTo?.origin).toBe('https://review.example');
    expect(page.leftTo?.searchParams.get('error')).toBe(error);
    expect(page.leftTo?.searchParams.get('error_description')).toBeTruthy();
    expect(page.leftTo?.searchParams.get('state')).toBe('xyz-state');
    expect(page.leftTo?.searchParams.has('code')).toBe(false);
  });

  test('a public client without PKCE is sent back with invalid_request; a confidential one may go without', async () => {
    const browser = new Browser(sandbox);
    const noPkce = { code_challenge: undefined, code_challenge_method: undefined };
    const page = await browser.open(codeRequest(cli, { ...noPkce, redirect_uri: CLI_CALLBACK }));
    expect(page.leftTo?.searchParams.get('error')).toBe('invalid_request');
    expect(page.leftTo?.searchParams.get('error_description')).toBe('Missing required parameter: code_challenge.');
    const confidential = await authorizeInBrowser(browser, {
      client_id: web.uid,
      redirect_uri: WEB_CALLBACK,
      ...noPkce,
    });
    expect(confidential.searchParams.get('code')).toBeTruthy();
  });

  test('a loopback IP redirect URI matches on any port (RFC 8252 §7.3); localhost and other paths do not', async () => {
    const browser = new Browser(sandbox);
    const challenge = pkcePair().challenge;
    const request = (redirect_uri: string) =>
      codeRequest(cli, { redirect_uri, scope: 'read_api', code_challenge: challenge });
    const back = await authorizeInBrowser(browser, {
      client_id: cli.uid,
      redirect_uri: 'http://127.0.0.1:53124/callback',
      scope: 'read_api',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    expect(back.href).toMatch(/^http:\/\/127\.0\.0\.1:53124\/callback\?code=/);
    for (const wrong of [
      'http://localhost:53124/callback',
      'http://127.0.0.1:53124/other',
      'https://127.0.0.1/callback',
    ]) {
      const page = await browser.open(request(wrong));
      expect(page.status).toBe(400);
      expect(page.leftTo).toBeUndefined();
    }
  });
});

describe('forged forms', () => {
  async function consentPageFor(browser: Browser, username: string) {
    const page = await browser.open(codeRequest(web));
    const consent = page.url.endsWith('/users/sign_in') ? await signInFrom(browser, page, username) : page;
    expect(formOf(consent).decisions).toContain('authorize');
    return consent;
  }

  test.each([
    ['a forged token', { authenticity_token: 'f'.repeat(64) }],
    ['no token', { authenticity_token: '' }],
  ])('the consent form with %s is rejected with 422 and no code', async (_name, fields) => {
    const browser = new Browser(sandbox);
    const consent = await consentPageFor(browser, 'alice');
    const rejected = await browser.submit(formOf(consent), { ...fields, decision: 'authorize' });
    expect(rejected.status).toBe(422);
    expect(rejected.leftTo).toBeUndefined();
    expect(rejected.html).toContain('authenticity token');
  });

  test("another browser's consent token is worthless, and a token works once", async () => {
    const victim = new Browser(sandbox);
    const attacker = new Browser(sandbox);
    const attackerConsent = await consentPageFor(attacker, 'erin');
    await consentPageFor(victim, 'alice');
    // The attacker makes the victim's browser post the attacker's own form.
    const forged = await victim.submit(formOf(attackerConsent), { decision: 'authorize' });
    expect(forged.status).toBe(422);

    const consent = await consentPageFor(victim, 'alice');
    const first = await victim.submit(formOf(consent), { decision: 'authorize' });
    expect(first.leftTo?.searchParams.get('code')).toBeTruthy();
    const replay = await victim.submit(formOf(consent), { decision: 'authorize' });
    expect(replay.status).toBe(422);
  });

  test('the sign-in form is refused without the token its page carried', async () => {
    const browser = new Browser(sandbox);
    const page = await browser.open('/users/sign_in');
    const rejected = await browser.submit(formOf(page), {
      authenticity_token: 'forged',
      username: 'alice',
      password: 'alice-sandbox-password',
    });
    expect(rejected.status).toBe(422);
    // A browser with no session at all (a cross-site post) is refused too.
    const stranger = new Browser(sandbox);
    const cold = await stranger.submit(formOf(page), { username: 'alice', password: 'alice-sandbox-password' });
    expect(cold.status).toBe(422);
  });

  test('signing in gives the browser a new session id', async () => {
    const browser = new Browser(sandbox);
    const page = await browser.open('/users/sign_in');
    const before = browser.cookies.get('_gitlab_session');
    await signInFrom(browser, page, 'alice');
    expect(browser.cookies.get('_gitlab_session')).toMatch(/^[0-9a-f]{64}$/);
    expect(browser.cookies.get('_gitlab_session')).not.toBe(before);
  });
});
