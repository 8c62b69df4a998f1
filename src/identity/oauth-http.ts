// The HTTP plumbing forgeops's authorization server shares: form and JSON bodies read under a cap, OAuth error
// bodies (RFC 6749 §5.2: error + error_description), no-store answers, cookies, and HTML escaping for its pages.
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Token, registration and consent requests are small: anything larger is refused before it is read in full. */
export const MAX_FORM_BYTES = 16 * 1024;

/** One OAuth failure: its status, RFC 6749 error code and a description naming the bad field. */
export class OAuthError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    description: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
  }
}

/** Nothing an authorization server answers may be cached by a browser or a proxy (RFC 6749 §5.1). */
export const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' } as const;

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...NO_STORE, ...headers });
  res.end(JSON.stringify(body));
}

/**
 * The endpoints a client calls with fetch (metadata, token, registration, revocation) may be called from any page, as
 * the MCP SDK's own authorization router allows: they use no cookie and answer only what the request proves. The
 * person-facing pages (authorize, consent, callback) are navigations and get none of this. True when it answered (a
 * preflight).
 */
export function answerPublicCors(req: IncomingMessage, res: ServerResponse): boolean {
  res.setHeader('access-control-allow-origin', '*');
  res.setHeader('access-control-expose-headers', 'www-authenticate');
  if (req.method !== 'OPTIONS') return false;
  res
    .writeHead(204, {
      'access-control-allow-methods': 'GET, POST, OPTIONS',
      'access-control-allow-headers': 'authorization, content-type, mcp-protocol-version',
      'access-control-max-age': '86400',
    })
    .end();
  return true;
}

export function sendOAuthError(res: ServerResponse, error: OAuthError): void {
  sendJson(res, error.status, { error: error.error, error_description: error.message }, error.headers);
}

/** The body as text, refused with 413 past `max` bytes. */
export async function readBody(req: IncomingMessage, max = MAX_FORM_BYTES): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > max) throw new OAuthError(413, 'invalid_request', `the request body is larger than ${max} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** An application/x-www-form-urlencoded body (token, revocation, consent): a repeated parameter is an error (RFC 6749 §3.1). */
export async function readForm(req: IncomingMessage): Promise<Record<string, string>> {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    throw new OAuthError(400, 'invalid_request', 'send the parameters as application/x-www-form-urlencoded');
  }
  return singleValued(new URLSearchParams(await readBody(req)));
}

/** Parameters as a record; each may appear once. */
export function singleValued(params: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of params) {
    if (Object.hasOwn(out, name)) throw new OAuthError(400, 'invalid_request', `the parameter ${name} is repeated`);
    out[name] = value;
  }
  return out;
}

export function cookie(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** A page's CSP: nothing but its own inline-free markup and styles; never framed (clickjacking the consent button). */
export function pageSecurityHeaders(formAction?: string): Record<string, string> {
  const csp = [
    "default-src 'none'",
    `style-src 'sha256-${PAGE_STYLE_HASH}'`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
    ...(formAction ? [`form-action ${formAction}`] : []),
  ].join('; ');
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': csp,
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    ...NO_STORE,
  };
}

/** The one style block every page carries (its hash is what the CSP allows). */
export const PAGE_STYLE =
  'body{font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;line-height:1.5}' +
  'code{background:#f3f3f3;padding:0 .25rem}button{font-size:1rem;padding:.4rem 1rem;margin-right:.5rem}';
const PAGE_STYLE_HASH = createHash('sha256').update(PAGE_STYLE).digest('base64');

/** A whole page: the title and body are the caller's, already escaped. */
export function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(title)}</title><style>${PAGE_STYLE}</style></head><body>${body}</body></html>`;
}
