// Plain server-rendered HTML for the provider's pages: a template tag that escapes every interpolated value unless
// it is itself a fragment built by the tag, and the page frame with its headers (a strict Content-Security-Policy,
// no framing, no caching, no referrer).
import { createHash } from 'node:crypto';
import type { Reply } from '../../core/router.js';

/** Markup built by `html`: safe to interpolate into more markup as is. */
export class SafeHtml {
  constructor(readonly text: string) {}
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

function render(value: unknown): string {
  if (value instanceof SafeHtml) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === undefined || value === null || value === false) return '';
  return escapeHtml(String(value));
}

/** A template tag: text and attribute values are escaped; nested `html` fragments and arrays of them are not. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new SafeHtml(out);
}

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;margin:0;background:#f6f6f8;color:#222}
main{max-width:28rem;margin:4rem auto;background:#fff;border:1px solid #ddd;border-radius:8px;padding:2rem}
h1{font-size:1.3rem;margin-top:0}label{display:block;margin:.8rem 0 .2rem}
input[type=text],input[type=password]{width:100%;box-sizing:border-box;padding:.5rem;font:inherit}
button{font:inherit;padding:.5rem 1rem;margin:1rem .5rem 0 0;border-radius:4px;border:1px solid #888;cursor:pointer}
button.primary{background:#1f75cb;color:#fff;border-color:#1f75cb}
.error{background:#fdecea;border:1px solid #e0a9a3;padding:.6rem;border-radius:4px}
ul.scopes li{margin:.4rem 0}code{background:#eee;padding:0 .2rem}`;

// The stylesheet is the page's only inline content, allowed by its hash: no script runs on these pages at all.
const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

/** The source expression that lets a form's submission (and the redirects after it) reach `uri` (CSP form-action). */
export function formActionSource(uri: string): string | undefined {
  if (!URL.canParse(uri)) return undefined;
  const url = new URL(uri);
  if (url.protocol === 'http:' || url.protocol === 'https:') return url.origin;
  // A private-use scheme (com.example.app:/callback) is allowed by its scheme.
  return /^[a-z][a-z0-9+.-]*:$/i.test(url.protocol) ? url.protocol : undefined;
}

export interface PageOptions {
  status?: number;
  /**
   * Where this page's forms may lead besides the provider itself: browsers apply form-action to the redirects that
   * follow a submission, so a consent page must allow the client's redirect URI.
   */
  formOrigins?: readonly string[];
}

/** Sends a page: the frame around `body`, with the headers every provider page carries. */
export function sendPage(reply: Reply, title: string, body: SafeHtml, options: PageOptions = {}): void {
  const formAction = ["'self'", ...(options.formOrigins ?? [])].join(' ');
  reply
    .header(
      'content-security-policy',
      `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; img-src 'self'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
    )
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-store');
  const page = html`<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} \u00b7 Sandbox</title><style>${new SafeHtml(STYLE)}</style></head>
<body><main>
${body}
</main></body>
</html>
`;
  reply.send(options.status ?? 200, page.text, 'text/html; charset=utf-8');
}

/** A redirect (302) that carries the same no-cache, no-referrer headers as the pages. */
export function sendRedirect(reply: Reply, location: string): void {
  reply.header('location', location).header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
  reply.empty(302);
}
