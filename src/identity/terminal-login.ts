// The terminal's sign-in to the code host as a public OAuth client (oauth4webapi): the device grant, the browser on a
// loopback redirect with PKCE, refresh, revocation, and who the tokens belong to (GET /api/v4/user).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oauth from 'oauth4webapi';
import { createListener } from '../http/listener.js';
import { hostKey, type SignIn } from './credentials-file.js';

/** The public application registered at the code host for the terminal (FORGEOPS_CLI_CLIENT_ID). */
export interface TerminalClient {
  host: string;
  clientId: string;
  /** How requests reach the host (its proxy and CA file: codeHostFetch); Node's fetch when absent. */
  fetch?: typeof fetch;
}

/** A sign-in that did not happen, in words for the person at the terminal. */
export class LoginError extends Error {
  constructor(
    message: string,
    /** The HTTP status that said no, when one did. */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'LoginError';
  }
}

/** A sign-in that cannot start until a setting is changed (exit status 2, like any configuration error). */
export class LoginSetupError extends LoginError {}

/** Per request to the code host: a sign-in step that hangs should say so rather than wait for ever. */
const REQUEST_TIMEOUT_MS = 30_000;
/** RFC 8628 §3.5: without an interval from the server, poll every 5 s; each slow_down adds 5 s. */
const DEFAULT_POLL_INTERVAL_S = 5;
const SLOW_DOWN_STEP_S = 5;
/** How long the loopback listener waits for the browser to come back. */
export const BROWSER_WAIT_MS = 5 * 60_000;
export const CALLBACK_PATH = '/callback';

/**
 * The vendor's provider at its fixed paths under the base URL (its RFC 8414 metadata says the same), so that a refresh
 * costs one request rather than two; the issuer is the base URL, as the provider names itself.
 */
