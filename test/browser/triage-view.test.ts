// The triage view in headless Chromium, shown by a host built on the SDK's AppBridge from the built forgeops over
// stdio, against a sandbox whose clock the test moves: the red demo project, Roll back production asked of the human
// and pressed again, Retry followed to its end, text from strangers that stays text, and Cancel asked of the human. It
// also takes the screenshots docs/mcp.md shows: into a temporary folder, or over docs/images/ with FORGEOPS_UPDATE_SCREENSHOTS=1.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
const COMMITTED_IMAGES = fileURLToPath(new URL('../../docs/images/', import.meta.url));
/** Only on request do the screenshots replace the committed ones: their text (red for N min) moves with every run. */
const UPDATE_SCREENSHOTS = process.env.FORGEOPS_UPDATE_SCREENSHOTS === '1';
const SCREENSHOTS = ['triage-view-light.png', 'triage-view-dark.png'] as const;
/** Longer than any pipeline of the demo takes on the sandbox's clock: moving it this far runs them all to their end. */
const PIPELINE_MS = 120_000;

let sandbox: Sandbox;
let clock: ManualClock;
let service: HttpClient;
let browser: Browser;
let host: AppHost;
let images: string;

beforeAll(async () => {
  clock = new ManualClock();
  sandbox = await startSandbox({ port: 0, clock });
  service = new HttpClient({ baseUrl: sandbox.url, token: sandbox.tokens.maintainer, retry: { maxRetries: 0 } });
  images = UPDATE_SCREENSHOTS ? COMMITTED_IMAGES : mkdtempSync(join(tmpdir(), 'forgeops-screenshots-'));
  browser = await launchChromium();
  host = await startAppHost(browser, {
    env: {
      PATH: process.env.PATH ?? '',
      TMPDIR: tmpdir(),
      CODEHOST_URL: sandbox.url,
      CODEHOST_TOKEN: sandbox.tokens.maintainer,
      CODEHOST_MAX_RETRIES: '0',
    },
    clock: true,
  });
}, 30_000);

