// The triage view in headless Chromium, shown by a host built on the SDK's AppBridge from the built forgeops over
// stdio, against a sandbox whose clock the test moves: the red demo project, Retry followed to its end, and text from
// strangers that stays text. It also writes the README's screenshots.
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Frame } from 'playwright-core';
import { HttpClient } from '../../src/http/client.js';
import { setJobLog } from '../../src/sandbox/areas/jobs/index.js';
import { ManualClock } from '../../src/sandbox/core/clock.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { launchChromium, startAppHost, type AppHost, type Theme } from '../helpers/browser-host.mjs';

const WEB = 'acme/web';
const ENCODED_WEB = encodeURIComponent(WEB);
const CULPRIT_TITLE = "Show order dates in the store's time zone";
const IMAGES = fileURLToPath(new URL('../../docs/images/', import.meta.url));
/** Longer than any pipeline of the demo takes on the sandbox's clock: moving it this far runs them all to their end. */
const PIPELINE_MS = 120_000;

let sandbox: Sandbox;
let clock: ManualClock;
let service: HttpClient;
let browser: Browser;
let host: AppHost;

beforeAll(async () => {
  clock = new ManualClock();
  sandbox = await startSandbox({ port: 0, clock });
  service = new HttpClient({ baseUrl: sandbox.url, token: sandbox.tokens.maintainer, retry: { maxRetries: 0 } });
  browser = await launchChromium();
  host = await startAppHost(browser, {
    env: { PATH: process.env.PATH ?? '', CODEHOST_URL: sandbox.url, CODEHOST_TOKEN: sandbox.tokens.maintainer, CODEHOST_MAX_RETRIES: '0' },
    clock: true,
  });
}, 30_000);

afterAll(async () => {
  await host?.close();
  await browser?.close();
  await service?.close();
  await sandbox?.close();
});

/** triage_project as the model calls it, its view opened and the result posted to it, as a host does. */
async function showTriage(theme: Theme = 'light', width?: number): Promise<Frame> {
  const result = await host.callTool('triage_project', { id: WEB });
  const frame = await host.open({ tool: 'triage_project', input: { id: WEB }, theme, width });
  await host.post(result);
  await frame.waitForSelector('#app[data-state]');
  return frame;
}

/** The browser's getComputedStyle, which the Node types of this file do not know. */
interface Css { getComputedStyle(element: unknown): { backgroundColor: string } }

const stateOf = (frame: Frame) => frame.locator('#app').getAttribute('data-state');
const button = (frame: Frame, name: string | RegExp) => frame.getByRole('button', { name });

/** A read of the service as its maintainer. */
async function get<T>(path: string, query?: Record<string, string>, responseType: 'json' | 'text' = 'json'): Promise<T> {
  return (await service.request({ method: 'GET', path, query, responseType, idempotent: true })).data as T;
}

/** A push or an action on the service as its maintainer. */
async function post<T>(path: string, body: Record<string, unknown>): Promise<T> {
  return (await service.request({ method: 'POST', path, body, idempotent: false })).data as T;
}