export function authorizationServer(host: string): oauth.AuthorizationServer {
  const base = hostKey(host);
  return {
    issuer: base,
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/oauth/token`,
    revocation_endpoint: `${base}/oauth/revoke`,
    device_authorization_endpoint: `${base}/oauth/authorize_device`,
    userinfo_endpoint: `${base}/oauth/userinfo`,
  };
}

/** Plain http is allowed exactly when the configured code host is plain http (a sandbox, a lab). */
function requestOptions(client: Pick<TerminalClient, 'host' | 'fetch'>, signal?: AbortSignal) {
  const timeout = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
  const send = client.fetch;
  return {
    [oauth.allowInsecureRequests]: new URL(client.host).protocol === 'http:',
    ...(send && {
      [oauth.customFetch]: (url: string, init: oauth.CustomFetchOptions<string, unknown>) =>
        send(url, init as RequestInit),
    }),
    signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
  };
}

const publicClient = (client: TerminalClient): oauth.Client => ({ client_id: client.clientId });

/** An OAuth error from the code host in words that name the setting to fix, when one does. */
function explain(error: unknown, client: TerminalClient, step: string): Error {
  // An unknown client is a 401 with a challenge, which oauth4webapi reports apart from a body error.
  if (error instanceof oauth.WWWAuthenticateChallengeError) {
    const said = error.cause.map((c) => c.parameters.error_description ?? c.parameters.error).find(Boolean);
    return new LoginError(
      `${client.host} does not accept client id '${client.clientId}' (FORGEOPS_CLI_CLIENT_ID) for ${step}${said ? `: ${said}` : ''}; register a public application there (see docs/operations-guide.md, Sign in from the terminal)`,
      error.status,
    );
  }
  if (error instanceof oauth.ResponseBodyError) {
    const said = error.error_description ? `: ${error.error_description}` : '';
    if (error.error === 'invalid_client' || error.error === 'unauthorized_client')
      return new LoginError(
        `${client.host} does not accept client id '${client.clientId}' (FORGEOPS_CLI_CLIENT_ID) for ${step}${said}; register a public application there (see docs/operations-guide.md, Sign in from the terminal)`,
      );
    if (error.error === 'invalid_scope')
      return new LoginError(
        `the application '${client.clientId}' at ${client.host} may not ask for these scopes${said}`,
      );
    return new LoginError(`${step} failed at ${client.host}: ${error.error}${said}`);
  }
  if (error instanceof oauth.AuthorizationResponseError) {
    const said = error.error_description ? `: ${error.error_description}` : '';
    return new LoginError(
      error.error === 'access_denied'
        ? `the sign-in was denied at ${client.host}${said}`
        : `${client.host} refused the sign-in: ${error.error}${said}`,
    );
  }
  if (error instanceof Error && error.name === 'AbortError') return new LoginError(`${step} was cancelled`);
  if (error instanceof Error && error.name === 'TimeoutError')
    return new LoginError(`no answer from ${client.host} within ${REQUEST_TIMEOUT_MS / 1000} s (${step})`);
  if (error instanceof LoginError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new LoginError(`${step} failed at ${client.host}: ${message}`);
}

/** What both flows end with; `scope` as granted (the host may grant less than asked). */
export type Tokens = oauth.TokenEndpointResponse;

export interface DeviceLoginOptions {
  scopes: string[];
  /** Shows the person where to go and what to type. */
  show: (prompt: { verificationUri: string; userCode: string; verificationUriComplete?: string }) => void;
  /** Waits between polls; tests advance a sandbox's clock instead of waiting. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  signal?: AbortSignal;
  now?: () => number;
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new LoginError('the sign-in was cancelled'));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new LoginError('the sign-in was cancelled'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The device grant (RFC 8628): works where no browser can reach this machine, e.g. over SSH. */
export async function deviceLogin(client: TerminalClient, options: DeviceLoginOptions): Promise<Tokens> {
  const as = authorizationServer(client.host);
  const sleep = options.sleep ?? abortableSleep;
  const now = options.now ?? Date.now;
  let device: oauth.DeviceAuthorizationResponse;
  try {
    const response = await oauth.deviceAuthorizationRequest(
      as,
      publicClient(client),
      oauth.None(),
      { scope: options.scopes.join(' ') },
      requestOptions(client, options.signal),
    );
    device = await oauth.processDeviceAuthorizationResponse(as, publicClient(client), response);
  } catch (error) {
    throw explain(error, client, 'the device sign-in');
  }
  options.show({
    verificationUri: device.verification_uri,
    userCode: device.user_code,
    verificationUriComplete: device.verification_uri_complete,
  });
  const expired = () =>
    new LoginError(
      `the code ${device.user_code} expired before it was approved (it lasts ${device.expires_in} s); run forgeops login again`,
    );
  const deadline = now() + device.expires_in * 1000;
  let interval = device.interval ?? DEFAULT_POLL_INTERVAL_S;
  for (;;) {
    if (now() + interval * 1000 > deadline) {
      // One last poll at the deadline would only be answered expired_token.
      await sleep(Math.max(0, deadline - now()), options.signal);
      throw expired();
    }
    await sleep(interval * 1000, options.signal);
    try {
      const response = await oauth.deviceCodeGrantRequest(
        as,
        publicClient(client),
        oauth.None(),
        device.device_code,
        requestOptions(client, options.signal),
      );
      return await oauth.processDeviceCodeResponse(as, publicClient(client), response);
    } catch (error) {
      if (error instanceof oauth.ResponseBodyError) {
        if (error.error === 'authorization_pending') continue;
        if (error.error === 'slow_down') {
          interval += SLOW_DOWN_STEP_S;
          continue;
        }
        if (error.error === 'expired_token') throw expired();
        if (error.error === 'access_denied') throw new LoginError(`the sign-in was denied at ${client.host}`);
      }
      throw explain(error, client, 'the device sign-in');
    }
  }
}

export interface BrowserLoginOptions {
  scopes: string[];
  /** Shows the address to open (and opens it when an opener is configured). */
  open: (url: string) => void;
  /** How long to wait for the browser to come back (default 5 minutes). */
  waitMs?: number;
  signal?: AbortSignal;
  /** Told about each request to the listener that was refused (a forged or stale callback). */
  refused?: (why: string) => void;
}

const PAGE_STYLE = 'font-family:system-ui,sans-serif;max-width:36em;margin:4em auto';
function page(res: ServerResponse, status: number, title: string, text: string): void {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
  });
  res.end(`<!doctype html><title>${title}</title><body style="${PAGE_STYLE}"><h1>${title}</h1><p>${text}</p>`);
}

/**
 * The browser on a loopback redirect (RFC 8252): a one-shot listener on 127.0.0.1 and a free port, PKCE S256 and
 * a state. A callback without our state is refused and the wait goes on (anything on this machine can reach the
 * port); the first one with our state ends it, checked by oauth4webapi (state, `iss` when sent, the error).
 */
export async function browserLogin(client: TerminalClient, options: BrowserLoginOptions): Promise<Tokens> {
  const as = authorizationServer(client.host);
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const challenge = await oauth.calculatePKCECodeChallenge(verifier);
  let settle: { resolve: (params: URLSearchParams) => void; reject: (error: Error) => void } | undefined;
  const answered = new Promise<URLSearchParams>((resolve, reject) => {
    settle = { resolve, reject };
  });
  const server = createListener((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== CALLBACK_PATH) {
      page(res, 404, 'Not found', 'This address only takes the sign-in answer of forgeops login.');
      return;
    }
    if (url.searchParams.get('state') !== state) {
      options.refused?.('a callback without the state of this sign-in was refused');
      page(res, 400, 'Not this sign-in', 'This answer does not belong to the sign-in forgeops is waiting for.');
      return;
    }
    try {
      const params = oauth.validateAuthResponse(as, publicClient(client), url.searchParams, state);
      page(res, 200, 'Signed in', 'forgeops has the answer; you can close this tab and go back to the terminal.');
      settle?.resolve(params);
    } catch (error) {
      page(res, 400, 'Sign-in failed', 'forgeops could not accept this answer; see the terminal.');
      settle?.reject(
        error instanceof oauth.AuthorizationResponseError
          ? explain(error, client, 'the browser sign-in')
          : new LoginError(
              `the browser's answer was refused: ${(error as Error).message} (expected issuer ${as.issuer})`,
            ),
      );
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const redirectUri = `http://127.0.0.1:${port}${CALLBACK_PATH}`;
  const waitMs = options.waitMs ?? BROWSER_WAIT_MS;
  const timer = setTimeout(
    () =>
      settle?.reject(
        new LoginError(`the browser did not come back within ${Math.round(waitMs / 1000)} s; run forgeops login again`),
      ),
    waitMs,
  );
  const onAbort = () => settle?.reject(new LoginError('the sign-in was cancelled'));
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const url = new URL(as.authorization_endpoint as string);
    url.search = new URLSearchParams({
      client_id: client.clientId,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: options.scopes.join(' '),
      state,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    }).toString();
    options.open(url.href);
    const params = await answered;
    try {
      const response = await oauth.authorizationCodeGrantRequest(
        as,
        publicClient(client),
        oauth.None(),
        params,
        redirectUri,
        verifier,
        requestOptions(client, options.signal),
      );
      return await oauth.processAuthorizationCodeResponse(as, publicClient(client), response);
    } catch (error) {
      throw explain(error, client, 'the browser sign-in');
    }
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

