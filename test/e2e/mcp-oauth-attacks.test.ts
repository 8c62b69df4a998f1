// The sign-in's attacks, each on its own: consent skipped (forgeops's callback or the code host reached directly),
// a consent posted from another browser, a changed redirect URI, a replayed code, a wrong PKCE verifier and a forged
// state. Against `forgeops serve` in OAuth mode on the embedded sandbox; the person's browser is driven with fetch.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formsOf, metaRefresh, OAuthBrowser, signInAsPerson } from '../helpers/oauth-browser.js';
import {
  authorizeUrl,
  listWith,
  type OAuthServe,
  pkcePair,
  registerClient,
  startOAuthServe,
  tokenRequest,
  pkceAuthorizeUrl,
} from '../helpers/oauth-serve.js';

const REDIRECT = 'http://127.0.0.1:1/host/callback';
let serve: OAuthServe;
let clientId: string;

beforeAll(async () => {
  serve = await startOAuthServe();
  clientId = await registerClient(serve.base, REDIRECT);
});
afterAll(() => serve?.stop());

/** A sign-in as far as the client's redirect: its code, the PKCE pair and the browser that did it. */
async function codeFor(username: string) {
  const pkce = pkcePair();
  const browser = new OAuthBrowser();
  const back = await signInAsPerson(
    browser,
    pkceAuthorizeUrl(serve.base, clientId, REDIRECT, pkce.challenge, { state: 'host-state', scope: 'api' }),
    REDIRECT,
    { username },
  );
  expect(back.searchParams.get('state')).toBe('host-state');
  expect(back.searchParams.get('iss')).toBe(serve.base);
  return { code: back.searchParams.get('code')!, pkce, browser };
}

/** The client's redemption of `code` at forgeops's token endpoint, with this verifier and redirect URI. */
function redeemCode(code: string, verifier: string, redirectUri = REDIRECT) {
  return tokenRequest(serve.base, {
    grant_type: 'authorization_code',
    client_id: clientId,
    code,
    code_verifier: verifier,
    redirect_uri: redirectUri,
  });
}

describe('consent cannot be skipped', () => {
  it("refuses the code host's answer at forgeops's callback when no consent started it", async () => {
    const page = await new OAuthBrowser().fetch(`${serve.base}/oauth/callback?code=anything&state=made-up`);
    expect(page.status).toBe(400);
    expect(page.html).toContain('Sign-in not started here');
    expect(metaRefresh(page.html)).toBeUndefined();
    expect(page.headers.get('location')).toBeNull();
  });

  it("refuses a code the code host gave for forgeops's application when the person was sent there directly", async () => {
    // An attacker's link straight to the code host with forgeops's client id and callback: the code host's own consent
    // for forgeops (or an earlier one) is all it takes there, and forgeops's consent naming the client is skipped.
    const pkce = pkcePair();
    const direct = new URL(`${serve.sandboxUrl}/oauth/authorize`);
    for (const [name, value] of Object.entries({
      client_id: 'forgeops-sandbox',
      redirect_uri: `${serve.base}/oauth/callback`,
      response_type: 'code',
      state: 'attacker-state',
      scope: 'api',
      code_challenge: pkce.challenge,
      code_challenge_method: 'S256',
    }))
      direct.searchParams.set(name, value);
    const browser = new OAuthBrowser();
    let page = await browser.open(direct, 'http://never.example/');
    page = await browser.submit(page, 'http://never.example/', {
      username: 'bob',
      password: 'bob-sandbox-password',
    });
    if (formsOf(page.html).some((f) => f.decisions.includes('authorize'))) {
      page = await browser.submit(page, 'http://never.example/', { decision: 'authorize' });
    }
    // The code host did send the browser to forgeops's callback with a code; forgeops refuses it.
    expect(browser.visited.some((url) => url.startsWith(`${serve.base}/oauth/callback?code=`))).toBe(true);
    expect(page.url.startsWith(`${serve.base}/oauth/callback`)).toBe(true);
    expect(page.status).toBe(400);
    expect(page.html).toContain('Sign-in not started here');
    expect(metaRefresh(page.html)).toBeUndefined();
  });

  it('refuses a consent posted from another browser (a cross-site form carrying the pending request)', async () => {
    const pkce = pkcePair();
    const attacker = new OAuthBrowser();
    const consentPage = await attacker.fetch(pkceAuthorizeUrl(serve.base, clientId, REDIRECT, pkce.challenge));
    expect(consentPage.status).toBe(200);
    expect(consentPage.html).toContain('Manual host');
    expect(consentPage.html).toContain(REDIRECT);
    const [form] = formsOf(consentPage.html).filter((f) => f.action === '/oauth/consent');
    // The victim's browser (no cookie of that consent) posts it.
    const victim = new OAuthBrowser();
    const posted = await victim.fetch(`${serve.base}/oauth/consent`, {
      method: 'POST',
      form: { ...form.fields, decision: 'allow' },
    });
    expect(posted.status).toBe(403);
    expect(metaRefresh(posted.html)).toBeUndefined();
  });
});

