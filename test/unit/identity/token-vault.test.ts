// The code-host sign-in core against the sandbox's OAuth provider: the code flow with PKCE and state, the vault's
// encryption bound to the person, refresh near expiry (once across two replicas sharing a store), a revoked grant,
// and sign-out revoking at the code host.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CodeHostOAuth, CodeHostOAuthError, type CodeHostApplication } from '../../../src/identity/code-host-oauth.js';
import { TokenVault, personKey } from '../../../src/identity/token-vault.js';
import { ManualClock } from '../../../src/sandbox/core/clock.js';
import { type Sandbox, startSandbox } from '../../../src/sandbox/server.js';
import { MemoryStore } from '../../../src/state/store.js';
import { authorizeInBrowser, Browser } from '../sandbox/oauth-browser.js';

const CALLBACK = 'https://forgeops.example/oauth/callback';
const SECRET = 'x'.repeat(40);
const TWO_HOURS = 2 * 3600 * 1000;

let sandbox: Sandbox;
let clock: ManualClock;
let application: CodeHostApplication;

beforeAll(async () => {
  clock = new ManualClock();
  sandbox = await startSandbox({
    clock,
    applications: [{ name: 'forgeops', redirect_uris: [CALLBACK], scopes: ['api', 'read_api', 'read_user'] }],
  });
  const [app] = sandbox.applications;
  application = {
    url: sandbox.url,
    clientId: app.uid,
    clientSecret: app.secret,
    redirectUri: CALLBACK,
    scopes: ['api'],
  };
});
afterAll(() => sandbox.close());

/** The sandbox's clock for the vault too, so that "two hours later" is the same moment on both sides. */
const now = () => clock.now();

async function signIn(oauth: CodeHostOAuth, username: string) {
  const request = await oauth.authorizationRequest();
  const params = Object.fromEntries(request.url.searchParams);
  const back = await authorizeInBrowser(new Browser(sandbox), params, username);
  return { back, request };
}

async function apiUser(token: string): Promise<{ status: number; username?: string }> {
  const response = await fetch(`${sandbox.url}/api/v4/user`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, username: response.ok ? ((await response.json()) as any).username : undefined };
}