describe('the triage view in a browser host', () => {
  it('shows the red demo project: verdict, first red commit, the failing job\'s error lines and the buttons; light and dark screenshots', async () => {
    const frame = await showTriage('light');
    expect(await stateOf(frame)).toBe('red');
    expect(await frame.locator('.state').textContent()).toBe('Red');
    expect(await frame.locator('.failure strong').textContent()).toBe('broken');
    expect(await frame.locator('.first-red').textContent()).toContain(CULPRIT_TITLE);
    const lines = await frame.locator('.job-card pre.lines').first().textContent();
    expect(lines).toContain('Expected: "2024-03-10"');
    expect(lines).toContain('Received: "2024-03-09"');
    expect(lines).not.toMatch(/\u001b/);
    for (const name of ['Retry failed jobs', /^Revert [0-9a-f]{8} as a merge request$/, 'Open an incident issue', 'Refresh']) {
      await expect.poll(() => button(frame, name).count()).toBe(1);
    }
    // The stages as a row of job states, read through the host by the view itself.
    await frame.waitForSelector('.stages .job-red');

    mkdirSync(IMAGES, { recursive: true });
    await host.page.locator('#view').screenshot({ path: `${IMAGES}triage-view-light.png` });
    await host.setTheme('dark');
    await frame.waitForSelector('html[data-theme="dark"]');
    // The host's own background colour, given as a style variable, is the view's.
    expect(await frame.locator('body').evaluate((body) => (globalThis as unknown as Css).getComputedStyle(body).backgroundColor)).toBe('rgb(24, 24, 27)');
    await host.page.locator('#view').screenshot({ path: `${IMAGES}triage-view-dark.png` });
  });

  it('fits a narrow frame: nothing runs off to the side', async () => {
    const frame = await showTriage('light', 320);
    const overflow = await frame.evaluate(() => {
      const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document.documentElement;
      return root.scrollWidth - root.clientWidth;
    });
    expect(overflow).toBe(0);
  });

  it('Retry calls retry_pipeline through the host; the view follows the pipeline by itself: running, then red again', async () => {
    const frame = await showTriage();
    await button(frame, 'Retry failed jobs').click();
    await frame.waitForSelector('#app[data-state="running"]');
    const retry = host.viewCalls.find((call) => call.name === 'retry_pipeline');
    expect(retry?.arguments).toMatchObject({ id: WEB });
    expect(retry?.result?.isError).toBeFalsy();
    await frame.waitForSelector('.stages .job-running');

    // The retried job runs to its end on the sandbox's clock and fails again: a broken build, not a flaky one. The
    // view reads it again on its own a few seconds later, on the page's clock.
    clock.advance(PIPELINE_MS);
    const readsBefore = host.viewCalls.filter((call) => call.name === 'triage_project').length;
    await host.page.clock.runFor(10_000);
    await frame.waitForSelector('#app[data-state="red"]');
    expect(await frame.locator('.failure strong').textContent()).toBe('broken');
    expect(host.viewCalls.filter((call) => call.name === 'triage_project').length).toBeGreaterThan(readsBefore);

    // Finished: it stops reading. A call made after the page's minute (the log) comes after any read it would have made.
    const readsWhenRed = host.viewCalls.filter((call) => call.name === 'triage_project').length;
    await host.page.clock.runFor(60_000);
    await button(frame, 'Show the log').first().click();
    await frame.waitForSelector('.log pre.lines');
    expect(host.viewCalls.filter((call) => call.name === 'triage_project').length).toBe(readsWhenRed);
  });

  it('a commit title with </script> and a log line with <img onerror> show as those characters, and nothing runs or loads', async () => {
    const titleFromAStranger = 'Fix dates </script><script>alert("title")</script>';
    const lineFromAStranger = '<img src=x onerror=alert("log")>';
    // Main goes green by reverting the culprit, then red again at a commit whose title is the stranger's.
    const triage = await host.callTool('triage_project', { id: WEB });
    const culprit = (triage.structuredContent as { red_since: { first_red: { sha: string } } }).red_since.first_red.sha;
    const file = 'src/utils/format date.ts';
    const broken = await get<string>(`/projects/${ENCODED_WEB}/repository/files/${encodeURIComponent(file)}/raw`, { ref: culprit }, 'text');
    await post(`/projects/${ENCODED_WEB}/repository/commits/${culprit}/revert`, { branch: 'main' });
    const evil = await post<{ id: string }>(`/projects/${ENCODED_WEB}/repository/commits`, {
      branch: 'main', commit_message: titleFromAStranger, actions: [{ action: 'update', file_path: file, content: broken }],
    });
    clock.advance(PIPELINE_MS);
    // Its failing job printed the stranger's line among its error lines.
    const [pipeline] = await get<Array<{ id: number; sha: string; status: string }>>(`/projects/${ENCODED_WEB}/pipelines`, { ref: 'main', per_page: '1' });
    expect(pipeline).toMatchObject({ sha: evil.id, status: 'failed' });
    const [job] = await get<Array<{ id: number }>>(`/projects/${ENCODED_WEB}/pipelines/${pipeline.id}/jobs`, { scope: 'failed' });
    const log = await get<string>(`/projects/${ENCODED_WEB}/jobs/${job.id}/trace`, undefined, 'text');
    setJobLog(sandbox.store, job.id, log.replace(/Received: .*/, `Received: ${lineFromAStranger}`));

    const requestsBefore = host.requests.length;
    const frame = await showTriage();
    expect(await frame.locator('.first-red').textContent()).toContain(titleFromAStranger);
    expect(await frame.locator('.job-card pre.lines').first().textContent()).toContain(`Received: ${lineFromAStranger}`);
    await button(frame, 'Show the log').first().click();
    expect(await frame.locator('.log pre.lines').textContent()).toContain(`Received: ${lineFromAStranger}`);
    // Nothing of it became markup: the view's one script, no image, no dialog, and no request but the host's own.
    expect(await frame.locator('script').count()).toBe(1);
    expect(await frame.locator('img').count()).toBe(0);
    expect(host.dialogs).toEqual([]);
    const loaded = host.requests.slice(requestsBefore).map((url) => new URL(url));
    expect(loaded.every((url) => url.origin === host.origin)).toBe(true);
    expect(new Set(loaded.map((url) => url.pathname))).toEqual(new Set(['/view']));
    expect(host.errors).toEqual([]);
  });
});
