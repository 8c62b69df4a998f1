// The triage view under a strict Content-Security-Policy (its own: no 'unsafe-eval') in headless Chromium: loading it
// must not make the browser refuse anything, so a host that reports violations hears none from it.
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { buildView } from '../../tools/build-view.mjs';
import { launchChromium } from '../helpers/browser-host.mjs';

let browser: Browser;
let server: Server;
let origin: string;
let folder: string;

beforeAll(async () => {
  // Built from the source in a folder of its own: what is checked is the view as this tree builds it.
  folder = mkdtempSync(join(tmpdir(), 'forgeops-view-csp-'));
  const output = join(folder, 'triage.html');
  await buildView(output);
  const html = readFileSync(output, 'utf8');
  // The page's own policy, sent as the header too: a host's header is how most hosts frame a view.
  const policy = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1] ?? '';
  expect(policy).toMatch(/script-src 'sha256-[^']+'/);
  expect(policy).not.toContain('unsafe-eval');
  server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': policy }).end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
  if (folder) rmSync(folder, { recursive: true, force: true });
});

describe('the triage view under a strict CSP', () => {
  it('loads with no securitypolicyviolation event and no CSP message on the console', async () => {
    const page = await browser.newPage();
    const consoleCsp: string[] = [];
    page.on('console', (message) => {
      if (/content security policy|unsafe-eval|refused to/i.test(message.text())) consoleCsp.push(message.text());
    });
    // Listening from before the page's own script runs, in the page itself.
    await page.addInitScript({
      content:
        'globalThis.violations = []; document.addEventListener("securitypolicyviolation", (event) => ' +
        'globalThis.violations.push(`${event.violatedDirective} ${event.blockedURI}`));',
    });
    await page.goto(`${origin}/view`);
    // The view's script has run: it draws its first state (waiting for the host) into #app.
    await page.waitForSelector('#app');
    await page.waitForFunction("document.readyState === 'complete'");
    // Reports are dispatched as tasks: one more round of the event loop lets any queued one arrive.
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 0)));
    const violations = await page.evaluate(() => (globalThis as unknown as { violations: string[] }).violations);
    expect(violations).toEqual([]);
    expect(consoleCsp).toEqual([]);
    await page.close();
  });
});
