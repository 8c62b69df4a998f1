// An MCP host signing a person in to `forgeops serve` (OAuth mode, embedded sandbox) with the person in headless
// Chromium: the SDK client's own flow (discovery, DCR, PKCE) sends them to forgeops's consent page, then the code
// host's sign-in and consent, and back through forgeops's callback to the host's local listener. Chromium enforces
// every page's CSP on the way (form-action included, on the redirects after a form post): none may refuse anything.
import { createServer, type Server } from 'node:http';
import type { Browser } from 'playwright-core';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser-host.mjs';
import { MemoryOAuthProvider, signInHost } from '../helpers/mcp-oauth-host.js';
import { type OAuthServe, startOAuthServe } from '../helpers/oauth-serve.js';

let serve: OAuthServe;
let browser: Browser;
let listener: Server;
let redirect: string;

beforeAll(async () => {
  // The host's local listener, where the browser lands with the code (as desktop hosts listen on loopback).
  listener = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' }).end('You can close this window.');
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const address = listener.address();
  redirect = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/callback`;
  [serve, browser] = await Promise.all([startOAuthServe({ FORGEOPS_TOOLS: 'get_current_user' }), launchChromium()]);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  serve?.stop();
  await new Promise((resolve) => listener?.close(resolve));
});

describe('signing in from an MCP host in a real browser', () => {
  it('consents at forgeops, signs in and consents at the code host, and the host acts as that person', async () => {
    const page = await browser.newPage();
    const refusals: string[] = [];
    page.on('console', (message) => {
      if (/content security policy|refused to/i.test(message.text())) refusals.push(message.text());
    });
    const seen: string[] = [];
    const host = new MemoryOAuthProvider('Chromium host', redirect);
    const { client, back } = await signInHost(serve.mcpUrl, host, async (authorizationUrl) => {
      await page.goto(authorizationUrl.href);
      // forgeops's own consent, naming the client and where it will send the person.
      seen.push((await page.locator('body').textContent()) ?? '');
      await page.locator('button[value="allow"]').click();
      // The code host: sign in, then its consent for forgeops's one application.
      await page.waitForURL(`${serve.sandboxUrl}/users/sign_in**`, { timeout: 15_000 });
      await page.locator('#username').fill('bob');
      await page.locator('#password').fill('bob-sandbox-password');
      await page.locator('button[type="submit"]').click();
      await page.locator('button[value="authorize"]').click({ timeout: 15_000 });
      await page.waitForURL(`${redirect}**`, { timeout: 15_000 });
      return new URL(page.url());
    });
    expect(seen[0]).toContain('Chromium host');
    expect(seen[0]).toContain(redirect);
    expect(back.searchParams.get('iss')).toBe(serve.base);
    expect(refusals).toEqual([]);
    const result = (await client.callTool({ name: 'get_current_user', arguments: {} })) as CallToolResult;
    const text = (result.content[0] as { text: string }).text;
    expect(text).toContain('bob');
    expect(text).not.toContain('alice');
    await client.close();
    await page.close();
  }, 60_000);
});
