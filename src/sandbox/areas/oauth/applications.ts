// The OAuth applications of the sandbox's provider: their records, registration with the service's validation of
// redirect URIs and scopes, how a redirect URI given on a request is matched, and how a client authenticates.
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { areaState } from '../../core/area.js';
import { randomSecret, sameSecret } from '../../core/credentials.js';
import { isTokenScope, type TokenScope } from '../../core/scopes.js';
import type { Store } from '../../core/store.js';
import { oauthError } from './errors.js';

export interface Application {
  id: number;
  /** The client id (the service's "application_id"). */
  uid: string;
  secret: string;
  name: string;
  /** Each matched exactly; a loopback IP URI (http://127.0.0.1/callback) on any port (RFC 8252 §7.3). */
  redirect_uris: string[];
  scopes: TokenScope[];
  /** Can keep its secret (a server); a public client (a terminal, an app) proves itself with PKCE alone. */
  confidential: boolean;
  /** Skips the consent page (the service's admin-only "Trusted"). */
  trusted: boolean;
  created_at: Date;
}

/** What a caller registers (startSandbox({ applications }), registerApplication). */
export interface ApplicationInput {
  name: string;
  redirect_uris: readonly string[];
  scopes: readonly TokenScope[];
  /** Default true, as on the service. */
  confidential?: boolean;
  /** Default false. */
  trusted?: boolean;
  /** A fixed client id (a documented one); default a random one. */
  uid?: string;
}

export const applicationsOf = areaState('oauth_applications', () => [] as Application[]);

/** A new client secret, with the prefix the service gives its application secrets. */
export function newClientSecret(): string {
  return `gloas-${randomSecret()}`;
}

const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:']);

/** The service's complaints about one redirect URI, in its words (empty when it is fine). */
export function redirectUriProblems(uri: string): string[] {
  if (!/^[a-z][a-z0-9+.-]*:/i.test(uri)) return ['must be an absolute URI.'];
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return ['must be a valid URI.'];
  }
  if (FORBIDDEN_SCHEMES.has(url.protocol)) return ['is forbidden by the server.'];
  if ((url.protocol === 'http:' || url.protocol === 'https:') && url.hostname === '') return ['must be a valid URI.'];
  if (uri.includes('#')) return ['cannot contain a fragment.'];
  return [];
}

/** The service's validation of a new application: {"field": ["message"]}, empty when it is valid. */
export function applicationProblems(input: ApplicationInput): Record<string, string[]> {
  const problems: Record<string, string[]> = {};
  if (input.name.trim() === '') problems.name = ["can't be blank"];
  if (input.redirect_uris.length === 0) problems.redirect_uri = ["can't be blank"];
  const uriProblems = [...new Set(input.redirect_uris.flatMap(redirectUriProblems))];
  if (uriProblems.length > 0) problems.redirect_uri = uriProblems;
  if (input.scopes.length === 0 || !input.scopes.every(isTokenScope)) {
    problems.scopes = ["doesn't match configured on the server."];
  }
  return problems;
}

/** Registers an application; throws when it is invalid or its client id is taken (a caller's mistake). */
export function registerApplication(store: Store, input: ApplicationInput): Application {
  const problems = applicationProblems(input);
  const first = Object.entries(problems)[0];
  if (first) throw new Error(`application ${JSON.stringify(input.name)}: ${first[0]} ${first[1][0]}`);
  const apps = applicationsOf(store);
  if (input.uid !== undefined && apps.some((app) => app.uid === input.uid)) {
    throw new Error(`application ${JSON.stringify(input.name)}: client id ${input.uid} is taken`);
  }
  const app: Application = {
    id: store.nextId('oauth_application'),
    uid: input.uid ?? randomBytes(32).toString('hex'),
    secret: newClientSecret(),
    name: input.name,
    redirect_uris: [...input.redirect_uris],
    scopes: [...new Set(input.scopes)],
    confidential: input.confidential ?? true,
    trusted: input.trusted ?? false,
    created_at: new Date(store.clock.now()),
  };
  apps.push(app);
  return app;
}

export function findApplication(store: Store, uid: string): Application | undefined {
  return applicationsOf(store).find((app) => app.uid === uid);
}

const LOOPBACK_HOST = /^(127(\.\d{1,3}){3}|\[::1\])$/;

/**
 * Whether a redirect URI sent on a request is one the application registered: the same string, or, for a loopback
 * IP URI (not "localhost"), the same but for the port, as RFC 8252 §7.3 asks of native apps' loopback redirects.
 */
export function redirectUriMatches(app: Application, given: string): boolean {
  if (app.redirect_uris.includes(given)) return true;
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' || !LOOPBACK_HOST.test(url.hostname) || given.includes('#')) return false;
  const portless = (u: URL) => `${u.protocol}//${u.hostname}${u.pathname}${u.search}`;
  return app.redirect_uris.some((registered) => {
    const r = URL.canParse(registered) ? new URL(registered) : undefined;
    return r !== undefined && r.protocol === 'http:' && LOOPBACK_HOST.test(r.hostname) && portless(r) === portless(url);
  });
}

const INVALID_CLIENT =
  'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.';

/** The 401 of a client that could not be authenticated. */
export function invalidClient() {
  return oauthError(401, 'invalid_client', INVALID_CLIENT, {
    'www-authenticate': `Bearer realm="Doorkeeper", error="invalid_client", error_description="${INVALID_CLIENT}"`,
  });
}

/** application/x-www-form-urlencoded decoding of one Basic credential half (RFC 6749 §2.3.1). */
function formDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

/** client_id and client_secret from `Authorization: Basic` (client_secret_basic), when that header is sent. */
function basicCredentials(headers: IncomingHttpHeaders): { id: string; secret: string } | null | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(headers.authorization ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  const id = formDecode(decoded.slice(0, colon));
  const secret = formDecode(decoded.slice(colon + 1));
  return id === undefined || secret === undefined ? null : { id, secret };
}

/**
 * The client making a request to the token, revocation, introspection or device endpoint, authenticated as the
 * service does: client_secret_basic (which wins when sent) or client_secret_post; a public client by its client_id
 * alone (its proof is PKCE or the device code), a confidential one only with its secret. Anything else is 401
 * invalid_client.
 */
export function authenticateClient(
  store: Store,
  headers: IncomingHttpHeaders,
  params: { client_id?: string; client_secret?: string },
): Application {
  const basic = basicCredentials(headers);
  if (basic === null) throw invalidClient();
  const id = basic ? basic.id : params.client_id;
  const secret = basic ? basic.secret : params.client_secret;
  const app = id === undefined || id === '' ? undefined : findApplication(store, id);
  if (!app) throw invalidClient();
  if (secret === undefined || secret === '') {
    if (app.confidential) throw invalidClient();
    return app;
  }
  if (!sameSecret(secret, app.secret)) throw invalidClient();
  return app;
}
