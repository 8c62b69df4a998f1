// Reading an authorization request (GET /oauth/authorize) as the service's provider does: the client and its redirect
// URI first (a problem there is shown on the page, never redirected: the URI cannot be trusted), then the rest (a
// problem there goes back to the client's redirect URI with error= and state=).
import { isTokenScope, type TokenScope } from '../../core/scopes.js';
import type { Store } from '../../core/store.js';
import { type Application, findApplication, redirectUriMatches } from './applications.js';
import { DESCRIPTIONS } from './errors.js';
import { isS256Challenge } from './grants.js';

export interface AuthorizationParams {
  client_id?: string;
  redirect_uri?: string;
  response_type?: string;
  state?: string;
  scope?: string;
  code_challenge?: string;
  code_challenge_method?: string;
}

/** A request that passed every check: what the consent page shows and the code will carry. */
export interface AuthorizationRequest {
  application_id: number;
  redirect_uri: string;
  state: string | undefined;
  scopes: TokenScope[];
  code_challenge: string | null;
}

/** What the service grants when a request names no scope. */
const DEFAULT_SCOPES: TokenScope[] = ['api'];

export type ReadRequest =
  | { kind: 'ok'; app: Application; request: AuthorizationRequest }
  /** Shown on the page: the client or its redirect URI is wrong. */
  | { kind: 'page'; status: number; error: string; description: string }
  /** Sent back to the (valid) redirect URI. */
  | { kind: 'redirect'; location: string };

/** The redirect URI with the response's parameters added to any query it has (RFC 6749 §4.1.2). */
export function redirectWith(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.append(name, value);
  return url.href;
}

export function readAuthorizationRequest(store: Store, params: AuthorizationParams): ReadRequest {
  const page = (status: number, error: string, description: string) =>
    ({ kind: 'page', status, error, description }) as const;
  if (!params.client_id) return page(400, 'invalid_request', 'Missing required parameter: client_id.');
  const app = findApplication(store, params.client_id);
  if (!app) {
    return page(
      401,
      'invalid_client',
      'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.',
    );
  }
  if (!params.redirect_uri || !redirectUriMatches(app, params.redirect_uri)) {
    return page(400, 'invalid_redirect_uri', DESCRIPTIONS.invalid_redirect_uri);
  }
  const redirectUri = params.redirect_uri;
  const back = (error: string, description: string) =>
    ({
      kind: 'redirect',
      location: redirectWith(redirectUri, { error, error_description: description, state: params.state }),
    }) as const;
  if (!params.response_type) return back('invalid_request', 'Missing required parameter: response_type.');
  if (params.response_type !== 'code') return back('unsupported_response_type', DESCRIPTIONS.unsupported_response_type);
  const requested = params.scope?.trim() ? params.scope.trim().split(/\s+/) : DEFAULT_SCOPES;
  if (!requested.every((s) => isTokenScope(s) && app.scopes.includes(s))) {
    return back('invalid_scope', DESCRIPTIONS.invalid_scope);
  }
  const challenge = params.code_challenge || undefined;
  const method = params.code_challenge_method || undefined;
  // RFC 7636 §4.3: a challenge without a method is "plain", which the provider refuses like any method but S256.
  if (challenge !== undefined || method !== undefined) {
    if (challenge === undefined) return back('invalid_request', 'Missing required parameter: code_challenge.');
    if (method !== 'S256') return back('invalid_request', 'The code_challenge_method must be S256.');
    if (!isS256Challenge(challenge)) return back('invalid_request', 'The code_challenge is malformed.');
  } else if (!app.confidential) {
    // A public client has no secret: without PKCE, whoever catches its code could redeem it.
    return back('invalid_request', 'Missing required parameter: code_challenge.');
  }
  return {
    kind: 'ok',
    app,
    request: {
      application_id: app.id,
      redirect_uri: redirectUri,
      state: params.state,
      scopes: [...new Set(requested)] as TokenScope[],
      code_challenge: challenge ?? null,
    },
  };
}
