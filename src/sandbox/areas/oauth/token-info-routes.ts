// What a token is and what the provider is: GET /oauth/token/info and /oauth/userinfo for the bearer of a token, the
// authorization server metadata (RFC 8414), and OpenID Connect's discovery and keys.
import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { bearerToken, expiresAt, findAccessToken, type OAuthAccessToken, tokenState } from '../../core/credentials.js';
import type { HttpError } from '../../core/errors.js';
import type { Reply, Router } from '../../core/router.js';
import { TOKEN_SCOPES } from '../../core/scopes.js';
import type { Store } from '../../core/store.js';
import { userBasic } from '../../core/views.js';
import { applicationsOf } from './applications.js';
import { oauthError } from './errors.js';
import { ID_TOKEN_CLAIMS, publicKeySet } from './id-token.js';
import { DEVICE_CODE_GRANT } from './token-exchange.js';

const text = () => z.string().optional();

/** The token a resource endpoint of the provider was called with: the Bearer header, or access_token. */
function presentedToken(headers: IncomingHttpHeaders, param: string | undefined): string | undefined {
  return bearerToken(headers) ?? (param || undefined);
}

const TOKEN_DESCRIPTIONS = {
  unknown: 'The access token is invalid',
  expired: 'The access token expired',
  revoked: 'The access token was revoked',
} as const;

/** The provider's own 401 for a bad token on its endpoints (token info, userinfo), with the challenge. */
function providerInvalidToken(reason: keyof typeof TOKEN_DESCRIPTIONS): HttpError {
  const description = TOKEN_DESCRIPTIONS[reason];
  return oauthError(401, 'invalid_token', description, {
    'www-authenticate': `Bearer realm="Doorkeeper", error="invalid_token", error_description="${description}"`,
  });
}

/** The active access token presented to a provider endpoint, or its 401. */
function activeToken(store: Store, token: string | undefined): OAuthAccessToken {
  const record = token === undefined ? undefined : findAccessToken(store, token);
  if (!record || !store.users.some((u) => u.id === record.user_id)) throw providerInvalidToken('unknown');
  const state = tokenState(store, record);
  if (state !== 'active') throw providerInvalidToken(state);
  return record;
}

/** What a token is: token/info, userinfo and the metadata. */
export function registerTokenInfo(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;
  router.route('GET', '/oauth/token/info', { params: z.object({ access_token: text() }) }, (req, reply) => {
    const record = activeToken(store, presentedToken(req.headers, req.params.access_token));
    const app = applicationsOf(store).find((a) => a.id === record.application_id);
    const expiresIn = Math.max(0, Math.floor((expiresAt(record) - store.clock.now()) / 1000));
    reply.json({
      resource_owner_id: record.user_id,
      scope: record.scopes,
      expires_in: expiresIn,
      application: { uid: app?.uid ?? null },
      created_at: Math.floor(record.created_at / 1000),
      // The service still sends the names its provider's older versions used.
      scopes: record.scopes,
      expires_in_seconds: expiresIn,
    });
  });

  const userinfo = (headers: IncomingHttpHeaders, accessToken: string | undefined, reply: Reply) => {
    const record = activeToken(store, presentedToken(headers, accessToken));
    if (!record.scopes.includes('openid')) {
      throw oauthError(403, 'insufficient_scope', 'Access to this resource requires scope "openid".');
    }
    const user = store.users.find((u) => u.id === record.user_id)!;
    const basic = userBasic(store, user);
    // The groups the person belongs to, directly or through a parent, as full paths.
    const groups = store.groups.filter((g) => store.groupAccess(user, g) > 0).map((g) => g.full_path);
    reply.json({
      sub: String(user.id),
      sub_legacy: String(user.id),
      name: user.name,
      nickname: user.username,
      preferred_username: user.username,
      // The primary address with the email scope; otherwise only the one the person made public.
      email: record.scopes.includes('email') ? user.email : user.public_email || null,
      email_verified: record.scopes.includes('email') ? user.confirmed_at !== null : false,
      website: user.website_url || null,
      profile: basic.web_url,
      picture: basic.avatar_url,
      groups,
    });
  };
  const userinfoParams = { params: z.object({ access_token: text() }) };
  router.route('GET', '/oauth/userinfo', userinfoParams, (req, reply) =>
    userinfo(req.headers, req.params.access_token, reply),
  );
  router.route('POST', '/oauth/userinfo', userinfoParams, (req, reply) =>
    userinfo(req.headers, req.params.access_token, reply),
  );

  router.route('GET', '/oauth/discovery/keys', {}, async (_req, reply) => {
    reply.json(await publicKeySet());
  });

  // OpenID Connect discovery: what a client needs to check the ID token (its issuer, keys and algorithm).
  router.route('GET', '/.well-known/openid-configuration', {}, (_req, reply) => {
    reply.json({
      ...providerMetadata(store.baseUrl),
      jwks_uri: `${store.baseUrl}/oauth/discovery/keys`,
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      claims_supported: [...ID_TOKEN_CLAIMS],
    });
  });

  router.route('GET', '/.well-known/oauth-authorization-server', {}, (_req, reply) => {
    reply.json(providerMetadata(store.baseUrl));
  });
}

/** The authorization server metadata (RFC 8414), which OpenID Connect's discovery extends. */
function providerMetadata(base: string) {
  return {
    issuer: base,
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/oauth/token`,
    revocation_endpoint: `${base}/oauth/revoke`,
    introspection_endpoint: `${base}/oauth/introspect`,
    userinfo_endpoint: `${base}/oauth/userinfo`,
    device_authorization_endpoint: `${base}/oauth/authorize_device`,
    scopes_supported: TOKEN_SCOPES,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token', DEVICE_CODE_GRANT],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    code_challenge_methods_supported: ['S256'],
  };
}
