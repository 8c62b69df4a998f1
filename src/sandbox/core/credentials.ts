// Who calls the API, and with what token: personal access tokens (PRIVATE-TOKEN, or Authorization: Bearer as the
// service also accepts them) and the OAuth access tokens the provider (areas/oauth) issues, with their lifetime on the
// sandbox's clock, refresh tokens and revocation. It is core because every API request is authenticated here; the
// oauth area holds the applications, the sign-in pages and the grants that lead to a token.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { areaState } from './area.js';
import { HttpError, unauthorized } from './errors.js';
import { scopesAllowing, type TokenScope } from './scopes.js';
import type { Store, User } from './store.js';

/** An OAuth access token with its refresh token, as the service keeps them: one record, revoked together. */
export interface OAuthAccessToken {
  id: number;
  token: string;
  refresh_token: string;
  user_id: number;
  application_id: number;
  scopes: TokenScope[];
  /** Epoch ms on the sandbox's clock. */
  created_at: number;
  /** Seconds from created_at. */
  expires_in: number;
  revoked_at: number | null;
  /**
   * The grant (authorization code, device code) this token descends from, through any refreshes: a replayed code
   * revokes every token of its family.
   */
  family: string;
}

export interface Credential {
  user: User;
  scopes: readonly TokenScope[];
  /** Set when the caller used an OAuth access token. */
  oauth?: OAuthAccessToken;
}

/** The service's access token lifetime: two hours, not configurable there. */
export const ACCESS_TOKEN_LIFETIME_S = 7200;

/** The default realm of the service's OAuth error challenges. */
const REALM = 'Protected by OAuth 2.0';

const tokensOf = areaState('oauth_access_tokens', () => ({
  byToken: new Map<string, OAuthAccessToken>(),
  byRefresh: new Map<string, OAuthAccessToken>(),
}));

/** A random secret of 32 bytes as 64 hex digits, the shape of the service's OAuth tokens. */
export function randomSecret(): string {
  return randomBytes(32).toString('hex');
}

/** Compares two secrets in constant time (their hashes, so that the lengths do not leak either). */
export function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * How long a new access token lives, in seconds: the service's two hours, times the sandbox's time scale (the one
 * that speeds up or slows down the simulated jobs), so that a fast demo also sees tokens expire and refresh.
 */
export function accessTokenLifetime(store: Store): number {
  return Math.max(1, Math.round(ACCESS_TOKEN_LIFETIME_S * store.jobTimeScale));
}

export function issueAccessToken(
  store: Store,
  grant: { user_id: number; application_id: number; scopes: readonly TokenScope[]; family: string },
): OAuthAccessToken {
  const record: OAuthAccessToken = {
    id: store.nextId('oauth_access_token'),
    token: randomSecret(),
    refresh_token: randomSecret(),
    user_id: grant.user_id,
    application_id: grant.application_id,
    scopes: [...grant.scopes],
    created_at: store.clock.now(),
    expires_in: accessTokenLifetime(store),
    revoked_at: null,
    family: grant.family,
  };
  const tokens = tokensOf(store);
  tokens.byToken.set(record.token, record);
  tokens.byRefresh.set(record.refresh_token, record);
  return record;
}

export function findAccessToken(store: Store, token: string): OAuthAccessToken | undefined {
  return tokensOf(store).byToken.get(token);
}

export function findByRefreshToken(store: Store, refreshToken: string): OAuthAccessToken | undefined {
  return tokensOf(store).byRefresh.get(refreshToken);
}

export type TokenState = 'active' | 'expired' | 'revoked';

export function tokenState(store: Store, record: OAuthAccessToken): TokenState {
  if (record.revoked_at !== null) return 'revoked';
  return store.clock.now() >= expiresAt(record) ? 'expired' : 'active';
}

export function expiresAt(record: OAuthAccessToken): number {
  return record.created_at + record.expires_in * 1000;
}

/** Revokes the access token and its refresh token (one record); revoking twice keeps the first time. */
export function revokeAccessToken(store: Store, record: OAuthAccessToken): void {
  record.revoked_at ??= store.clock.now();
}

/** Revokes every token matching: a family (a replayed code), an application (deleted) or a user (removed). */
export function revokeAccessTokensWhere(store: Store, doomed: (record: OAuthAccessToken) => boolean): number {
  let count = 0;
  for (const record of tokensOf(store).byToken.values()) {
    if (record.revoked_at === null && doomed(record)) {
      revokeAccessToken(store, record);
      count++;
    }
  }
  return count;
}

/** The tokens of one user for one application that were not revoked (expired ones included), newest first. */
export function unrevokedTokensOf(store: Store, userId: number, applicationId: number): OAuthAccessToken[] {
  return [...tokensOf(store).byToken.values()]
    .filter((r) => r.user_id === userId && r.application_id === applicationId && r.revoked_at === null)
    .reverse();
}

/**
 * A 401 of the service's OAuth guard: {"error": "invalid_token", "error_description": …} with the challenge in
 * WWW-Authenticate.
 */
export function invalidToken(description: string): HttpError {
  return new HttpError(
    401,
    { error: 'invalid_token', error_description: description },
    { 'www-authenticate': `Bearer realm="${REALM}", error="invalid_token", error_description="${description}"` },
  );
}

export const EXPIRED_TOKEN = 'Token is expired. You can either do re-authorization or token refresh.';
export const REVOKED_TOKEN = 'Token was revoked. You have to re-authorize from the user.';

/**
 * The service's 403 for a token without a scope the route needs, naming the scopes that would do. Like the service
 * (its own FIXME says so), no WWW-Authenticate comes with it.
 */
export function insufficientScope(allowed: readonly TokenScope[]): HttpError {
  return new HttpError(403, {
    error: 'insufficient_scope',
    error_description: 'The request requires higher privileges than provided by the access token.',
    scope: allowed.join(' '),
  });
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The token of `Authorization: Bearer <token>`, or undefined when that header says something else. */
export function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header(headers, 'authorization') ?? '');
  return match?.[1];
}

/**
 * The caller of an API request, or null when it sent no token. A PRIVATE-TOKEN is a personal access token; a
 * Bearer token is a personal access token or an OAuth access token. An unknown token is 401
 * {"message": "401 Unauthorized"}; an OAuth token that expired or was revoked is the guard's 401 invalid_token.
 */
export function resolveCredential(store: Store, headers: IncomingHttpHeaders): Credential | null {
  const privateToken = header(headers, 'private-token');
  if (privateToken !== undefined && privateToken !== '') {
    const personal = store.personalAccessToken(privateToken);
    if (!personal) throw unauthorized();
    return personal;
  }
  const bearer = bearerToken(headers);
  if (bearer === undefined) return null;
  const personal = store.personalAccessToken(bearer);
  if (personal) return personal;
  const record = findAccessToken(store, bearer);
  const user = record && store.users.find((u) => u.id === record.user_id);
  if (!record || !user) throw unauthorized();
  const state = tokenState(store, record);
  if (state === 'revoked') throw invalidToken(REVOKED_TOKEN);
  if (state === 'expired') throw invalidToken(EXPIRED_TOKEN);
  return { user, scopes: record.scopes, oauth: record };
}

/** Refuses with the service's 403 insufficient_scope unless one of the credential's scopes opens the route. */
export function checkScopes(credential: Credential, method: string, readScopes?: readonly TokenScope[]): void {
  const allowed = scopesAllowing(method, readScopes);
  if (!credential.scopes.some((scope) => allowed.includes(scope))) throw insufficientScope(allowed);
}
