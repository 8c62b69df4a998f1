// forgeops's authorization server for MCP clients, in front of the code host: RFC 8414 metadata, /oauth/authorize
// (checks the client and its exact redirect URI, then forgeops's own consent page naming both), the consent answer
// (only then is the person sent to the code host), the code host's callback (its tokens go to the vault, the client
// gets forgeops's one-time code), /oauth/token, /oauth/register (DCR) and /oauth/revoke (both ends).
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../log.js';
import type { StateStore } from '../state/store.js';
import type { McpClient, McpClients } from './mcp-clients.js';
import { type McpTokens, type Scope, SCOPES } from './mcp-tokens.js';
import {
  answerPublicCors,
  cookie,
  escapeHtml,
  NO_STORE,
  OAuthError,
  page,
  pageSecurityHeaders,
  readBody,
  readForm,
  sendJson,
  sendOAuthError,
  singleValued,
} from './oauth-http.js';
import type { CodeHostSignIn, PersonVault } from './sign-in-port.js';

export const AUTHORIZE_PATH = '/oauth/authorize';
export const CONSENT_PATH = '/oauth/consent';
export const CALLBACK_PATH = '/oauth/callback';
export const TOKEN_PATH = '/oauth/token';
export const REGISTER_PATH = '/oauth/register';
export const REVOKE_PATH = '/oauth/revoke';
export const AS_METADATA_PATH = '/.well-known/oauth-authorization-server';

/** A consent page left open, or a code host sign-in not finished, lapses after this long. */
const PENDING_TTL_MS = 10 * 60_000;
/** Sign-ins being consented to or under way at the code host, at most: strangers can start them. */
export const MAX_PENDING_SIGN_INS = 10_000;
/** Consent pages one address may have open at once, so that one machine cannot fill the table for everyone. */
export const MAX_PENDING_PER_ADDRESS = 30;
/** The browser the consent was given in: the code host's answer must come back to the same one. */
const BROWSER_COOKIE = 'forgeops_oauth';
const BROWSER_ID = /^[A-Za-z0-9_-]{43}$/;
const MAX_STATE_LENGTH = 1000;

/** What an authorization request asked for, once checked: kept from the consent page to the code host's answer. */
interface PendingSignIn {
  clientId: string;
  redirectUri: string;
  state?: string;
  codeChallenge: string;
  scopes: Scope[];
  resource: string;
  /** SHA-256 of the consenting browser's cookie. */
  browser: string;
}

interface CodeHostFlow extends PendingSignIn {
  codeVerifier: string;
  codeHostState: string;
}

const key = {
  pending: (id: string) => `mcp-oauth:pending:${id}`,
  pendingBy: (address: string, id: string) => `mcp-oauth:pending-by:${digest(address)}:${id}`,
  flow: (state: string) => `mcp-oauth:flow:${createHash('sha256').update(state).digest('base64url')}`,
};