describe('the code flow', () => {
  test('a sign-in with PKCE and state gives a pair that acts as the person who signed in', async () => {
    const oauth = new CodeHostOAuth(application, { now });
    const { back, request } = await signIn(oauth, 'alice');
    expect(request.url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(request.url.searchParams.get('code_challenge')).not.toBe(request.codeVerifier);
    const tokens = await oauth.exchangeCode(back, request);
    expect(tokens.scopes).toEqual(['api']);
    expect(tokens.refreshToken).toBeTruthy();
    expect(tokens.expiresAt - now()).toBeGreaterThan(TWO_HOURS - 60_000);
    expect(await oauth.account(tokens.accessToken)).toMatchObject({ username: 'alice' });
  });

  test('a forged state, a wrong verifier and a replayed code are refused', async () => {
    const oauth = new CodeHostOAuth(application, { now });
    const { back, request } = await signIn(oauth, 'alice');
    await expect(oauth.exchangeCode(back, { ...request, state: 'forged' })).rejects.toBeInstanceOf(CodeHostOAuthError);
    const wrongVerifier = oauth.exchangeCode(back, { ...request, codeVerifier: 'a'.repeat(43) });
    await expect(wrongVerifier).rejects.toMatchObject({ error: 'invalid_grant' });
    const tokens = await oauth.exchangeCode(back, request);
    expect(tokens.accessToken).toBeTruthy();
    // A code is good once: replayed, it is refused (and the sandbox revokes what it gave, as the vendor does).
    await expect(oauth.exchangeCode(back, request)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  test('a person who refuses consent comes back with access_denied, said as such', async () => {
    const oauth = new CodeHostOAuth(application, { now });
    const request = await oauth.authorizationRequest();
    const denied = new URL(CALLBACK);
    denied.searchParams.set('error', 'access_denied');
    denied.searchParams.set('state', request.state);
    await expect(oauth.exchangeCode(denied, request)).rejects.toMatchObject({ error: 'access_denied' });
  });
});

describe('the vault', () => {
  async function signedInVault(username: string, store = new MemoryStore({ now })) {
    const oauth = new CodeHostOAuth(application, { now });
    const { back, request } = await signIn(oauth, username);
    const tokens = await oauth.exchangeCode(back, request);
    const account = await oauth.account(tokens.accessToken);
    const vault = new TokenVault({ store, secret: SECRET, oauth, now });
    await vault.save(personKey(account), tokens, account);
    return { vault, store, oauth, tokens, person: personKey(account), account };
  }

  test('keeps tokens encrypted and bound to the person: a box moved to another person does not open', async () => {
    const { vault, store, tokens, person } = await signedInVault('bob');
    const raw = JSON.stringify(await store.get(`identity:codehost-tokens:${person}`));
    expect(raw).not.toContain(tokens.accessToken);
    expect(raw).not.toContain(tokens.refreshToken);
    expect(await vault.accessToken(person)).toBe(tokens.accessToken);
    await store.set(
      'identity:codehost-tokens:codehost-user:999',
      await store.get(`identity:codehost-tokens:${person}`),
    );
    expect(await vault.accessToken('codehost-user:999')).toBeUndefined();
    // A vault with another secret cannot open it either.
    const other = new TokenVault({ store, secret: 'y'.repeat(40), oauth: new CodeHostOAuth(application), now });
    expect(await other.accessToken(person)).toBeUndefined();
  });

  test('refreshes an expiring token once for two replicas racing, and both use the new pair', async () => {
    const store = new MemoryStore({ now });
    const { oauth, tokens, person } = await signedInVault('carol', store);
    let refreshes = 0;
    const counting = new CodeHostOAuth(application, {
      now,
      fetch: (url, init) => {
        if (String(url).endsWith('/oauth/token')) refreshes++;
        return fetch(url, init);
      },
    });
    const second = new TokenVault({ store, secret: SECRET, oauth: counting, now });
    const first = new TokenVault({ store, secret: SECRET, oauth: counting, now });
    const third = new TokenVault({ store, secret: SECRET, oauth: counting, now });
    clock.advance(TWO_HOURS - 30_000); // inside the refresh margin
    const [a, b, c] = await Promise.all([
      first.accessToken(person),
      second.accessToken(person),
      third.accessToken(person),
    ]);
    expect(refreshes).toBe(1);
    expect(a).toBeTruthy();
    expect(a).not.toBe(tokens.accessToken);
    expect(b).toBe(a);
    expect(c).toBe(a);
    expect(await apiUser(a as string)).toEqual({ status: 200, username: 'carol' });
    // The old pair is dead at the code host: had two replicas each refreshed, one would hold a dead pair.
    expect((await apiUser(tokens.accessToken)).status).toBe(401);
    await expect(oauth.refresh(tokens.refreshToken as string)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  test('a grant revoked at the code host means signing in again, and the record goes', async () => {
    const { vault, oauth, tokens, person } = await signedInVault('dave');
    await oauth.revoke(tokens.refreshToken as string);
    clock.advance(TWO_HOURS);
    expect(await vault.accessToken(person)).toBeUndefined();
    expect(await vault.account(person)).toBeUndefined();
  });

  test('a token the API rejects is refreshed once; a second report of the same token gets the new one', async () => {
    const { vault, tokens, person } = await signedInVault('erin');
    const renewed = await vault.afterRejection(person, tokens.accessToken);
    expect(renewed).toBeTruthy();
    expect(renewed).not.toBe(tokens.accessToken);
    expect(await vault.afterRejection(person, tokens.accessToken)).toBe(renewed);
  });

  test('sign-out revokes at the code host and forgets the person', async () => {
    const { vault, tokens, person, account } = await signedInVault('alice');
    expect(await vault.account(person)).toEqual(account);
    expect(await vault.signOut(person)).toEqual({ signedIn: true, revoked: true });
    expect((await apiUser(tokens.accessToken)).status).toBe(401);
    expect(await vault.accessToken(person)).toBeUndefined();
    expect(await vault.signOut(person)).toEqual({ signedIn: false, revoked: true });
  });
});
