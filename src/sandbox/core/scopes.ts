// The scopes a token of the service can carry (personal access tokens and OAuth tokens alike), and which of them let
// a token call a route: the service's rule, one for both kinds of token.

/** The scopes an OAuth application may be given and a token may carry, in the service's order. */
export const TOKEN_SCOPES = [
  'api',
  'read_api',
  'read_user',
  'read_repository',
  'write_repository',
  'openid',
  'profile',
  'email',
] as const;

export type TokenScope = (typeof TOKEN_SCOPES)[number];

export function isTokenScope(name: string): name is TokenScope {
  return (TOKEN_SCOPES as readonly string[]).includes(name);
}

/**
 * The scopes that let a token call a route, as the service grants them: `api` everything; `read_api` any GET or
 * HEAD; and on a GET or HEAD the scopes the route's API adds (`read_user` on the users API, `read_repository` on the
 * repository files API). `openid`, `profile`, `email` and `write_repository` open no API route.
 */
export function scopesAllowing(method: string, readScopes: readonly TokenScope[] = []): TokenScope[] {
  if (method !== 'GET' && method !== 'HEAD') return ['api'];
  return ['api', 'read_api', ...readScopes];
}
