// A small browser for the MCP sign-in, driven with fetch as a person would click: one cookie jar per host (as real
// browsers keep them, whatever the port), redirects and forgeops's navigating pages followed, forgeops's consent and
// the sandbox's sign-in and consent forms answered, and a stop at the MCP client's redirect URI.
export interface Visited {
  status: number;
  url: string;
  headers: Headers;
  html: string;
}

export interface Form {
  action: string;
  method: string;
  /** Hidden and prefilled fields by name. */
  fields: Record<string, string>;
  /** The values of its submit buttons named `decision`. */
  decisions: string[];
}

const decode = (text: string) =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** The forms of a page, in order. */
export function formsOf(html: string): Form[] {
  return [...html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)].map(([, attributes, inner]) => {
    const attribute = (text: string, name: string) => new RegExp(`\\b${name}="([^"]*)"`).exec(text)?.[1];
    const fields: Record<string, string> = {};
    for (const [input] of inner.matchAll(/<input\b[^>]*>/g)) {
      const name = attribute(input, 'name');
      const value = attribute(input, 'value');
      if (name && value !== undefined) fields[name] = decode(value);
    }
    const decisions = [...inner.matchAll(/<button\b[^>]*name="decision"[^>]*value="([^"]*)"/g)].map((m) => m[1]);
    return {
      action: decode(attribute(attributes, 'action') ?? ''),
      method: (attribute(attributes, 'method') ?? 'get').toUpperCase(),
      fields,
      decisions,
    };
  });
}

/** Where a page's meta refresh sends the browser, if it has one. */
export function metaRefresh(html: string): string | undefined {
  const match = /<meta http-equiv="refresh" content="0;url=([^"]*)">/.exec(html);
  return match ? decode(match[1]) : undefined;
}

export class OAuthBrowser {
  /** Cookies by host name, then by cookie name. */
  readonly jar = new Map<string, Map<string, string>>();
  /** Every address visited, in order. */
  readonly visited: string[] = [];

  /** One request, no redirect followed. */
  async fetch(url: string | URL, init: { method?: string; form?: Record<string, string> } = {}): Promise<Visited> {
    const target = new URL(url);
    const cookies = this.jar.get(target.hostname);
    const headers: Record<string, string> = {};
    if (cookies?.size) headers.cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (init.form) headers['content-type'] = 'application/x-www-form-urlencoded';
    this.visited.push(target.href);
    const response = await fetch(target, {
      method: init.method ?? 'GET',
      headers,
      body: init.form ? new URLSearchParams(init.form).toString() : undefined,
      redirect: 'manual',
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      const jar = this.jar.get(target.hostname) ?? new Map<string, string>();
      jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
      this.jar.set(target.hostname, jar);
    }
    return { status: response.status, url: target.href, headers: response.headers, html: await response.text() };
  }

  /**
   * Opens `url` and follows 3xx redirects and meta refreshes until a page asks something, or the next address starts
   * with `stopAt` (the MCP client's redirect URI): then that address comes back as `leftTo`.
   */
  async open(
    url: string | URL,
    stopAt: string,
    init: { method?: string; form?: Record<string, string> } = {},
  ): Promise<Visited & { leftTo?: URL }> {
    let next: { url: string; method?: string; form?: Record<string, string> } = { url: String(url), ...init };
    for (let hops = 0; hops < 15; hops++) {
      if (next.url.startsWith(stopAt))
        return { status: 0, url: next.url, headers: new Headers(), html: '', leftTo: new URL(next.url) };
      const page = await this.fetch(next.url, next);
      const location = page.headers.get('location');
      const refresh = metaRefresh(page.html);
      const onward = page.status >= 300 && page.status < 400 && location ? location : refresh;
      if (!onward) return page;
      next = { url: new URL(onward, page.url).href };
    }
    throw new Error('too many redirects');
  }

  /** Submits a page's one form (or the form whose action ends with `action`) with `fields` over its own. */
  submit(page: Visited, stopAt: string, fields: Record<string, string> = {}, action?: string) {
    const forms = formsOf(page.html).filter((f) => !action || f.action.endsWith(action));
    if (forms.length !== 1)
      throw new Error(`expected one form on ${page.url} (${page.status}): ${page.html.slice(0, 300)}`);
    const [form] = forms;
    return this.open(new URL(form.action, page.url), stopAt, {
      method: form.method,
      form: { ...form.fields, ...fields },
    });
  }
}

export interface SignInChoices {
  /** The sandbox's demo user (password `<username>-sandbox-password`). */
  username: string;
  /** What the person answers on forgeops's consent page (default allow). */
  decision?: 'allow' | 'allow-read' | 'deny';
}

/**
 * The person's part of an MCP host's sign-in: forgeops's consent, then the code host's sign-in and consent when asked;
 * gives the address the browser was sent back to (the MCP client's redirect URI with code or error, state and iss).
 */
export async function signInAsPerson(
  browser: OAuthBrowser,
  authorizationUrl: string | URL,
  redirectUri: string,
  choices: SignInChoices,
): Promise<URL> {
  let page = await browser.open(authorizationUrl, redirectUri);
  if (!page.leftTo)
    page = await browser.submit(page, redirectUri, { decision: choices.decision ?? 'allow' }, '/oauth/consent');
  if (!page.leftTo && page.url.includes('/users/sign_in')) {
    page = await browser.submit(page, redirectUri, {
      username: choices.username,
      password: `${choices.username}-sandbox-password`,
    });
  }
  if (!page.leftTo && formsOf(page.html).some((f) => f.decisions.includes('authorize'))) {
    page = await browser.submit(page, redirectUri, { decision: 'authorize' });
  }
  if (!page.leftTo)
    throw new Error(
      `the browser was not sent back to the client (${page.status} at ${page.url}): ${page.html.slice(0, 400)}`,
    );
  return page.leftTo;
}
