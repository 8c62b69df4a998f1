// forgeops's own tokens for MCP clients: short-lived access tokens (JWT via jose, HS256 under a key derived from
// FORGEOPS_SECRET, `aud` = the MCP resource URI), one-time authorization codes, rotating refresh tokens, and the grant
// each belongs to, all in the StateStore so any replica redeems, refreshes or refuses them the same way.
import { createHash, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import type { StateStore } from '../state/store.js';
import { OAuthError } from './oauth-http.js';

/** Access tokens live an hour: a stolen one is worth little, and the client refreshes without the person. */
export const ACCESS_TOKEN_TTL_S = 3600;
/** A refresh token unused this long lapses, and the person signs in again. */
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 3600_000;
/** An authorization code is redeemed within a minute or never (RFC 6749 §4.1.2 recommends at most ten). */
export const CODE_TTL_MS = 60_000;
/** Codes waiting to be redeemed at most: each is created by a person finishing a sign-in, but still capped. */
export const MAX_PENDING_CODES = 10_000;

/** The scopes forgeops grants MCP clients: every tool, or reads only. */
export const SCOPES = ['api', 'read_api'] as const;
export type Scope = (typeof SCOPES)[number];

/** Who a verified access token names. */
export interface McpPrincipal {
  /** The person (personKey: codehost-user:<id>). */
  person: string;
  clientId: string;
  scopes: Scope[];
  /** The grant the token belongs to: revoking it refuses its tokens at once. */
  grant: string;
}

/** What a code stands for until the client redeems it. */
export interface CodeRecord {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  scopes: Scope[];
  person: string;
  resource: string;
}

interface GrantRecord {
  person: string;
  clientId: string;
  scopes: Scope[];
}

interface RefreshRecord {
  grant: string;
  clientId: string;
}

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

const key = {
  code: (code: string) => `mcp-oauth:code:${digest(code)}`,
  usedCode: (code: string) => `mcp-oauth:code-used:${digest(code)}`,
  grant: (id: string) => `mcp-oauth:grant:${id}`,
  refresh: (token: string) => `mcp-oauth:refresh:${digest(token)}`,
  usedRefresh: (token: string) => `mcp-oauth:refresh-used:${digest(token)}`,
};

/** The single-use secrets: where each is kept, where it is remembered once spent, and how a refusal names it. */
const SINGLE_USE = {
  code: { key: key.code, usedKey: key.usedCode, noun: 'code', unknown: 'the code is unknown, expired or already used' },
  refresh: {
    key: key.refresh,
    usedKey: key.usedRefresh,
    noun: 'refresh token',
    unknown: 'the refresh token is unknown, expired, revoked or already used',
  },
};

/** Codes and refresh tokens are kept by their hash: a copy of the store redeems nothing. */
function digest(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

function opaque(): string {
  return randomBytes(32).toString('base64url');
}

/** RFC 7636 S256: BASE64URL(SHA256(verifier)) equals the challenge; the verifier's form is checked first (§4.1). */
export function pkceMatches(verifier: string, challenge: string): boolean {
  if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)) return false;
  const a = Buffer.from(createHash('sha256').update(verifier).digest('base64url'));
  const b = Buffer.from(challenge);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function parseScopes(text: string | undefined): Scope[] | undefined {
  const words = (text ?? '').split(' ').filter(Boolean);
  if (words.some((w) => !(SCOPES as readonly string[]).includes(w))) return undefined;
  return [...new Set(words)] as Scope[];
}

export interface McpTokensOptions {
  store: StateStore;
  /** FORGEOPS_SECRET (or a per-process random one when nothing is shared): the signing key derives from it. */
  secret: string;
  /** This authorization server's issuer (forgeops's public URL) and the MCP resource URI, as of now. */
  issuer: () => string;
  resource: () => string;
  now?: () => number;
}

/** Verified access tokens kept in memory at most (see McpTokens.checkedClaims): a few per live session. */
const MAX_VERIFIED_TOKENS = 10_000;

export class McpTokens {
  private readonly key: Uint8Array;
  private readonly now: () => number;
  /** Claims of tokens whose signature and claims were checked, by issuer, resource and token. */
  private readonly verified = new Map<string, Record<string, unknown>>();

  constructor(private readonly options: McpTokensOptions) {
    // A key of its own purpose: the vault's and Slack's keys derive from the same secret with other labels.
    this.key = new Uint8Array(hkdfSync('sha256', options.secret, 'forgeops', 'mcp access token v1', 32));
    this.now = options.now ?? Date.now;
  }

  /** A one-time code for the client, after the person signed in at the code host. */
  async issueCode(record: CodeRecord): Promise<string> {
    const { store } = this.options;
    if ((await store.count('mcp-oauth:code:')) >= MAX_PENDING_CODES) {
      throw new OAuthError(
        503,
        'temporarily_unavailable',
        'too many sign-ins are waiting to finish; try again shortly',
      );
    }
    const code = opaque();
    await store.set(key.code(code), record, { ttlMs: CODE_TTL_MS });
    return code;
  }

  /**
   * Takes a single-use record (a code, a refresh token) once, for the client presenting it. One already spent is a
   * replay: the grant it gave (kept under the used key) is revoked, so whoever spent it first loses it too; anything
   * else unknown is refused as such. One issued to another client is refused too, and a refresh token's
   * grant revoked with it: that token left the client it was given to.
   */
  private async spend<T extends { clientId: string; grant?: string }>(
    kind: keyof typeof SINGLE_USE,
    value: string,
    clientId: string,
  ): Promise<T> {
    const { store } = this.options;
    const secret = SINGLE_USE[kind];
    const record = await store.take<T>(secret.key(value));
    if (!record) {
      const grant = await store.get<string>(secret.usedKey(value));
      if (grant) await this.revokeGrant(grant);
      throw new OAuthError(400, 'invalid_grant', secret.unknown);
    }
    if (record.clientId !== clientId) {
      if (record.grant !== undefined) await this.revokeGrant(record.grant);
      throw new OAuthError(400, 'invalid_grant', `the ${secret.noun} was issued to another client_id`);
    }
    return record;
  }

  /**
   * Redeems a code once (GETDEL: of two replicas only one gets it). A code seen again is a replay (RFC 6749 §4.1.2):
   * the grant it gave is revoked, so whoever redeemed it first loses it too.
   */
  async redeemCode(
    code: string,
    request: { clientId: string; redirectUri?: string; codeVerifier?: string; resource?: string },
  ): Promise<TokenResponse> {
    const { store } = this.options;
    const record = await this.spend<CodeRecord>('code', code, request.clientId);
    if (request.redirectUri !== record.redirectUri) {
      throw new OAuthError(400, 'invalid_grant', 'redirect_uri differs from the one of the authorization request');
    }
    if (!request.codeVerifier) throw new OAuthError(400, 'invalid_request', 'code_verifier is required (PKCE)');
    if (!pkceMatches(request.codeVerifier, record.codeChallenge)) {
      throw new OAuthError(400, 'invalid_grant', 'code_verifier does not match the code_challenge (PKCE S256)');
    }
    if (request.resource !== undefined && request.resource !== record.resource) {
      throw new OAuthError(400, 'invalid_target', `resource must be ${record.resource}`);
    }
    const grant = opaque();
    await store.set(
      key.grant(grant),
      { person: record.person, clientId: record.clientId, scopes: record.scopes } satisfies GrantRecord,
      { ttlMs: REFRESH_TOKEN_TTL_MS },
    );
    await store.set(key.usedCode(code), grant, { ttlMs: 10 * CODE_TTL_MS });
    return this.tokensFor(grant, { person: record.person, clientId: record.clientId, scopes: record.scopes });
  }

  /**
   * Rotates a refresh token (RFC 9700 §4.14.2): the old one is spent at once; one presented again after rotation is a
   * stolen copy or a replay, so the whole grant is revoked.
   */
  async refresh(refreshToken: string, request: { clientId: string; scope?: string }): Promise<TokenResponse> {
    const { store } = this.options;
    const record = await this.spend<RefreshRecord>('refresh', refreshToken, request.clientId);
    await store.set(key.usedRefresh(refreshToken), record.grant, { ttlMs: REFRESH_TOKEN_TTL_MS });
    const grant = await store.get<GrantRecord>(key.grant(record.grant));
    if (!grant) throw new OAuthError(400, 'invalid_grant', 'the sign-in behind this refresh token was revoked');
    let scopes = grant.scopes;
    if (request.scope !== undefined) {
      const asked = parseScopes(request.scope);
      // api covers everything read_api does: narrowing an api grant to reads is allowed.
      const covered = (scope: Scope) =>
        grant.scopes.includes(scope) || (scope === 'read_api' && grant.scopes.includes('api'));
      if (!asked || asked.length === 0 || !asked.every(covered)) {
        throw new OAuthError(400, 'invalid_scope', `scope may only narrow the granted ${grant.scopes.join(' ')}`);
      }
      scopes = asked;
    }
    await store.renew(key.grant(record.grant), grant, { ttlMs: REFRESH_TOKEN_TTL_MS });
    return this.tokensFor(record.grant, { ...grant, scopes });
  }

  private async tokensFor(grant: string, who: GrantRecord): Promise<TokenResponse> {
    const refreshToken = opaque();
    await this.options.store.set(key.refresh(refreshToken), { grant, clientId: who.clientId } satisfies RefreshRecord, {
      ttlMs: REFRESH_TOKEN_TTL_MS,
    });
    const iat = Math.floor(this.now() / 1000);
    const accessToken = await new SignJWT({ client_id: who.clientId, scope: who.scopes.join(' '), sid: grant })
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
      .setIssuer(this.options.issuer())
      .setAudience(this.options.resource())
      .setSubject(who.person)
      .setIssuedAt(iat)
      .setExpirationTime(iat + ACCESS_TOKEN_TTL_S)
      .setJti(randomBytes(16).toString('base64url'))
      .sign(this.key);
    return {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: ACCESS_TOKEN_TTL_S,
      refresh_token: refreshToken,
      scope: who.scopes.join(' '),
    };
  }

  /**
   * The principal of a bearer token, or why not, in words for WWW-Authenticate: a forged or altered token, one of
   * another issuer or audience (RFC 8707: a token minted for another resource is not ours to honour), an expired one,
   * or one whose grant was revoked.
   */
  async verify(token: string): Promise<{ ok: true; principal: McpPrincipal } | { ok: false; why: string }> {
    const checked = await this.checkedClaims(token);
    if (!checked.ok) return checked;
    const { payload } = checked;
    const sid = String(payload.sid);
    const grant = await this.options.store.get<GrantRecord>(key.grant(sid));
    if (!grant || grant.person !== payload.sub) return { ok: false, why: 'the sign-in was revoked' };
    const scopes = parseScopes(String(payload.scope ?? '')) ?? [];
    return { ok: true, principal: { person: grant.person, clientId: grant.clientId, scopes, grant: sid } };
  }

  /**
   * The token's claims once its signature, issuer, audience and type are checked: remembered per token (the same
   * token comes with every request of a session), its expiry checked again each time. The grant is read on every
   * request all the same (verify), so a revocation is seen at once.
   */
  private async checkedClaims(
    token: string,
  ): Promise<{ ok: true; payload: Record<string, unknown> } | { ok: false; why: string }> {
    const cacheKey = `${this.options.issuer()}\n${this.options.resource()}\n${token}`;
    const known = this.verified.get(cacheKey);
    if (known) {
      if (this.now() < Number(known.exp) * 1000) return { ok: true, payload: known };
      this.verified.delete(cacheKey);
      return { ok: false, why: 'the access token expired' };
    }
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, this.key, {
        issuer: this.options.issuer(),
        audience: this.options.resource(),
        algorithms: ['HS256'],
        typ: 'at+jwt',
        currentDate: new Date(this.now()),
        requiredClaims: ['sub', 'exp', 'sid'],
      }));
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) return { ok: false, why: 'the access token expired' };
      if (error instanceof joseErrors.JWTClaimValidationFailed && error.claim === 'aud') {
        return { ok: false, why: `the access token is for another resource, not ${this.options.resource()}` };
      }
      return { ok: false, why: 'the access token is not one forgeops issued' };
    }
    if (this.verified.size >= MAX_VERIFIED_TOKENS) this.verified.clear();
    this.verified.set(cacheKey, payload);
    return { ok: true, payload };
  }

  /** The grant a refresh token or an access token belongs to, for revocation (RFC 7009: unknown tokens are fine). */
  async grantOf(token: string): Promise<{ grant: string; person: string } | undefined> {
    const { store } = this.options;
    const refresh = await store.get<RefreshRecord>(key.refresh(token));
    const grantId = refresh?.grant ?? (await this.verify(token).then((v) => (v.ok ? v.principal.grant : undefined)));
    if (!grantId) return undefined;
    const grant = await store.get<GrantRecord>(key.grant(grantId));
    return grant ? { grant: grantId, person: grant.person } : undefined;
  }

  /** Ends a grant: its access tokens are refused from the next request on, its refresh token redeems nothing. */
  async revokeGrant(grant: string): Promise<void> {
    await this.options.store.delete(key.grant(grant));
  }
}