afterAll(async () => {
  await host?.close();
  await browser?.close();
  await service?.close();
  await sandbox?.close();
  if (images && !UPDATE_SCREENSHOTS) rmSync(images, { recursive: true, force: true });
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
interface Css {
  getComputedStyle(element: unknown): { backgroundColor: string };
}

const stateOf = (frame: Frame) => frame.locator('#app').getAttribute('data-state');
const button = (frame: Frame, name: string | RegExp) => frame.getByRole('button', { name });

/** A read of the service as its maintainer. */
async function get<T>(
  path: string,
  query?: Record<string, string>,
  responseType: 'json' | 'text' = 'json',
): Promise<T> {
  return (await service.request({ method: 'GET', path, query, responseType, idempotent: true })).data as T;
}

/** A push or an action on the service as its maintainer. */
async function post<T>(path: string, body: Record<string, unknown>): Promise<T> {
  return (await service.request({ method: 'POST', path, body, idempotent: false })).data as T;
}

describe('the triage view in a browser host', () => {
  it("shows the red demo project: verdict, first red commit, the failing job's error lines and the buttons; light and dark screenshots", async () => {
    const frame = await showTriage('light');
    expect(await stateOf(frame)).toBe('red');
    expect(await frame.locator('.state').textContent()).toBe('Red');
    expect(await frame.locator('.failure strong').textContent()).toBe('broken');
    expect(await frame.locator('.first-red').textContent()).toContain(CULPRIT_TITLE);
    const lines = await frame.locator('.job-card pre.lines').first().textContent();
    expect(lines).toContain('Expected: "2024-03-10"');
    expect(lines).toContain('Received: "2024-03-09"');
    expect(lines).not.toMatch(/\u001b/);
    for (const name of [
      'Retry failed jobs',
      /^Revert [0-9a-f]{8} as a merge request$/,
      'Roll back production',
      'Roll back staging',
      'Open an incident issue',
      'Refresh',
    ]) {
      await expect.poll(() => button(frame, name).count()).toBe(1);
    }
    // The stages as a row of job states, read through the host by the view itself.
    await frame.waitForSelector('.stages .job-red');

    const committedBefore = SCREENSHOTS.map((name) => readFileSync(join(COMMITTED_IMAGES, name)));
    mkdirSync(images, { recursive: true });
    await host.page.locator('#view').screenshot({ path: join(images, SCREENSHOTS[0]) });
    await host.setTheme('dark');
    await frame.waitForSelector('html[data-theme="dark"]');
    // The host's own background colour, given as a style variable, is the view's.
    expect(
      await frame
        .locator('body')
        .evaluate((body) => (globalThis as unknown as Css).getComputedStyle(body).backgroundColor),
    ).toBe('rgb(24, 24, 27)');
    await host.page.locator('#view').screenshot({ path: join(images, SCREENSHOTS[1]) });
    const [light, dark] = SCREENSHOTS.map((name) => readFileSync(join(images, name)));
    expect(light.length).toBeGreaterThan(0);
    expect(dark.length).toBeGreaterThan(0);
    expect(light.equals(dark)).toBe(false);
    // A plain run leaves the committed screenshots as they were.
    if (!UPDATE_SCREENSHOTS)
      expect(SCREENSHOTS.map((name) => readFileSync(join(COMMITTED_IMAGES, name)))).toEqual(committedBefore);
  });

  it('draws the verdict from the tool result at once, and adds the row of stages when list_pipeline_jobs answers', async () => {
    const release = host.hold('list_pipeline_jobs');
    const callsBefore = host.viewCalls.length;
    let frame: Frame | undefined;
    try {
      frame = await showTriage();
      expect(await stateOf(frame)).toBe('red');
      expect(await frame.locator('.first-red').textContent()).toContain(CULPRIT_TITLE);
      expect(await button(frame, 'Retry failed jobs').count()).toBe(1);
      // The read of the stages is asked and still unanswered: no row yet.
      const stagesRead = () => host.viewCalls.slice(callsBefore).filter((call) => call.name === 'list_pipeline_jobs');
      await expect.poll(() => stagesRead().length).toBe(1);
      expect(stagesRead()[0].result).toBeUndefined();
      expect(await frame.locator('.stages').count()).toBe(0);
    } finally {
      release();
    }
    await frame!.waitForSelector('.stages .job-red');
    expect(await stateOf(frame!)).toBe('red');
  });

  it('fits a narrow frame: nothing runs off to the side', async () => {
    const frame = await showTriage('light', 320);
    const overflow = await frame.evaluate(() => {
      const root = (
        globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }
      ).document.documentElement;
      return root.scrollWidth - root.clientWidth;
    });
    expect(overflow).toBe(0);
  });

  it('Roll back production calls rollback_environment through the host as triage pins it, asked of the human; pressed again, its premise runs nothing', async () => {
    const frame = await showTriage();
    await button(frame, 'Roll back production').click();
    const question = host.page.locator('#confirm');
    await question.waitFor({ state: 'visible' });
    const asked = (await host.page.locator('#confirm-message').textContent()) ?? '';
    await host.page.locator('#confirm-accept').click();
    await question.waitFor({ state: 'hidden' });
    const premise = host.viewCalls.find((call) => call.name === 'check_button_premise');
    const rollback = host.viewCalls.find((call) => call.name === 'rollback_environment');
    // It stood on the deployment production ran when the view was drawn, and that went with the write too.
    const production = await get<{ id: number; last_deployment: { id: number } }>(
      `/projects/${ENCODED_WEB}/environments/${rollback?.arguments.environment}`,
    );
    const standsOn = {
      kind: 'rollback',
      id: WEB,
      ref: 'main',
      deployment_id: production.last_deployment.id,
      environment: 'production',
    };
    expect(premise?.arguments).toEqual(standsOn);
    expect(rollback?._meta?.['forgeops/premise']).toEqual(standsOn);
    // triage's pinned input: the environment, the deployment before the culprit, the one production runs now.
    expect(rollback?.arguments).toMatchObject({ id: WEB, current_deployment_id: production.last_deployment.id });
    const target = await get<{ sha: string; ref: string; deployable: { id: number } }>(
      `/projects/${ENCODED_WEB}/deployments/${rollback?.arguments.to}`,
    );
    expect(target.ref).toBe('v1.1.0');
    expect(asked).toContain(
      `will run ${target.sha.slice(0, 8)} (v1.1.0, deployment #${rollback?.arguments.to}) again by retrying its deploy job deploy:production (#${target.deployable.id})`,
    );
    await expect.poll(() => frame.locator('.outcome').textContent()).toMatch(/^Roll back production: /);
    // The outcome line may show before the host has the call's answer: the deployment is read once the call answered.
    await expect.poll(() => host.viewCalls.find((call) => call.name === 'rollback_environment')?.result).toBeDefined();
    expect(host.viewCalls.find((call) => call.name === 'rollback_environment')?.result?.isError).toBeFalsy();
    const [made] = await get<Array<{ id: number; status: string; sha: string }>>(
      `/projects/${ENCODED_WEB}/deployments`,
      { environment: 'production', order_by: 'id', sort: 'desc', per_page: '1' },
    );
    expect(made).toMatchObject({ status: 'blocked', sha: target.sha });

    // Pressed again (production still runs what it ran, but a deployment came after): nothing is called, in words.
    await button(frame, 'Roll back production').click();
    await expect
      .poll(() => frame.locator('.outcome').textContent())
      .toBe(
        `Roll back production: deployment #${made.id} to production came after #${production.last_deployment.id} (it is blocked); nothing was rolled back.`,
      );
    expect(host.viewCalls.filter((call) => call.name === 'rollback_environment')).toHaveLength(1);
  });

  it('Retry calls retry_pipeline through the host; the view follows the pipeline by itself: running, then red again', async () => {
    const frame = await showTriage();
    await button(frame, 'Retry failed jobs').click();
    await frame.waitForSelector('#app[data-state="running"]');
    const retry = host.viewCalls.find((call) => call.name === 'retry_pipeline');
    expect(retry?.arguments).toMatchObject({ id: WEB });
    expect(retry?.result?.isError).toBeFalsy();
    // What the button stood on goes with its write, for the server to check again should a human be asked first.
    expect(retry?._meta?.['forgeops/premise']).toEqual({
      kind: 'retry',
      id: WEB,
      ref: 'main',
      pipeline_id: retry?.arguments.pipeline_id,
    });
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

  it('a commit title with </script> and a right-to-left override and a log line with <img onerror> show as those characters, in their own order, and nothing runs or loads', async () => {
    const titleFromAStranger = 'Fix dates \u202esuccess\u202c </script><script>alert("title")</script>';
    // As the prompts show it: the override spelled out, so "success" reads as written, not reversed.
    const titleAsShown = 'Fix dates \\u202esuccess\\u202c </script><script>alert("title")</script>';
    const lineFromAStranger = '<img src=x onerror=alert("log")>';
    // Main goes green by reverting the culprit, then red again at a commit whose title is the stranger's.
    const triage = await host.callTool('triage_project', { id: WEB });
    const culprit = (triage.structuredContent as { red_since: { first_red: { sha: string } } }).red_since.first_red.sha;
    const file = 'src/utils/format date.ts';
    const broken = await get<string>(
      `/projects/${ENCODED_WEB}/repository/files/${encodeURIComponent(file)}/raw`,
      { ref: culprit },
      'text',
    );
    await post(`/projects/${ENCODED_WEB}/repository/commits/${culprit}/revert`, { branch: 'main' });
    const evil = await post<{ id: string }>(`/projects/${ENCODED_WEB}/repository/commits`, {
      branch: 'main',
      commit_message: titleFromAStranger,
      actions: [{ action: 'update', file_path: file, content: broken }],
    });
    clock.advance(PIPELINE_MS);
    // Its failing job printed the stranger's line among its error lines.
    const [pipeline] = await get<Array<{ id: number; sha: string; status: string }>>(
      `/projects/${ENCODED_WEB}/pipelines`,
      { ref: 'main', per_page: '1' },
    );
    expect(pipeline).toMatchObject({ sha: evil.id, status: 'failed' });
    const [job] = await get<Array<{ id: number }>>(`/projects/${ENCODED_WEB}/pipelines/${pipeline.id}/jobs`, {
      scope: 'failed',
    });
    const log = await get<string>(`/projects/${ENCODED_WEB}/jobs/${job.id}/trace`, undefined, 'text');
    setJobLog(sandbox.store, job.id, log.replace(/Received: .*/, `Received: ${lineFromAStranger}`));

    const requestsBefore = host.requests.length;
    const frame = await showTriage();
    const firstRed = (await frame.locator('.first-red').textContent()) ?? '';
    expect(firstRed).toContain(titleAsShown);
    expect(firstRed).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    // Drawn left to right as written: the s of "success" stands left of its last s (an override would swap them).
    expect(await leftToRight(frame, '.first-red', 'success')).toBe(true);
    expect(await frame.locator('.job-card pre.lines').first().textContent()).toContain(
      `Received: ${lineFromAStranger}`,
    );
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
  /** Whether `word`'s first character is drawn left of its last one inside `selector`: the order a reader sees. */
  async function leftToRight(frame: Frame, selector: string, word: string): Promise<boolean> {
    return frame.evaluate(
      `(() => {
        const root = document.querySelector(${JSON.stringify(selector)});
        const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const at = node.data.indexOf(${JSON.stringify(word)});
          if (at < 0) continue;
          const box = (i) => { const r = document.createRange(); r.setStart(node, i); r.setEnd(node, i + 1); return r.getBoundingClientRect(); };
          return box(at).left < box(at + ${word.length - 1}).left;
        }
        throw new Error('no ' + ${JSON.stringify(word)} + ' in ' + ${JSON.stringify(selector)});
      })()`,
    );
  }

  /** Retry from the red view, so a pipeline runs: the view shows it running; the pipeline's id. */
  async function retryToRunning(frame: Frame): Promise<number> {
    await button(frame, 'Retry failed jobs').click();
    await frame.waitForSelector('#app[data-state="running"]');
    const retried = host.viewCalls.filter((call) => call.name === 'retry_pipeline').at(-1);
    return (retried!.result!.structuredContent as { id: number }).id;
  }

  /** Presses Cancel pipeline #id and answers forgeops's question on the host's page; the question as shown. */
  async function cancelAnswering(
    frame: Frame,
    id: number,
    answer: 'accept' | 'decline',
    whileAsked?: () => Promise<void>,
  ): Promise<string> {
    await button(frame, `Cancel pipeline #${id}`).click();
    const question = host.page.locator('#confirm');
    await question.waitFor({ state: 'visible' });
    await whileAsked?.();
    const asked = (await host.page.locator('#confirm-message').textContent()) ?? '';
    // The question is the host's, outside the frame: the view has nothing to answer it with.
    expect(await frame.getByRole('button', { name: /^(Confirm|Decline)$/ }).count()).toBe(0);
    await host.page.locator(answer === 'accept' ? '#confirm-accept' : '#confirm-decline').click();
    await question.waitFor({ state: 'hidden' });
    return asked;
  }

  it('Cancel pipeline #N asks the human through the host; declined, the view says nothing changed and the pipeline runs on', async () => {
    const frame = await showTriage();
    const id = await retryToRunning(frame);
    const pipelineAt = () => get<{ status: string }>(`/projects/${ENCODED_WEB}/pipelines/${id}`);
    const before = (await pipelineAt()).status;
    expect(['pending', 'running']).toContain(before);
    // The human takes their time: a read the view was due to make meanwhile waits for the answer.
    const asked = await cancelAnswering(frame, id, 'decline', () => host.page.clock.runFor(10_000));
    expect(asked).toContain('cancel_pipeline');
    expect(asked).toContain('Running jobs stop where they are');
    await expect
      .poll(() => frame.locator('.outcome').textContent())
      .toBe(`Cancel pipeline #${id}: The human declined; nothing was changed.`);
    expect(await frame.locator('.outcome').getAttribute('class')).toContain('outcome-error');
    expect(await stateOf(frame)).toBe('running');
    expect(await button(frame, `Cancel pipeline #${id}`).isEnabled()).toBe(true);
    expect((await pipelineAt()).status).toBe(before);
    // Nothing changed, so the view goes on following the run by itself.
    const reads = () => host.viewCalls.filter((call) => call.name === 'triage_project').length;
    const readsAfterDecline = reads();
    await host.page.clock.runFor(10_000);
    await expect.poll(reads).toBeGreaterThan(readsAfterDecline);
    await expect.poll(() => frame.locator('#app').getAttribute('data-state')).toBe('running');
  });

  it('Cancel pipeline #N, approved by the human, cancels the run and the view shows it canceled', async () => {
    const frame = await showTriage();
    expect(await stateOf(frame)).toBe('running');
    const id = Number(
      (await frame.getByRole('button', { name: /^Cancel pipeline #\d+$/ }).textContent())?.replace(/\D/g, ''),
    );
    await cancelAnswering(frame, id, 'accept');
    await expect.poll(() => frame.locator('.outcome').textContent()).toMatch(new RegExp(`^Cancel pipeline #${id}: `));
    expect(await frame.locator('.outcome').getAttribute('class')).toBe('outcome');
    const pipeline = await get<{ status: string }>(`/projects/${ENCODED_WEB}/pipelines/${id}`);
    expect(pipeline.status).toBe('canceled');
    // Read again after the change: the head's run is canceled, which judges nothing, and there is nothing left to cancel.
    await frame.waitForSelector('#app:not([data-state="running"])');
    expect(await frame.locator('.because').textContent()).toContain('canceled');
    expect(await button(frame, /^Cancel pipeline/).count()).toBe(0);
  });
});
