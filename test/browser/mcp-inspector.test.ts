// The MCP Inspector (its command-line client, mcpdo) connects to `forgeops serve` by URL alone, as a person would:
// it finds the sign-in by itself (401 → protected resource metadata → registration → PKCE), prints the sign-in URL,
// the person consents and signs in in headless Chromium, and its calls then run as that person, on both protocol
// revisions. A client nobody here wrote: what it does on the wire is its own.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onFreePort } from '../../tools/ports.mjs';
import { launchChromium } from '../helpers/browser-host.mjs';
import { type OAuthServe, startOAuthServe } from '../helpers/oauth-serve.js';

const MCPDO = join('node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'mcpdo', 'build', 'mcp-bin.js');

let serve: OAuthServe;
let browser: Browser;
let home: string;
/** The port of the Inspector's callback listener, chosen when it first connects. */
let callbackPort = 0;

/** One mcpdo command, in its own home (catalog, daemon socket, stored sign-ins), never opening a browser itself. */
function mcpdo(...args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [MCPDO, '--plain', ...args],
      {
        timeout: 60_000,
        env: {
          PATH: process.env.PATH,
          TMPDIR: tmpdir(),
          HOME: home,
          MCP_CATALOG_PATH: join(home, 'catalog.json'),
          MCP_INSPECTOR_SECRET_STORE: 'file',
          MCP_OAUTH_CALLBACK_URL: `http://127.0.0.1:${callbackPort}/oauth/callback`,
          BROWSER: 'true',
        },
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
    );
  });
}

/** The daemon mcpdo leaves behind, stopped by its PID when asking it to stop did not. */
async function stopDaemon(): Promise<void> {
  const status = await mcpdo('daemon', 'status');
  await mcpdo('daemon', 'stop');
  const pid = Number(/Daemon pid (\d+)/.exec(status.out)?.[1]);
  if (pid > 0) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'forgeops-inspector-'));
  [serve, browser] = await Promise.all([startOAuthServe(), launchChromium()]);
}, 60_000);

afterAll(async () => {
  if (home) await stopDaemon();
  await browser?.close();
  serve?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

/** Consents at forgeops, signs in and consents at the code host as `user`; says what forgeops's consent page named. */
async function signIn(signInUrl: string, user: string): Promise<string> {
  const page = await browser.newPage();
  try {
    await page.goto(signInUrl);
    const consent = (await page.locator('body').textContent()) ?? '';
    await page.locator('button[value="allow"]').click();
    await page.waitForURL(`${serve.sandboxUrl}/users/sign_in**`, { timeout: 15_000 });
    await page.locator('#username').fill(user);
    await page.locator('#password').fill(`${user}-sandbox-password`);
    await page.locator('button[type="submit"]').click();
    await page.locator('button[value="authorize"]').click({ timeout: 15_000 });
    await page.waitForURL(`http://127.0.0.1:${callbackPort}/oauth/callback**`, { timeout: 15_000 });
    return consent;
  } finally {
    await page.close();
  }
}

/** Who forgeops says the connection's calls run as (get_current_user through run_operation, in every toolset). */
async function actingAs(): Promise<string | undefined> {
  const called = await mcpdo(
    '--format',
    'json',
    '--connection',
    serve.mcpUrl,
    'tools/call',
    'run_operation',
    'name:=get_current_user',
  );
  expect(called.code, called.out).toBe(0);
  return (JSON.parse(called.out) as { structuredContent?: { username?: string } }).structuredContent?.username;
}

describe('the MCP Inspector connects by URL and signs the person in', () => {
  it('registers, sends the person through forgeops consent and the code host, and acts as them', async () => {
    // The Inspector's callback listener takes the port it is told, not 0, when it connects: chosen free, and chosen
    // again if another program was given it first (the connect then kept nothing; its daemon, told the old port, is
    // stopped).
    const connected = await onFreePort(async (port) => {
      callbackPort = port;
      const answer = await mcpdo('connect', serve.mcpUrl);
      if (answer.out.includes('EADDRINUSE')) {
        await stopDaemon();
        throw new Error(answer.out);
      }
      return answer;
    });
    expect(connected.out).toMatch(/Auth: OAuth \(not authorized\)/);
    const signInUrl = /(http:\/\/127\.0\.0\.1:\d+\/oauth\/authorize\?\S+)/.exec(connected.out)?.[1];
    expect(signInUrl, connected.out).toBeDefined();
    const url = new URL(signInUrl as string);
    expect(url.origin).toBe(serve.base);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('resource')).toBe(serve.mcpUrl);

    const consent = await signIn(url.href, 'bob');
    expect(consent).toContain('MCP Inspector');
    expect(consent).toContain(`http://127.0.0.1:${callbackPort}/oauth/callback`);

    const shown = await mcpdo('connections/show', `@${serve.mcpUrl}`);
    expect(shown.out).toMatch(/Auth: OAuth \(authorized/);
    expect(shown.out).toMatch(/Server info: forgeops/);
    expect(await actingAs()).toBe('bob');
  }, 120_000);

  it('the same sign-in serves the 2026-07-28 revision', async () => {
    await mcpdo('disconnect', `@${serve.mcpUrl}`);
    const connected = await mcpdo('connect', '--era', 'modern', serve.mcpUrl);
    expect(connected.out).toMatch(/Era: modern/);
    expect(connected.out).toMatch(/Auth: OAuth \(authorized/);
    expect(await actingAs()).toBe('bob');
  }, 120_000);
});
