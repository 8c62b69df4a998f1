// Slack's Connect links as the e2e files drive them: the link out of the bot's answer, the browser's walk through the
// Connect page and the sandbox's sign-in up to the callback, and the tokens the vault holds (to look for them where
// they must never be, and to try them at the code host).
import { hkdfSync } from 'node:crypto';
import { compactDecrypt } from 'jose';
import type { CodeHostTokens } from '../../src/identity/code-host-oauth.js';
import type { ApplicationInput, Sandbox } from '../../src/sandbox/server.js';
import type { StateStore } from '../../src/state/store.js';
import { Browser, formOf, formsOf, signInFrom } from '../unit/sandbox/oauth-browser.js';

/** forgeops's one application at the sandbox, confidential, its callback the one Connect and the MCP sign-in share. */
export const FORGEOPS_APPLICATION: ApplicationInput = {
  name: 'forgeops',
  redirect_uris: ['http://127.0.0.1/oauth/callback'],
  scopes: ['api', 'read_user'],
  confidential: true,
};

/** The bot's settings naming that application, known once the sandbox has registered it. */
export function applicationSettings(sandbox: Sandbox): Record<string, string> {
  const app = sandbox.applications[0];
  return { FORGEOPS_OAUTH_CLIENT_ID: app.uid, FORGEOPS_OAUTH_CLIENT_SECRET: app.secret! };
}

/** The Connect button's link in a bot's answer (fails when there is none). */
export function connectLinkOf(body: Record<string, unknown>): string {
  const actions = (body.blocks as Array<{ type: string; elements?: Array<{ url?: string }> }> | undefined)?.find(
    (b) => b.type === 'actions',
  );
  const url = actions?.elements?.find((e) => e.url?.includes('/connect/'))?.url;
  if (!url) throw new Error(`no Connect link in ${JSON.stringify(body)}`);
  return url;
}

/** Whether an answer offers a Connect link. */
export function offersConnect(body: Record<string, unknown>): boolean {
  return JSON.stringify(body.blocks ?? []).includes('/connect/');
}

/** The Continue button pressed on the Connect page: a POST as the browser sends it from the page itself. */
export function pressContinue(link: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(link, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'sec-fetch-site': 'same-origin', origin: new URL(link).origin, ...headers },
  });
}

/**
 * Continue pressed, then signed in at the sandbox as `username` and the application allowed: the callback address
 * the code host sends the browser back to (not opened yet).
 */
export async function signInThrough(sandbox: Sandbox, link: string, username: string): Promise<URL> {
  const go = await pressContinue(link);
  if (go.status !== 303) throw new Error(`Continue answered ${go.status}: ${await go.text()}`);
  return signInAt(sandbox, go.headers.get('location')!, username);
}

/** From the code host's authorization address: signed in as `username`, allowed; the callback address. */
export async function signInAt(sandbox: Sandbox, authorize: string, username: string): Promise<URL> {
  const browser = new Browser(sandbox);
  let page = await signInFrom(browser, await browser.open(authorize), username);
  if (!page.leftTo && formsOf(page.html).some((f) => f.decisions.includes('authorize')))
    page = await browser.submit(formOf(page), { decision: 'authorize' });
  if (!page.leftTo) throw new Error(`the sign-in did not send the browser back (${page.status} at ${page.url})`);
  return page.leftTo;
}

/** Every pair of code host tokens in the vault, opened with FORGEOPS_SECRET as the vault does. */
export async function vaultTokens(store: StateStore, secret: string): Promise<CodeHostTokens[]> {
  const key = new Uint8Array(hkdfSync('sha256', secret, 'forgeops', 'code host tokens v1', 32));
  const tokens: CodeHostTokens[] = [];
  for (const name of await store.keys('identity:codehost-tokens:')) {
    const record = await store.get<{ sealed: string }>(name);
    if (!record) continue;
    const { plaintext } = await compactDecrypt(record.sealed, key);
    tokens.push(JSON.parse(new TextDecoder().decode(plaintext)) as CodeHostTokens);
  }
  return tokens;
}

/** What the sandbox's API answers to a bearer token on GET /user: 200 while it lives, 401 once revoked. */
export async function userStatus(sandbox: Sandbox, token: string): Promise<number> {
  const response = await fetch(`${sandbox.url}/api/v4/user`, { headers: { authorization: `Bearer ${token}` } });
  await response.body?.cancel();
  return response.status;
}
