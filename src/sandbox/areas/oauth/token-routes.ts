// The provider's machine endpoints: POST /oauth/token (authorization_code with PKCE, refresh_token, device_code, with
// OpenID Connect's ID token), POST /oauth/revoke (RFC 7009) and POST /oauth/introspect (RFC 7662).
// What each grant of the token endpoint gives is in ./token-exchange.ts; what a token is (token info, userinfo), the
// provider's metadata and keys are ./token-info-routes.ts.
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import {
  expiresAt,
  findAccessToken,
  findByRefreshToken,
  type OAuthAccessToken,
  revokeAccessToken,
  tokenState,
} from '../../core/credentials.js';
import { optionalParams, param } from '../../core/params.js';
import { registerAll, type Reply, type Router } from '../../core/router.js';
import { applicationsOf, authenticateClient } from './applications.js';
import { DESCRIPTIONS, missingParameter, NO_STORE, oauthError } from './errors.js';
import { idTokenFor } from './id-token.js';
import { authorizationCodeGrant, DEVICE_CODE_GRANT, deviceCodeGrant, refreshTokenGrant } from './token-exchange.js';
import { registerTokenInfo } from './token-info-routes.js';

/** A client's credentials in the body (client_secret_post, or a public client's id alone), beside HTTP Basic. */
const clientCredentials = optionalParams(param.string, 'client_id', 'client_secret');
const tokenParams = z.object({
  ...optionalParams(param.string, 'grant_type', 'code', 'redirect_uri', 'code_verifier', 'refresh_token'),
  ...optionalParams(param.string, 'device_code', 'scope'),
  ...clientCredentials,
});
const revokeParams = z.object({ ...optionalParams(param.string, 'token', 'token_type_hint'), ...clientCredentials });

/** The token response (RFC 6749 §5.1) as the service sends it. */
export function sendTokenResponse(reply: Reply, record: OAuthAccessToken, idToken?: string): void {
  for (const [name, value] of Object.entries(NO_STORE)) reply.header(name, value);
  reply.json({
    access_token: record.token,
    token_type: 'Bearer',
    expires_in: record.expires_in,
    refresh_token: record.refresh_token,
    scope: record.scopes.join(' '),
    created_at: Math.floor(record.created_at / 1000),
    ...(idToken ? { id_token: idToken } : {}),
  });
}

export const register = registerAll(registerTokenRoutes, registerTokenInfo);

/** The token endpoint, revocation and introspection. */
function registerTokenRoutes(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;
  router.route('POST', '/oauth/token', { params: tokenParams }, async (req, reply) => {
    const { params } = req;
    if (!params.grant_type) throw missingParameter('grant_type');
    const grants = ['authorization_code', 'refresh_token', DEVICE_CODE_GRANT];
    if (!grants.includes(params.grant_type)) {
      throw oauthError(400, 'unsupported_grant_type', DESCRIPTIONS.unsupported_grant_type);
    }
    const app = authenticateClient(store, req.headers, params);
    const record =
      params.grant_type === 'authorization_code'
        ? authorizationCodeGrant(store, app, params)
        : params.grant_type === 'refresh_token'
          ? refreshTokenGrant(store, app, params)
          : deviceCodeGrant(store, app, params);
    // A sign-in (the code grant) with openid says who signed in; a refresh or a device grant does not.
    const idToken = params.grant_type === 'authorization_code' ? await idTokenFor(store, record, app) : undefined;
    sendTokenResponse(reply, record, idToken);
  });

  router.route('POST', '/oauth/revoke', { params: revokeParams }, (req, reply) => {
    const token = req.params.token;
    const record = token ? (findAccessToken(store, token) ?? findByRefreshToken(store, token)) : undefined;
    // RFC 7009 §2.2: an unknown or already invalid token is no error.
    if (record) {
      const owner = applicationsOf(store).find((a) => a.id === record.application_id);
      // A confidential application's tokens are revoked only by that application, authenticated.
      if (owner?.confidential) {
        const client = authenticateClient(store, req.headers, req.params);
        if (client.id !== owner.id) throw oauthError(403, 'unauthorized_client', DESCRIPTIONS.unauthorized_client);
      }
      revokeAccessToken(store, record);
    }
    for (const [name, value] of Object.entries(NO_STORE)) reply.header(name, value);
    reply.json({});
  });

  router.route('POST', '/oauth/introspect', { params: revokeParams }, (req, reply) => {
    const client = authenticateClient(store, req.headers, req.params);
    const token = req.params.token;
    if (!token) throw missingParameter('token');
    const record = findAccessToken(store, token) ?? findByRefreshToken(store, token);
    const user = record && store.users.find((u) => u.id === record.user_id);
    // Only the application the token was issued to learns about it (RFC 7662 §4); to anyone else it is inactive.
    if (!record || !user || record.application_id !== client.id || tokenState(store, record) !== 'active') {
      reply.json({ active: false });
      return;
    }
    reply.json({
      active: true,
      scope: record.scopes.join(' '),
      client_id: client.uid,
      username: user.username,
      token_type: 'Bearer',
      exp: Math.floor(expiresAt(record) / 1000),
      iat: Math.floor(record.created_at / 1000),
      sub: String(user.id),
    });
  });
}
