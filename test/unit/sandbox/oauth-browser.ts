// What the OAuth tests drive the sandbox's provider with: a small browser (a cookie jar, redirects followed within the
// sandbox and stopped at the client's redirect URI, forms read from the page and submitted) and the client's side
// (PKCE pairs, token requests as form posts).
import { createHash, randomBytes } from 'node:crypto';
import type { Application, ApplicationInput, Sandbox } from '../../../src/sandbox/server.js';
import { type Form, formsOf } from '../../helpers/oauth-browser.js';

// The form reader is the MCP sign-in browser's (test/helpers/oauth-browser.ts): one parser for both.
export { type Form, formsOf };

export interface Page {
  status: number;
  /** Where the page was answered from (after the redirects followed). */
  url: string;
  headers: Headers;
  html: string;
}

/** A browser with its own cookies; it follows redirects inside the sandbox and stops at any other address. */
export class Browser {
  readonly cookies = new Map<string, string>();
  /** Every Set-Cookie header received, for checking its attributes. */
  readonly setCookies: string[] = [];

  constructor(readonly sandbox: Sandbox) {}

  private async fetchOnce(method: string, url: string, body?: Record<string, string>): Promise<Response> {
    const headers: Record<string, string> = {};
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (body) headers['content-type'] = 'application/x-www-form-urlencoded';
    const response = await fetch(new URL(url, this.sandbox.url), {
      method,
      headers,
      body: body ? new URLSearchParams(body).toString() : undefined,
      redirect: 'manual',
    });
    for (const cookie of response.headers.getSetCookie()) {
      this.setCookies.push(cookie);
      const [pair, ...attributes] = cookie.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      if (attributes.some((a) => a.trim().toLowerCase() === 'max-age=0')) this.cookies.delete(name);
      else this.cookies.set(name, pair.slice(eq + 1).trim());
    }
    return response;
  }

  /**
   * Opens a page (GET, or POST with a form body) and follows redirects within the sandbox. A redirect elsewhere
   * (the client's redirect URI) is not followed: its address comes back as `leftTo`.
   */
  async open(
    url: string,
    options: { method?: string; body?: Record<string, string> } = {},
  ): Promise<Page & { leftTo?: URL }> {
    let method = options.method ?? 'GET';
    let body = options.body;
    let current = new URL(url, this.sandbox.url).href;
    for (let hops = 0; hops < 10; hops++) {
      const response = await this.fetchOnce(method, current, body);
      const html = await response.text();
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || !location) {
        return { status: response.status, url: current, headers: response.headers, html };
      }
      const next = new URL(location, current);
      if (next.origin !== new URL(this.sandbox.url).origin) {
        return { status: response.status, url: current, headers: response.headers, html, leftTo: next };
      }
      current = next.href;
      method = 'GET';
      body = undefined;
    }
    throw new Error('too many redirects');
  }

  /** Submits a form of a page with its fields, changed or added to by `fields`. */
  submit(form: Form, fields: Record<string, string> = {}) {
    return this.open(form.action, { method: form.method, body: { ...form.fields, ...fields } });
  }
}

/** The only form of a page (fails the test when there is not exactly one). */
export function formOf(page: Page): Form {
  const forms = formsOf(page.html);
  if (forms.length !== 1) throw new Error(`expected one form on ${page.url} (${page.status}), found ${forms.length}`);
  return forms[0];
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export function authorizeUrl(params: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) query.set(name, value);
  return `/oauth/authorize?${query}`;
}

/** Signs the browser in as a demo user, from the sign-in page it is on. */
export async function signInFrom(browser: Browser, page: Page, username: string, password?: string) {
  return browser.submit(formOf(page), { username, password: password ?? `${username}-sandbox-password` });
}

export interface TokenAnswer {
  status: number;
  headers: Headers;
  data: any;
}

/** A form POST to one of the provider's endpoints, optionally with client_secret_basic. */
export async function postForm(
  sandbox: Sandbox,
  path: string,
  body: Record<string, string | undefined>,
  basic?: { id: string; secret: string },
): Promise<TokenAnswer> {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(body)) if (value !== undefined) form.set(name, value);
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (basic) {
    const encode = (text: string) => encodeURIComponent(text);
    headers.authorization = `Basic ${Buffer.from(`${encode(basic.id)}:${encode(basic.secret)}`).toString('base64')}`;
  }
  const response = await fetch(`${sandbox.url}${path}`, { method: 'POST', headers, body: form.toString() });
  const text = await response.text();
  return { status: response.status, headers: response.headers, data: text ? JSON.parse(text) : undefined };
}

/** The token endpoint's answer to a confidential `client` for `fields`: its id and secret in the form, as most send them. */
export function tokenAnswer(
  sandbox: Sandbox,
  client: Pick<Application, 'uid' | 'secret'>,
  fields: Record<string, string | undefined>,
): Promise<TokenAnswer> {
  return postForm(sandbox, '/oauth/token', { client_id: client.uid, client_secret: client.secret, ...fields });
}

/** Where a terminal's public client is sent back: a loopback address, matched on any port. */
const TERMINAL_CALLBACK = 'http://127.0.0.1/callback';

/** A public client as a terminal registers it: no secret to keep, sent back to the loopback address. */
export function terminalApplication(scopes: ApplicationInput['scopes'], name = 'Terminal'): ApplicationInput {
  return { name, redirect_uris: [TERMINAL_CALLBACK], scopes, confidential: false };
}

/**
 * The whole browser part of the code flow for a demo user: authorize, sign in when asked, authorize on the consent
 * page when shown; gives the address the browser was sent back to.
 */
export async function authorizeInBrowser(
  browser: Browser,
  params: Record<string, string | undefined>,
  username = 'alice',
): Promise<URL> {
  let page = await browser.open(authorizeUrl({ response_type: 'code', ...params }));
  if (!page.leftTo && page.url.includes('/users/sign_in')) page = await signInFrom(browser, page, username);
  if (!page.leftTo && formsOf(page.html).some((f) => f.decisions.includes('authorize'))) {
    page = await browser.submit(formOf(page), { decision: 'authorize' });
  }
  if (!page.leftTo) throw new Error(`the browser was not sent back to the client (${page.status} at ${page.url})`);
  return page.leftTo;
}

/**
 * The code flow with PKCE from the browser to the token endpoint: a demo user (alice unless named) authorizes
 * `client` for `redirectUri`, and the client redeems the code, with its secret when it has one (a public client
 * sends none). Gives the token endpoint's answer, unchecked.
 */
export async function codeFlowTokens(
  sandbox: Sandbox,
  client: { id: string; secret?: string },
  redirectUri: string,
  options: { scope?: string; username?: string; browser?: Browser } = {},
): Promise<TokenAnswer> {
  const pair = pkcePair();
  const back = await authorizeInBrowser(
    options.browser ?? new Browser(sandbox),
    {
      client_id: client.id,
      redirect_uri: redirectUri,
      scope: options.scope,
      code_challenge: pair.challenge,
      code_challenge_method: 'S256',
    },
    options.username,
  );
  return postForm(sandbox, '/oauth/token', {
    grant_type: 'authorization_code',
    code: back.searchParams.get('code') ?? undefined,
    redirect_uri: redirectUri,
    code_verifier: pair.verifier,
    client_id: client.id,
    client_secret: client.secret,
  });
}

/** A response's JSON body, untyped: the tests check it field by field. */
export async function jsonOf(response: Response): Promise<any> {
  return response.json();
}
