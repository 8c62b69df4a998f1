// An MCP client running in a browser page (the Inspector's web client, a web host) talks to `forgeops serve` across
// origins: Chromium itself enforces CORS here. From an allowed origin (a loopback page) it reads the sign-in
// challenge of /mcp, discovers, registers and reaches the token endpoint; from any page it may read the metadata;
// a page of an origin that is not allowed reads nothing of /mcp, and no page may fetch the person's pages.
import { createServer, type Server } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser-host.mjs';
import { type OAuthServe, startOAuthServe } from '../helpers/oauth-serve.js';

let serve: OAuthServe;
let browser: Browser;
let site: Server;
let sitePort: number;

beforeAll(async () => {
  // The pages the fetches run from: an empty document on a loopback port of its own (another origin).
  site = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><p>host'));
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  sitePort = (site.address() as { port: number }).port;
  [serve, browser] = await Promise.all([startOAuthServe(), launchChromium()]);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  serve?.stop();
  await new Promise((resolve) => site?.close(resolve));
});

/** A page at `origin` (its host resolves to this machine: *.localhost does in Chromium). */
async function pageAt(origin: string): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(`${origin}/`);
  return page;
}

interface Seen {
  ok: boolean;
  status?: number;
  challenge?: string | null;
  body?: string;
  error?: string;
}

/** A fetch made by the page's own script: what the page could read, or the network error CORS turned it into. */
function fetchFrom(page: Page, url: string, init: RequestInit = {}): Promise<Seen> {
  return page.evaluate(
    async ([url, init]) => {
      try {
        const response = await fetch(url, init);
        return {
          ok: true,
          status: response.status,
          challenge: response.headers.get('www-authenticate'),
          body: await response.text(),
        };
      } catch (error) {
        return { ok: false, error: String(error) };
      }
    },
    [url, init] as const,
  );
}

const initialize = {
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
  body: JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'page', version: '1' } },
  }),
};

describe('a browser client of an allowed origin', () => {
  it('reads the 401 challenge of /mcp, discovers, registers and reaches the token endpoint', async () => {
    const page = await pageAt(`http://127.0.0.1:${sitePort}`);
    const refused = await fetchFrom(page, serve.mcpUrl, initialize);
    expect(refused).toMatchObject({ ok: true, status: 401 });
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(refused.challenge ?? '')?.[1];
    expect(metadataUrl, String(refused.challenge)).toBeDefined();

    const resource = await fetchFrom(page, metadataUrl as string);
    expect(resource.ok).toBe(true);
    const issuer = (JSON.parse(resource.body as string) as { authorization_servers: string[] })
      .authorization_servers[0];
    const server = await fetchFrom(page, `${issuer}/.well-known/oauth-authorization-server`);
    const endpoints = JSON.parse(server.body as string) as { registration_endpoint: string; token_endpoint: string };

    // JSON registration and a form token request: both need a preflight, which must let them through.
    const registered = await fetchFrom(page, endpoints.registration_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Page client',
        redirect_uris: [`http://127.0.0.1:${sitePort}/callback`],
        token_endpoint_auth_method: 'none',
      }),
    });
    expect(registered).toMatchObject({ ok: true, status: 201 });
    const token = await fetchFrom(page, endpoints.token_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=authorization_code&code=made-up&code_verifier=x&client_id=nobody',
    });
    expect(token.ok).toBe(true);
    expect(JSON.parse(token.body as string)).toMatchObject({ error: expect.any(String) });
    await page.close();
  }, 60_000);
});

describe('a page of an origin that is not allowed', () => {
  it('reads nothing of /mcp, though it may read the public metadata', async () => {
    const page = await pageAt(`http://elsewhere.localhost:${sitePort}`);
    const mcp = await fetchFrom(page, serve.mcpUrl, initialize);
    expect(mcp.ok).toBe(false);
    const metadata = await fetchFrom(page, `${serve.base}/.well-known/oauth-protected-resource/mcp`);
    expect(metadata).toMatchObject({ ok: true, status: 200 });
    await page.close();
  }, 60_000);

  it('no page may fetch the authorization page (a navigation only)', async () => {
    const page = await pageAt(`http://127.0.0.1:${sitePort}`);
    const authorize = await fetchFrom(page, `${serve.base}/oauth/authorize?client_id=x`);
    expect(authorize.ok).toBe(false);
    await page.close();
  }, 60_000);
});

describe('the preflight of /mcp', () => {
  it('is answered for an allowed origin with what the transport sends, and refused for another', async () => {
    const ask = (origin: string) =>
      fetch(serve.mcpUrl, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type, mcp-session-id, mcp-protocol-version',
        },
      });
    const allowed = await ask(`http://127.0.0.1:${sitePort}`);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(`http://127.0.0.1:${sitePort}`);
    expect(allowed.headers.get('access-control-allow-headers')).toMatch(/authorization.*mcp-session-id/);
    const other = await ask('https://evil.example');
    expect(other.status).toBe(403);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});