export interface AuthorizationServerOptions {
  store: StateStore;
  clients: McpClients;
  tokens: McpTokens;
  codeHost: CodeHostSignIn;
  vault: PersonVault;
  /** personKey(account): who a code-host account is to forgeops. */
  personOf(account: { id: number }): string;
  /** forgeops's public URL (no trailing slash), the issuer; and the MCP resource URI. */
  issuer(): string;
  resource(): string;
  /**
   * Sign-ins that other parts of forgeops start through the same application share its one callback (a Slack Connect
   * link, `forgeops login`): an answer whose state is not an MCP sign-in's is offered to this first, and refused only
   * when it says false (not one of its own either).
   */
  otherCallback?: (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;
  /** Who a request comes from (through trusted proxies), for the registration rate and the pending sign-ins' cap. */
  address(req: IncomingMessage): string;
  log: Logger;
}

function digest(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

/** RFC 8414 metadata: what MCP clients discover after the protected resource metadata names this issuer. */
export function authorizationServerMetadata(issuer: string, dynamicRegistration = true) {
  return {
    issuer,
    authorization_endpoint: `${issuer}${AUTHORIZE_PATH}`,
    token_endpoint: `${issuer}${TOKEN_PATH}`,
    ...(dynamicRegistration && { registration_endpoint: `${issuer}${REGISTER_PATH}` }),
    revocation_endpoint: `${issuer}${REVOKE_PATH}`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    scopes_supported: [...SCOPES],
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: true,
  };
}

/**
 * The scopes to ask the person for. Hosts add words of their own (offline_access, openid) or none at all; RFC 6749
 * §3.3 lets the server grant what it decides and say so in the token response, so the words forgeops does not know
 * are left out, and a request naming none of its own asks for everything (api), which the person may narrow to reads.
 */
export function requestedScopes(scope: string | undefined): Scope[] {
  const known = (scope ?? '').split(' ').filter((word): word is Scope => (SCOPES as readonly string[]).includes(word));
  return known.length > 0 ? [...new Set(known)] : ['api'];
}

/** A page that sends the browser on: a redirect after a form post would be held to the form page's form-action. */
function navigate(res: ServerResponse, to: URL | string, words: string): void {
  const target = String(to);
  res.writeHead(200, pageSecurityHeaders());
  res.end(
    page(
      'forgeops sign-in',
      `<meta http-equiv="refresh" content="0;url=${escapeHtml(target)}"><p>${escapeHtml(words)}</p><p><a href="${escapeHtml(target)}">Continue</a></p>`,
    ),
  );
}

function errorPage(res: ServerResponse, status: number, title: string, words: string): void {
  res.writeHead(status, pageSecurityHeaders());
  res.end(page(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(words)}</p>`));
}

/** The client's redirect URI with the answer's parameters, and `iss` (RFC 9207) so it knows who answered. */
function clientRedirect(redirectUri: string, params: Record<string, string | undefined>, issuer: string): URL {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  url.searchParams.set('iss', issuer);
  return url;
}

function describeClient(client: McpClient): string {
  const name = client.client_name ? `“${escapeHtml(client.client_name)}”` : 'An application';
  if (client.kind === 'metadata-document') {
    return `${name}, published at <code>${escapeHtml(new URL(client.client_id).host)}</code>,`;
  }
  if (client.kind === 'registered') return `${name} (registered by the operator of this forgeops)`;
  return `${name} (a name it gave itself when it registered; forgeops has not verified it)`;
}

function consentPage(client: McpClient, pending: PendingSignIn, pendingId: string, issuer: string): string {
  const where = new URL(pending.redirectUri);
  const destination = where.protocol === 'https:' || where.protocol === 'http:' ? where.host : where.protocol;
  const scopes = pending.scopes.includes('api')
    ? 'read and change everything your code host account can (projects, pipelines, merge requests, releases…)'
    : 'read what your code host account can read';
  return page(
    'Allow access to forgeops?',
    `<h1>Allow access to forgeops?</h1>
<p>${describeClient(client)} asks to use forgeops at <code>${escapeHtml(issuer)}</code> as you, to ${escapeHtml(scopes)}.</p>
<p>If you allow it, you sign in at your code host next, and then you are sent to <code>${escapeHtml(pending.redirectUri)}</code> (<strong>${escapeHtml(destination)}</strong>) with access. Allow it only if you started this from that application.</p>
<form method="post" action="${CONSENT_PATH}">
<input type="hidden" name="request" value="${escapeHtml(pendingId)}">
<button type="submit" name="decision" value="allow">Allow</button>${
      pending.scopes.includes('api')
        ? '<button type="submit" name="decision" value="allow-read">Allow reading only</button>'
        : ''
    }<button type="submit" name="decision" value="deny">Deny</button>
</form>`,
  );
}

/** What clients fetch, from a browser page as well (see answerPublicCors); the rest are the person's pages. */
const FETCHED_BY_CLIENTS = new Set([TOKEN_PATH, REGISTER_PATH, REVOKE_PATH, AS_METADATA_PATH]);

type Route = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** Whether the request comes from the browser a step began in: its cookie's digest is the one the step kept. */
function fromBrowser(req: IncomingMessage, kept: string): boolean {
  const browser = cookie(req, BROWSER_COOKIE);
  return browser !== undefined && digest(browser) === kept;
}

/** The endpoints, one method a path; what a sign-in carries from one to the next is kept in the state store. */
export class AuthorizationServer {
  /** The paths it answers (the metadata, and its pages under /oauth/). */
  readonly paths: string[];
  private readonly routes: Record<string, Route>;

  constructor(private readonly options: AuthorizationServerOptions) {
    this.routes = {
      [AUTHORIZE_PATH]: (req, res) => this.authorize(req, res),
      [CONSENT_PATH]: (req, res) => this.consent(req, res),
      [CALLBACK_PATH]: (req, res) => this.callback(req, res),
      [TOKEN_PATH]: (req, res) => this.token(req, res),
      [REGISTER_PATH]: (req, res) => this.register(req, res),
      [REVOKE_PATH]: (req, res) => this.revoke(req, res),
      [AS_METADATA_PATH]: async (_req, res) =>
        sendJson(res, 200, authorizationServerMetadata(options.issuer(), options.clients.dynamicRegistration), {
          'cache-control': 'max-age=300',
        }),
    };
    this.paths = Object.keys(this.routes);
  }

  /** Answers one of its paths; OAuth errors as RFC 6749 bodies, anything else as server_error. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    const route = Object.hasOwn(this.routes, path) ? this.routes[path] : undefined;
    if (!route) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found\n');
      return;
    }
    if (FETCHED_BY_CLIENTS.has(path) && answerPublicCors(req, res)) return;
    try {
      await route(req, res);
    } catch (error) {
      if (res.headersSent) return void res.end();
      if (error instanceof OAuthError) return sendOAuthError(res, error);
      this.options.log.error(`mcp oauth ${path}: ${(error as Error).message}`);
      sendOAuthError(res, new OAuthError(500, 'server_error', 'forgeops could not answer; try again'));
    }
  }

  private async capped(prefix: string): Promise<void> {
    if ((await this.options.store.count(prefix)) >= MAX_PENDING_SIGN_INS) {
      throw new OAuthError(
        503,
        'temporarily_unavailable',
        'too many sign-ins are under way; try again in a few minutes',
      );
    }
  }

  /** The browser's id, kept in a cookie for the consent and the code host's answer (set here when it has none). */
  private browserOf(req: IncomingMessage, res: ServerResponse): string {
    const existing = cookie(req, BROWSER_COOKIE);
    if (existing && BROWSER_ID.test(existing)) return existing;
    const id = randomBytes(32).toString('base64url');
    const secure = this.options.issuer().startsWith('https:') ? '; Secure' : '';
    // Lax: the code host's redirect back (a top-level GET) carries it; a cross-site form post to the consent does not.
    res.setHeader('set-cookie', `${BROWSER_COOKIE}=${id}; Path=/oauth; HttpOnly; SameSite=Lax${secure}`);
    return id;
  }

  private async authorize(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const issuer = this.options.issuer();
    let params: Record<string, string>;
    try {
      params = singleValued(new URL(req.url ?? '/', 'http://x').searchParams);
    } catch (error) {
      return errorPage(res, 400, 'Sign-in refused', (error as Error).message);
    }
    // Until the client and its redirect URI are known good, errors are shown here: never sent to an unchecked URI.
    let client: McpClient;
    try {
      client = await this.options.clients.find(params.client_id);
    } catch (error) {
      return errorPage(res, 400, 'Sign-in refused', (error as Error).message);
    }
    const redirectUri = params.redirect_uri;
    if (!redirectUri || !client.redirect_uris.includes(redirectUri)) {
      return errorPage(
        res,
        400,
        'Sign-in refused',
        redirectUri
          ? `redirect_uri ${redirectUri} is not one the client registered (they must match exactly)`
          : 'redirect_uri is required',
      );
    }
    const state = params.state;
    const fail = (error: string, description: string) =>
      navigate(
        res,
        clientRedirect(redirectUri, { error, error_description: description, state }, issuer),
        'Returning you to the application.',
      );
    if (state !== undefined && state.length > MAX_STATE_LENGTH) return fail('invalid_request', 'state is too long');
    if (params.response_type !== 'code') return fail('unsupported_response_type', 'response_type must be code');
    if (!params.code_challenge || params.code_challenge_method !== 'S256') {
      return fail('invalid_request', 'PKCE is required: send code_challenge with code_challenge_method=S256');
    }
    if (!/^[A-Za-z0-9_-]{43}$/.test(params.code_challenge)) {
      return fail('invalid_request', 'code_challenge must be the base64url SHA-256 of the verifier (43 characters)');
    }
    const scopes = requestedScopes(params.scope);
    const resource = this.options.resource();
    if (params.resource !== undefined && params.resource !== resource) {
      return fail('invalid_target', `resource must be ${resource}`);
    }
    const address = this.options.address(req);
    try {
      await this.capped('mcp-oauth:pending:');
      if ((await this.options.store.count(`mcp-oauth:pending-by:${digest(address)}:`)) >= MAX_PENDING_PER_ADDRESS) {
        throw new OAuthError(
          429,
          'temporarily_unavailable',
          `at most ${MAX_PENDING_PER_ADDRESS} sign-ins may wait for consent from one address; finish or wait ten minutes`,
        );
      }
    } catch (error) {
      return fail('temporarily_unavailable', (error as Error).message);
    }
    const pending: PendingSignIn = {
      clientId: client.client_id,
      redirectUri,
      state,
      codeChallenge: params.code_challenge,
      scopes,
      resource,
      browser: digest(this.browserOf(req, res)),
    };
    const pendingId = randomBytes(24).toString('base64url');
    await this.options.store.set(key.pending(pendingId), pending, { ttlMs: PENDING_TTL_MS });
    await this.options.store.set(key.pendingBy(address, pendingId), 1, { ttlMs: PENDING_TTL_MS });
    res.writeHead(200, pageSecurityHeaders("'self'"));
    res.end(consentPage(client, pending, pendingId, issuer));
  }

  /** The person's answer on forgeops's own consent page: only a yes from the same browser goes on to the code host. */
  private async consent(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') return errorPage(res, 405, 'Not allowed', 'The consent is given by its form.');
    const form = await readForm(req);
    const pending = form.request ? await this.options.store.take<PendingSignIn>(key.pending(form.request)) : undefined;
    if (form.request) await this.options.store.delete(key.pendingBy(this.options.address(req), form.request));
    if (!pending) {
      const why = 'This consent is unknown, expired or already answered. Start again from your application.';
      return errorPage(res, 400, 'Sign-in expired', why);
    }
    // A form posted from another site, or another browser: the person in front of this page never consented.
    if (!fromBrowser(req, pending.browser)) {
      return errorPage(res, 403, 'Sign-in refused', 'This consent was not answered from the browser it was shown in.');
    }
    const issuer = this.options.issuer();
    if (form.decision !== 'allow' && form.decision !== 'allow-read') {
      return navigate(
        res,
        clientRedirect(
          pending.redirectUri,
          { error: 'access_denied', error_description: 'the person denied access', state: pending.state },
          issuer,
        ),
        'Access denied. Returning you to the application.',
      );
    }
    const scopes: Scope[] = form.decision === 'allow-read' ? ['read_api'] : pending.scopes;
    await this.capped('mcp-oauth:flow:');
    const request = await this.options.codeHost.authorizationRequest();
    const flow: CodeHostFlow = { ...pending, scopes, codeVerifier: request.codeVerifier, codeHostState: request.state };
    await this.options.store.set(key.flow(request.state), flow, { ttlMs: PENDING_TTL_MS });
    navigate(res, request.url, 'Sending you to your code host to sign in.');
  }

  /** The code host's answer: its code becomes the person's tokens in the vault, and the client gets forgeops's code. */
  private async callback(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', `${this.options.issuer()}/`);
    const state = url.searchParams.get('state');
    const flow = state ? await this.options.store.take<CodeHostFlow>(key.flow(state)) : undefined;
    if (!flow && (await this.options.otherCallback?.(req, res))) return;
    if (!flow) {
      const why =
        'forgeops has no sign-in waiting for this answer (it expired, was used, or never passed through forgeops’s consent). Start again from your application.';
      return errorPage(res, 400, 'Sign-in not started here', why);
    }
    if (!fromBrowser(req, flow.browser)) {
      return errorPage(res, 403, 'Sign-in refused', 'This sign-in was started in another browser.');
    }
    const issuer = this.options.issuer();
    const back = (params: Record<string, string | undefined>, words: string) =>
      navigate(res, clientRedirect(flow.redirectUri, { ...params, state: flow.state }, issuer), words);
    const refused = url.searchParams.get('error');
    if (refused) {
      return back(
        {
          error: refused === 'access_denied' ? 'access_denied' : 'server_error',
          error_description: `the code host answered ${refused}`,
        },
        'The code host did not sign you in. Returning you to the application.',
      );
    }
    let person: string;
    let scopes = flow.scopes;
    try {
      const { tokens: codeHostTokens, account } = await this.options.codeHost.signIn(url, {
        state: flow.codeHostState,
        codeVerifier: flow.codeVerifier,
      });
      // A code host grant without api (FORGEOPS_OAUTH_SCOPES=read_api) can only read: forgeops's grant says so too,
      // so the host lists reads only instead of writes the code host would refuse.
      if (!codeHostTokens.scopes.includes('api')) scopes = ['read_api'];
      person = this.options.personOf(account);
      await this.options.vault.save(person, codeHostTokens, account);
    } catch (error) {
      this.options.log.warn(`mcp sign-in: the code host's answer could not be redeemed: ${(error as Error).message}`);
      return back(
        { error: 'server_error', error_description: 'the code host did not complete the sign-in' },
        'The sign-in failed at the code host. Returning you to the application.',
      );
    }
    const code = await this.options.tokens.issueCode({
      clientId: flow.clientId,
      redirectUri: flow.redirectUri,
      codeChallenge: flow.codeChallenge,
      scopes,
      person,
      resource: flow.resource,
    });
    this.options.log.info(`mcp sign-in: ${person} signed in for client ${flow.clientId.slice(0, 80)}`);
    back({ code }, 'Signed in. Returning you to the application.');
  }

  /** client_id from the form, or from HTTP Basic's user part (a client that sends both must send the same). */
  private clientIdOf(req: IncomingMessage, form: Record<string, string>): string | undefined {
    const auth = req.headers.authorization ?? '';
    if (auth.startsWith('Basic ')) {
      const user = decodeURIComponent(Buffer.from(auth.slice(6), 'base64').toString('utf8').split(':')[0] ?? '');
      if (form.client_id && form.client_id !== user) {
        throw new OAuthError(400, 'invalid_request', 'client_id differs between the body and the Authorization header');
      }
      return user;
    }
    return form.client_id;
  }

  private async token(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') throw new OAuthError(405, 'invalid_request', 'the token endpoint takes POST');
    const form = await readForm(req);
    const clientId = this.clientIdOf(req, form);
    if (!clientId) throw new OAuthError(401, 'invalid_client', 'client_id is required');
    await this.options.clients.find(clientId).catch((error: OAuthError) => {
      throw new OAuthError(401, 'invalid_client', error.message);
    });
    if (form.grant_type === 'authorization_code') {
      if (!form.code) throw new OAuthError(400, 'invalid_request', 'code is required');
      const answer = await this.options.tokens.redeemCode(form.code, {
        clientId,
        redirectUri: form.redirect_uri,
        codeVerifier: form.code_verifier,
        resource: form.resource,
      });
      return sendJson(res, 200, answer);
    }
    if (form.grant_type === 'refresh_token') {
      if (!form.refresh_token) throw new OAuthError(400, 'invalid_request', 'refresh_token is required');
      if (form.resource !== undefined && form.resource !== this.options.resource()) {
        throw new OAuthError(400, 'invalid_target', `resource must be ${this.options.resource()}`);
      }
      return sendJson(res, 200, await this.options.tokens.refresh(form.refresh_token, { clientId, scope: form.scope }));
    }
    throw new OAuthError(
      400,
      'unsupported_grant_type',
      `grant_type must be authorization_code or refresh_token${form.grant_type ? `, not ${form.grant_type}` : ''}`,
    );
  }

  private async register(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') throw new OAuthError(405, 'invalid_request', 'registration takes POST');
    const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (type !== 'application/json') {
      throw new OAuthError(400, 'invalid_client_metadata', 'send the client metadata as application/json');
    }
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req));
    } catch (error) {
      if (error instanceof OAuthError) throw error;
      throw new OAuthError(400, 'invalid_client_metadata', 'the body is not JSON');
    }
    sendJson(res, 201, await this.options.clients.register(body, this.options.address(req)));
  }

  /** RFC 7009: revoking a token signs its person out at both ends; an unknown token is answered 200 all the same. */
  private async revoke(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') throw new OAuthError(405, 'invalid_request', 'revocation takes POST');
    const form = await readForm(req);
    if (!form.token) throw new OAuthError(400, 'invalid_request', 'token is required');
    const found = await this.options.tokens.grantOf(form.token);
    if (found) {
      await this.options.tokens.revokeGrant(found.grant);
      await this.options.vault.signOut(found.person).catch((error: Error) => {
        this.options.log.warn(
          `mcp sign-out: the code host did not take back ${found.person}'s tokens: ${error.message}`,
        );
      });
      this.options.log.info(`mcp sign-out: ${found.person}`);
    }
    res.writeHead(200, { ...NO_STORE }).end();
  }
}
