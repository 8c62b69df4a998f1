// The OAuth provider's JSON errors (RFC 6749 §5.2 and its extensions), in the words of the service's provider.
import { HttpError } from '../../core/errors.js';

/** Token responses and their errors must not be cached (RFC 6749 §5.1). */
export const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' } as const;

/** {"error": …, "error_description": …} with the no-store headers and any others. */
export function oauthError(
  status: number,
  error: string,
  description: string,
  headers: Record<string, string> = {},
): HttpError {
  return new HttpError(status, { error, error_description: description }, { ...NO_STORE, ...headers });
}

/** The service's descriptions of each error code. */
export const DESCRIPTIONS = {
  invalid_request:
    'The request is missing a required parameter, includes an unsupported parameter value, or is otherwise malformed.',
  invalid_grant:
    'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
  unsupported_grant_type: 'The authorization grant type is not supported by the authorization server.',
  unsupported_response_type: 'The authorization server does not support this response type.',
  invalid_scope: 'The requested scope is invalid, unknown, or malformed.',
  access_denied: 'The resource owner or authorization server denied the request.',
  invalid_redirect_uri: "The requested redirect uri is malformed or doesn't match client redirect URI.",
  authorization_pending:
    "The authorization request is still pending as the end user hasn't yet completed the user interaction steps.",
  slow_down:
    'The authorization request is still pending and polling should continue, but the interval MUST be increased by 5 seconds for this and all subsequent requests.',
  expired_token: 'The device_code has expired, and the device authorization session has concluded.',
  unauthorized_client: 'You are not authorized to revoke this token',
} as const;

export function missingParameter(name: string): HttpError {
  return oauthError(400, 'invalid_request', `Missing required parameter: ${name}.`);
}

export function invalidGrant(): HttpError {
  return oauthError(400, 'invalid_grant', DESCRIPTIONS.invalid_grant);
}
