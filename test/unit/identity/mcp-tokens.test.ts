// forgeops's own tokens for MCP clients: codes redeemed once with PKCE and the exact redirect URI, access tokens bound
// to the resource and refused once expired, altered, of another audience or revoked, refresh tokens that rotate.
import { createHash, randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  ACCESS_TOKEN_TTL_S,
  type CodeRecord,
  McpTokens,
  parseScopes,
  pkceMatches,
} from '../../../src/identity/mcp-tokens.js';
import { OAuthError } from '../../../src/identity/oauth-http.js';
import { MemoryStore } from '../../../src/state/store.js';
import { rejectionOf } from '../../helpers/rejection.js';

const SECRET = 'unit-test-secret-0123456789abcdef0123';
const ISSUER = 'https://forgeops.example';
const RESOURCE = `${ISSUER}/mcp`;

let now: number;
let store: MemoryStore;
let tokens: McpTokens;

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

function record(challenge: string, extra: Partial<CodeRecord> = {}): CodeRecord {
  return {
    clientId: 'client-1',
    redirectUri: 'http://127.0.0.1:9/cb',
    codeChallenge: challenge,
    scopes: ['api'],
    person: 'codehost-user:7',
    resource: RESOURCE,
    ...extra,
  };
}

async function signedIn(extra: Partial<CodeRecord> = {}) {
  const pair = pkce();
  const code = await tokens.issueCode(record(pair.challenge, extra));
  return tokens.redeemCode(code, {
    clientId: 'client-1',
    redirectUri: 'http://127.0.0.1:9/cb',
    codeVerifier: pair.verifier,
  });
}

const refusal = (promise: Promise<unknown>) => rejectionOf(promise, OAuthError);

beforeEach(() => {
  now = Date.UTC(2026, 11, 6, 12);
  store = new MemoryStore({ now: () => now });
  tokens = new McpTokens({ store, secret: SECRET, issuer: () => ISSUER, resource: () => RESOURCE, now: () => now });
});