describe('the authorization request and the code', () => {
  it("shows a client's name as text on a consent page that may not be framed, scripted or posted elsewhere", async () => {
    const sneaky = await registerClient(serve.base, REDIRECT, '<img src=x onerror=alert(1)>Trusted "Bank"');
    const page = await new OAuthBrowser().fetch(pkceAuthorizeUrl(serve.base, sneaky, REDIRECT, pkcePair().challenge));
    expect(page.status).toBe(200);
    expect(page.html).toContain('&lt;img src=x onerror=alert(1)&gt;Trusted &quot;Bank&quot;');
    expect(page.html).not.toContain('<img');
    expect(page.html).toContain('has not verified it');
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('set-cookie')).toMatch(/HttpOnly; SameSite=Lax/);
  });

  it('sends a request without PKCE S256 back to the client as invalid_request, with its state and iss', async () => {
    const browser = new OAuthBrowser();
    const page = await browser.fetch(
      authorizeUrl(serve.base, {
        client_id: clientId,
        redirect_uri: REDIRECT,
        response_type: 'code',
        state: 'st-1',
        code_challenge: 'plain-challenge',
        code_challenge_method: 'plain',
      }),
    );
    const back = new URL(metaRefresh(page.html)!);
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect(back.searchParams.get('error')).toBe('invalid_request');
    expect(back.searchParams.get('error_description')).toContain('S256');
    expect(back.searchParams.get('state')).toBe('st-1');
    expect(back.searchParams.get('iss')).toBe(serve.base);
  });

  it('refuses a redirect URI the client did not register, on the page, never sending the browser there', async () => {
    const page = await new OAuthBrowser().fetch(
      pkceAuthorizeUrl(serve.base, clientId, 'https://attacker.example/steal', pkcePair().challenge),
    );
    expect(page.status).toBe(400);
    expect(page.html).toContain('is not one the client registered');
    expect(page.html).not.toContain('<form');
    expect(metaRefresh(page.html)).toBeUndefined();
  });

  it('refuses a code redeemed with another redirect URI than its request had', async () => {
    const { code, pkce } = await codeFor('bob');
    const answer = await redeemCode(code, pkce.verifier, 'http://127.0.0.1:1/other/callback');
    expect(answer.status).toBe(400);
    expect(answer.data).toMatchObject({ error: 'invalid_grant' });
    expect(answer.data.error_description).toContain('redirect_uri');
  });

  it('refuses a wrong PKCE verifier, and the code is spent for the right one too', async () => {
    const { code, pkce } = await codeFor('bob');
    const wrong = await redeemCode(code, pkcePair().verifier);
    expect(wrong.status).toBe(400);
    expect(wrong.data).toMatchObject({ error: 'invalid_grant' });
    expect(wrong.data.error_description).toContain('code_verifier');
    const after = await redeemCode(code, pkce.verifier);
    expect(after.status).toBe(400);
  });

  it('a replayed code is refused and takes back the tokens its first redemption gave', async () => {
    const { code, pkce } = await codeFor('carol');
    const redeem = () => redeemCode(code, pkce.verifier);
    const first = await redeem();
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('no-store');
    expect((await listWith(serve.mcpUrl, first.data.access_token)).status).toBe(200);
    const replay = await redeem();
    expect(replay.status).toBe(400);
    expect(replay.data).toMatchObject({ error: 'invalid_grant' });
    const after = await listWith(serve.mcpUrl, first.data.access_token);
    expect(after.status).toBe(401);
    expect(after.challenge).toContain('error="invalid_token"');
  });

  it("refuses a forged state at forgeops's callback, even from the browser that consented", async () => {
    const pkce = pkcePair();
    const browser = new OAuthBrowser();
    const consentPage = await browser.open(pkceAuthorizeUrl(serve.base, clientId, REDIRECT, pkce.challenge), REDIRECT);
    // The person consents; the browser is on its way to the code host with forgeops's state.
    const onward = await browser.fetch(`${serve.base}/oauth/consent`, {
      method: 'POST',
      form: { ...formsOf(consentPage.html).find((f) => f.action === '/oauth/consent')!.fields, decision: 'allow' },
    });
    const toCodeHost = new URL(metaRefresh(onward.html)!);
    expect(toCodeHost.origin).toBe(new URL(serve.sandboxUrl).origin);
    expect(toCodeHost.searchParams.get('state')).toBeTruthy();
    // An answer with another state (an attacker's code injected into this browser's sign-in) is refused.
    const forged = await browser.fetch(`${serve.base}/oauth/callback?code=injected&state=forged-state`);
    expect(forged.status).toBe(400);
    expect(metaRefresh(forged.html)).toBeUndefined();
  });
});

describe('what a stranger can create is capped', () => {
  // Last in this file: it fills this address's share of waiting consents for ten minutes.
  it('one address may keep at most 30 consents waiting; the next is sent back temporarily_unavailable', async () => {
    let refusedAt: URL | undefined;
    let opened = 0;
    for (let i = 0; i < 31 && !refusedAt; i++) {
      const page = await new OAuthBrowser().fetch(
        pkceAuthorizeUrl(serve.base, clientId, REDIRECT, pkcePair().challenge, { state: `flood-${i}` }),
      );
      const onward = metaRefresh(page.html);
      if (onward) refusedAt = new URL(onward);
      else opened += 1;
    }
    expect(refusedAt?.searchParams.get('error')).toBe('temporarily_unavailable');
    expect(refusedAt?.searchParams.get('error_description')).toContain('at most 30 sign-ins');
    expect(opened).toBeGreaterThan(0);
    expect(opened).toBeLessThanOrEqual(30);
  });
});
