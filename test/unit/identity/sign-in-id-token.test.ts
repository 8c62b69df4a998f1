// A sign-in learns who signed in from the code host's ID token when it asked for openid (one request to the code
// host), from GET /api/v4/user otherwise (two); an ID token for someone else's application is refused.
import { createLocalJWKSet, generateKeyPair, type JSONWebKeySet, jwtVerify, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CodeHostOAuth, type CodeHostApplication } from '../../../src/identity/code-host-oauth.js';
import { type Sandbox, startSandbox } from '../../../src/sandbox/server.js';
import { authorizeInBrowser, Browser } from '../sandbox/oauth-browser.js';

const CALLBACK = 'https://forgeops.example/oauth/callback';

let sandbox: Sandbox;
let base: Omit<CodeHostApplication, 'scopes'>;

beforeAll(async () => {
  sandbox = await startSandbox({
    applications: [{ name: 'forgeops', redirect_uris: [CALLBACK], scopes: ['api', 'read_api', 'openid'] }],
  });
  const [app] = sandbox.applications;
  base = { url: sandbox.url, clientId: app.uid, clientSecret: app.secret, redirectUri: CALLBACK };
});
afterAll(() => sandbox.close());

/** forgeops's requests to the code host (the person's browser requests are not among them), and a way to alter them. */
function countingFetch(alter?: (body: Record<string, unknown>) => Promise<Record<string, unknown>>) {
  const paths: string[] = [];
  const counted: typeof fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    paths.push(url.pathname);
    const response = await fetch(input, init);
    if (!alter || url.pathname !== '/oauth/token') return response;
    const body = await alter((await response.json()) as Record<string, unknown>);
    return new Response(JSON.stringify(body), { status: response.status, headers: response.headers });
  };
  return { paths, fetch: counted };
}

async function signInAs(oauth: CodeHostOAuth, username: string) {
  const request = await oauth.authorizationRequest();
  const back = await authorizeInBrowser(new Browser(sandbox), Object.fromEntries(request.url.searchParams), username);
  return oauth.signIn(back, request);
}

/** An ID token as a code host could send it, signed with a key of its own. */
async function idToken(claims: Record<string, unknown>, audience: string): Promise<string> {
  const { privateKey } = await generateKeyPair('RS256');
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256' })
    .setIssuer(sandbox.url)
    .setAudience(audience)
    .setIssuedAt(now)
    .setExpirationTime(now + 120)
    .sign(privateKey);
}

describe('who signed in', () => {
  test('with openid: from the ID token of the code exchange, one request to the code host', async () => {
    const { paths, fetch } = countingFetch();
    const oauth = new CodeHostOAuth({ ...base, scopes: ['api', 'openid'] }, { fetch });
    const { tokens, account } = await signInAs(oauth, 'alice');
    const alice = sandbox.store.users.find((u) => u.username === 'alice')!;
    expect(account).toEqual({ id: alice.id, username: 'alice', name: alice.name });
    expect(tokens.scopes).toEqual(['api', 'openid']);
    expect(paths).toEqual(['/oauth/token']);
  });

  test('without openid: from GET /api/v4/user after the exchange, two requests', async () => {
    const { paths, fetch } = countingFetch();
    const oauth = new CodeHostOAuth({ ...base, scopes: ['api'] }, { fetch });
    expect((await signInAs(oauth, 'bob')).account).toMatchObject({ username: 'bob' });
    expect(paths).toEqual(['/oauth/token', '/api/v4/user']);
  });

  test("the sandbox's ID token is signed with the key it publishes, for this application, with the vendor's claims", async () => {
    let sent = '';
    const { fetch } = countingFetch(async (body) => {
      sent = String(body.id_token);
      return body;
    });
    await signInAs(new CodeHostOAuth({ ...base, scopes: ['api', 'openid'] }, { fetch }), 'alice');
    const discovery = (await (await globalThis.fetch(`${sandbox.url}/.well-known/openid-configuration`)).json()) as {
      jwks_uri: string;
      issuer: string;
    };
    expect(discovery.issuer).toBe(sandbox.url);
    const keys = (await (await globalThis.fetch(discovery.jwks_uri)).json()) as JSONWebKeySet;
    const { payload } = await jwtVerify(sent, createLocalJWKSet(keys), {
      issuer: sandbox.url,
      audience: base.clientId,
    });
    expect(payload).toMatchObject({ nickname: 'alice', preferred_username: 'alice' });
    expect(payload.exp! - payload.iat!).toBe(120);
    expect(payload).not.toHaveProperty('email');
  });

  test('an ID token for another application is refused; one without the username falls back to GET /api/v4/user', async () => {
    const alice = sandbox.store.users.find((u) => u.username === 'alice')!;
    const other = countingFetch(async (body) => ({
      ...body,
      id_token: await idToken({ sub: String(alice.id), nickname: 'alice' }, 'another-application'),
    }));
    const refused = signInAs(
      new CodeHostOAuth({ ...base, scopes: ['api', 'openid'] }, { fetch: other.fetch }),
      'alice',
    );
    await expect(refused).rejects.toMatchObject({ name: 'CodeHostOAuthError' });
    const bare = countingFetch(async (body) => ({
      ...body,
      id_token: await idToken({ sub: String(alice.id) }, base.clientId),
    }));
    const oauth = new CodeHostOAuth({ ...base, scopes: ['api', 'openid'] }, { fetch: bare.fetch });
    expect((await signInAs(oauth, 'alice')).account).toMatchObject({ id: alice.id, username: 'alice' });
    expect(bare.paths).toEqual(['/oauth/token', '/api/v4/user']);
  });

  test('the published key set holds public keys only', async () => {
    const { keys } = (await (await globalThis.fetch(`${sandbox.url}/oauth/discovery/keys`)).json()) as {
      keys: Record<string, unknown>[];
    };
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    for (const privatePart of ['d', 'p', 'q', 'dp', 'dq', 'qi']) expect(keys[0]).not.toHaveProperty(privatePart);
  });
});