describe('codes', () => {
  it('redeems a code once for an access token naming the person, the resource and the scopes', async () => {
    const answer = await signedIn();
    expect(answer).toMatchObject({ token_type: 'Bearer', expires_in: ACCESS_TOKEN_TTL_S, scope: 'api' });
    const checked = await tokens.verify(answer.access_token);
    expect(checked).toMatchObject({
      ok: true,
      principal: { person: 'codehost-user:7', clientId: 'client-1', scopes: ['api'] },
    });
  });

  it('refuses another client, another redirect URI, a missing or wrong verifier and a lapsed code', async () => {
    const pair = pkce();
    const cases: Array<[Parameters<McpTokens['redeemCode']>[1], string]> = [
      [
        { clientId: 'client-2', redirectUri: 'http://127.0.0.1:9/cb', codeVerifier: pair.verifier },
        'another client_id',
      ],
      [{ clientId: 'client-1', redirectUri: 'http://127.0.0.1:9/other', codeVerifier: pair.verifier }, 'redirect_uri'],
      [{ clientId: 'client-1', redirectUri: 'http://127.0.0.1:9/cb' }, 'code_verifier is required'],
      [{ clientId: 'client-1', redirectUri: 'http://127.0.0.1:9/cb', codeVerifier: pkce().verifier }, 'does not match'],
    ];
    for (const [request, words] of cases) {
      const code = await tokens.issueCode(record(pair.challenge));
      const error = await refusal(tokens.redeemCode(code, request));
      expect(error.message).toContain(words);
    }
    const code = await tokens.issueCode(record(pair.challenge));
    now += 61_000;
    const lapsed = await refusal(
      tokens.redeemCode(code, {
        clientId: 'client-1',
        redirectUri: 'http://127.0.0.1:9/cb',
        codeVerifier: pair.verifier,
      }),
    );
    expect(lapsed.error).toBe('invalid_grant');
  });

  it('checks the PKCE verifier as RFC 7636 writes it (the appendix B example), and its form first', () => {
    expect(
      pkceMatches('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'),
    ).toBe(true);
    expect(pkceMatches('short', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM')).toBe(false);
  });
});

describe('access tokens', () => {
  it('are refused once expired, altered, of another resource or issuer, or revoked', async () => {
    const answer = await signedIn();
    const [head, body, signature] = answer.access_token.split('.');
    const altered = `${head}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), scope: 'api', sub: 'codehost-user:1' })).toString('base64url')}.${signature}`;
    expect(await tokens.verify(altered)).toMatchObject({
      ok: false,
      why: 'the access token is not one forgeops issued',
    });

    const elsewhere = new McpTokens({
      store,
      secret: SECRET,
      issuer: () => ISSUER,
      resource: () => 'https://other.example/mcp',
      now: () => now,
    });
    const pair = pkce();
    const code = await elsewhere.issueCode(record(pair.challenge, { resource: 'https://other.example/mcp' }));
    const foreign = await elsewhere.redeemCode(code, {
      clientId: 'client-1',
      redirectUri: 'http://127.0.0.1:9/cb',
      codeVerifier: pair.verifier,
    });
    expect(await tokens.verify(foreign.access_token)).toMatchObject({
      ok: false,
      why: expect.stringContaining('another resource'),
    });

    // Signed with another key (an outsider's, or another deployment's): not ours.
    const outsider = await new SignJWT({ sid: 'x', scope: 'api' })
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
      .setIssuer(ISSUER)
      .setAudience(RESOURCE)
      .setSubject('codehost-user:7')
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('another-secret-of-32-characters-or-more'));
    expect(await tokens.verify(outsider)).toMatchObject({ ok: false });

    // Verified once (and remembered, as every request of a session brings it again), it still expires on time.
    expect(await tokens.verify(answer.access_token)).toMatchObject({ ok: true });
    now += ACCESS_TOKEN_TTL_S * 1000 - 1;
    expect(await tokens.verify(answer.access_token)).toMatchObject({ ok: true });
    now += 1;
    expect(await tokens.verify(answer.access_token)).toMatchObject({ ok: false, why: 'the access token expired' });
  });

  it('stop working from the next request on once their grant is revoked', async () => {
    const answer = await signedIn();
    const found = await tokens.grantOf(answer.refresh_token);
    expect(found?.person).toBe('codehost-user:7');
    // Verified (and remembered) before the revocation: the grant is read again on the next request all the same.
    expect(await tokens.verify(answer.access_token)).toMatchObject({ ok: true });
    await tokens.revokeGrant(found!.grant);
    expect(await tokens.verify(answer.access_token)).toMatchObject({ ok: false, why: 'the sign-in was revoked' });
  });
});

describe('refresh tokens', () => {
  it('rotate: each is spent by its use, and one used again ends the whole grant', async () => {
    const first = await signedIn();
    const second = await tokens.refresh(first.refresh_token, { clientId: 'client-1' });
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(await tokens.verify(second.access_token)).toMatchObject({ ok: true });
    const replay = await refusal(tokens.refresh(first.refresh_token, { clientId: 'client-1' }));
    expect(replay.error).toBe('invalid_grant');
    expect(await tokens.verify(second.access_token)).toMatchObject({ ok: false, why: 'the sign-in was revoked' });
    expect((await refusal(tokens.refresh(second.refresh_token, { clientId: 'client-1' }))).error).toBe('invalid_grant');
  });

  it('may narrow the scope, never widen it, and belong to the client they were issued to', async () => {
    const reader = await signedIn({ scopes: ['read_api'] });
    const widened = await refusal(tokens.refresh(reader.refresh_token, { clientId: 'client-1', scope: 'api' }));
    expect(widened.error).toBe('invalid_scope');
    const writer = await signedIn();
    const narrowed = await tokens.refresh(writer.refresh_token, { clientId: 'client-1', scope: 'read_api' });
    expect(narrowed.scope).toBe('read_api');
    const stolen = await refusal(tokens.refresh(narrowed.refresh_token, { clientId: 'client-2' }));
    expect(stolen.message).toContain('another client_id');
    // A refresh token that left its client revokes the sign-in it belonged to.
    expect(await tokens.verify(narrowed.access_token)).toMatchObject({ ok: false, why: 'the sign-in was revoked' });
  });

  it('reads scopes strictly: an unknown word is an error, not ignored', () => {
    expect(parseScopes('api read_api')).toEqual(['api', 'read_api']);
    expect(parseScopes('api admin')).toBeUndefined();
  });
});