/** A new pair for the refresh token; the code host revokes the old pair as it answers. */
export async function refreshTokens(client: TerminalClient, refreshToken: string): Promise<Tokens> {
  const as = authorizationServer(client.host);
  const response = await oauth.refreshTokenGrantRequest(
    as,
    publicClient(client),
    oauth.None(),
    refreshToken,
    requestOptions(client),
  );
  return oauth.processRefreshTokenResponse(as, publicClient(client), response);
}

/** RFC 7009 revocation of one token; the code host answers 200 for a token it no longer knows. */
export async function revokeToken(client: TerminalClient, token: string, hint: 'access_token' | 'refresh_token') {
  const as = authorizationServer(client.host);
  const response = await oauth.revocationRequest(as, publicClient(client), oauth.None(), token, {
    ...requestOptions(client),
    additionalParameters: { token_type_hint: hint },
  });
  await oauth.processRevocationResponse(response);
}

/** The account the access token acts as: GET /api/v4/user. */
export async function fetchAccount(
  client: Pick<TerminalClient, 'host' | 'fetch'>,
  accessToken: string,
): Promise<SignIn['account']> {
  const host = client.host;
  const response = await oauth.protectedResourceRequest(
    accessToken,
    'GET',
    new URL(`${hostKey(host)}/api/v4/user`),
    new Headers({ accept: 'application/json' }),
    null,
    requestOptions(client),
  );
  if (!response.ok)
    throw new LoginError(
      `${hostKey(host)}/api/v4/user answered ${response.status} to the access token`,
      response.status,
    );
  const user = (await response.json()) as { id?: unknown; username?: unknown; name?: unknown };
  if (typeof user.id !== 'number' || typeof user.username !== 'string')
    throw new LoginError(`${hostKey(host)}/api/v4/user did not answer with an account (id and username)`);
  return { id: user.id, username: user.username, ...(typeof user.name === 'string' && { name: user.name }) };
}

/** What the credentials file keeps of a token response. */
export function signInOf(
  client: TerminalClient,
  tokens: Tokens,
  account: SignIn['account'],
  asked: string[],
  now = Date.now(),
  signedInAt = now,
): SignIn {
  return {
    host: hostKey(client.host),
    client_id: client.clientId,
    access_token: tokens.access_token,
    ...(tokens.refresh_token !== undefined && { refresh_token: tokens.refresh_token }),
    ...(tokens.expires_in !== undefined && { expires_at: now + tokens.expires_in * 1000 }),
    scopes: typeof tokens.scope === 'string' && tokens.scope.trim() ? tokens.scope.trim().split(/\s+/) : asked,
    account,
    signed_in_at: signedInAt,
  };
}
