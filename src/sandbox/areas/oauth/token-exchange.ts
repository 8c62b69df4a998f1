// What POST /oauth/token gives for each grant type, or the OAuth error the service answers (RFC 6749 §5.2): an
// authorization code (with PKCE), a refresh token, a device code (RFC 8628).
import {
  findByRefreshToken,
  issueAccessToken,
  type OAuthAccessToken,
  revokeAccessToken,
  revokeAccessTokensWhere,
} from '../../core/credentials.js';
import { isTokenScope, type TokenScope } from '../../core/scopes.js';
import type { Store } from '../../core/store.js';
import type { Application } from './applications.js';
import { DESCRIPTIONS, invalidGrant, missingParameter, oauthError } from './errors.js';
import {
  codeExpired,
  codeFamily,
  deviceGrantExpired,
  findCode,
  findDeviceGrant,
  forgetDeviceGrant,
  verifierMatches,
} from './grants.js';

/** The device code grant's grant_type (RFC 8628 §3.4). */
export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** The token request's parameters a grant reads. */
export interface TokenRequest {
  code?: string;
  redirect_uri?: string;
  code_verifier?: string;
  refresh_token?: string;
  device_code?: string;
  scope?: string;
}

/** authorization_code: a code used once, by its client, with its redirect URI and PKCE verifier. */
export function authorizationCodeGrant(store: Store, app: Application, params: TokenRequest): OAuthAccessToken {
  if (!params.code) throw missingParameter('code');
  if (!params.redirect_uri) throw missingParameter('redirect_uri');
  const grant = findCode(store, params.code);
  if (!grant || grant.application_id !== app.id) throw invalidGrant();
  if (grant.used_at !== null) {
    // RFC 6749 §4.1.2: a code used twice was stolen or replayed; what it gave may be in the wrong hands.
    revokeAccessTokensWhere(store, (t) => t.family === codeFamily(grant));
    throw invalidGrant();
  }
  if (codeExpired(store, grant) || grant.redirect_uri !== params.redirect_uri) throw invalidGrant();
  // A code that carries a challenge needs its verifier; a verifier for a code without one is refused too, so that
  // PKCE cannot be stripped off a request.
  if (grant.code_challenge !== null || params.code_verifier !== undefined) {
    if (grant.code_challenge === null || !params.code_verifier) throw invalidGrant();
    if (!verifierMatches(params.code_verifier, grant.code_challenge)) throw invalidGrant();
  }
  grant.used_at = store.clock.now();
  return issueAccessToken(store, {
    user_id: grant.user_id,
    application_id: app.id,
    scopes: grant.scopes,
    family: codeFamily(grant),
  });
}

/** refresh_token: used once, by its client, its scope narrowed at most; the old pair stops working. */
export function refreshTokenGrant(store: Store, app: Application, params: TokenRequest): OAuthAccessToken {
  if (!params.refresh_token) throw missingParameter('refresh_token');
  const old = findByRefreshToken(store, params.refresh_token);
  // A refresh token works once: the refresh revoked it along with its access token.
  if (!old || old.application_id !== app.id || old.revoked_at !== null) throw invalidGrant();
  if (!store.users.some((u) => u.id === old.user_id && u.state === 'active')) throw invalidGrant();
  let scopes: TokenScope[] = old.scopes;
  if (params.scope?.trim()) {
    const asked = params.scope.trim().split(/\s+/);
    if (!asked.every((s) => isTokenScope(s) && old.scopes.includes(s))) {
      throw oauthError(400, 'invalid_scope', DESCRIPTIONS.invalid_scope);
    }
    scopes = [...new Set(asked)] as TokenScope[];
  }
  // Both old tokens stop working as the new pair is made, as the service does it.
  revokeAccessToken(store, old);
  return issueAccessToken(store, { user_id: old.user_id, application_id: app.id, scopes, family: old.family });
}

/** The device code grant (RFC 8628): pending, slow down, denied, expired, or the token once approved. */
export function deviceCodeGrant(store: Store, app: Application, params: TokenRequest): OAuthAccessToken {
  if (!params.device_code) throw missingParameter('device_code');
  const grant = findDeviceGrant(store, params.device_code);
  if (!grant || grant.application_id !== app.id) throw invalidGrant();
  if (deviceGrantExpired(store, grant)) {
    forgetDeviceGrant(store, grant);
    throw oauthError(400, 'expired_token', DESCRIPTIONS.expired_token);
  }
  if (grant.status === 'denied') {
    forgetDeviceGrant(store, grant);
    throw oauthError(400, 'access_denied', DESCRIPTIONS.access_denied);
  }
  if (grant.status === 'approved' && grant.user_id !== null) {
    forgetDeviceGrant(store, grant);
    return issueAccessToken(store, {
      user_id: grant.user_id,
      application_id: app.id,
      scopes: grant.scopes,
      family: `device:${grant.device_code}`,
    });
  }
  const now = store.clock.now();
  const tooSoon = grant.last_polled_at !== null && now - grant.last_polled_at < grant.interval * 1000;
  grant.last_polled_at = now;
  if (tooSoon) {
    grant.interval += 5;
    throw oauthError(400, 'slow_down', DESCRIPTIONS.slow_down);
  }
  throw oauthError(400, 'authorization_pending', DESCRIPTIONS.authorization_pending);
}
