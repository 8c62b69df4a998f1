// The status resource as an assistant follows it, from the built CLI against a sandbox in this process (jobs sped up):
// `forgeops serve` checking every second tells a subscribed SDK client each change as acme/web goes red, runs and turns
// green (a retry, then the culprit reverted as a merge request and merged); `forgeops mcp` over stdio tells one too;
// and a serve that checks only every ten minutes hears the service's pipeline webhook — refused with a wrong token,
// checking nothing — and tells its subscriber of a new pipeline at once.
import { tmpdir } from 'node:os';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { HttpClient } from '../../src/http/client.js';
import { statusUri } from '../../src/mcp/status-resource.js';
import type { TriageReport } from '../../src/operations/composed/triage.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { connectClient } from '../safety/mcp-harness.js';
import { callAnsweringYes } from '../helpers/call-as-yes.js';
import { onOutput, servedReady } from '../helpers/child-output.js';

const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const WEB = 'acme/web';
const URI = statusUri(WEB);
const CULPRIT = "Show order dates in the store's time zone";
const SECRET = 'the-pipeline-hook-secret';

let sandbox: Sandbox;
let client: HttpClient;
const spawned: ChildProcess[] = [];

beforeAll(async () => {
  // A retry of acme/web's test job runs about 2.4 s, main's whole pipeline about 5 s: each outlasts a check interval.
  sandbox = await startSandbox({ port: 0, jobTimeScale: 0.3 });
  client = new HttpClient({ baseUrl: sandbox.url, token: sandbox.tokens.maintainer, retry: { maxRetries: 0 } });
});

afterAll(async () => {
  for (const child of spawned) if (child.exitCode === null) child.kill('SIGKILL');
  await client?.close();
  await sandbox?.close();
});

/** The environment of a forgeops process on the sandbox: nothing of this machine's own settings. */
function forgeopsEnv(extra: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    TMPDIR: tmpdir(),
    CODEHOST_URL: sandbox.url,
    CODEHOST_TOKEN: sandbox.tokens.maintainer,
    ...extra,
  };
}

/** `forgeops serve` on a loopback port the system gives it as it binds, once ready. */
async function startServe(
  extra: Record<string, string>,
): Promise<{ base: string; child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0'], {
    env: forgeopsEnv(extra),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  spawned.push(child);
  let output = '';
  onOutput(child, (chunk) => {
    output += chunk;
  });
  const base = await servedReady(() => output);
  return { base, child, output: () => output };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** Runs an operation as a person who answers yes to any approval request. */
const call = <T>(name: string, input: Record<string, unknown>): Promise<T> => callAnsweringYes<T>(client, name, input);

/**
 * A client's subscription to acme/web's status: each notification is answered by reading the resource again, as an
 * assistant would (unless `read` is false), and the report read is kept with when its notification came.
 */
function follow(mcp: Client, read = true) {
  const reports: Array<{ report: TriageReport; notifiedAt: number }> = [];
  const notifications: number[] = [];
  let reading = Promise.resolve();
  mcp.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
    if (notification.params.uri !== URI) return;
    const notifiedAt = Date.now();
    notifications.push(notifiedAt);
    if (!read) return;
    reading = reading
      .then(async () => {
        const { contents } = await mcp.readResource({ uri: URI });
        reports.push({ report: JSON.parse((contents[0] as { text: string }).text) as TriageReport, notifiedAt });
      })
      .catch(() => undefined);
  });
  /** Waits (bounded) until `found` gives something; the error names `what` and the verdicts read so far. */
  async function waitFor<T>(found: () => T | undefined, what: string, timeoutMs: number): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = found();
      if (hit !== undefined) return hit;
      if (Date.now() > deadline) {
        throw new Error(
          `no notification led to ${what}; ${notifications.length} notifications, reports read: ${reports.map((r) => r.report.verdict).join(', ') || 'none'}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return {
    reports,
    /** A report read after a notification since `since` that satisfies `found`. */
    until: (found: (report: TriageReport) => boolean, what: string, since = 0, timeoutMs = 20_000) =>
      waitFor(() => reports.find((r) => r.notifiedAt >= since && found(r.report))?.report, what, timeoutMs),
    /** The first notification since `since`. */
    notifiedSince: (since: number, what: string, timeoutMs = 20_000) =>
      waitFor(() => notifications.find((at) => at >= since), what, timeoutMs),
  };
}

/** The verdicts read, without repeats in a row: the story the client was told. */
function story(reports: Array<{ report: TriageReport }>): string[] {
  return reports.map((r) => r.report.verdict).filter((verdict, i, all) => i === 0 || all[i - 1] !== verdict);
}

describe("following acme/web's status", () => {
  it('over serve: red, a retry running and failing again, the revert merged, running, green — each read after its notification', async () => {
    const serve = await startServe({ FORGEOPS_WATCH_INTERVAL_MS: '1000' });
    const { mcp } = await connectClient(`${serve.base}/mcp`);
    try {
      expect(mcp.getServerCapabilities()?.resources?.subscribe).toBe(true);
      const followed = follow(mcp);
      await mcp.subscribeResource({ uri: URI });
      const red = await followed.until((r) => r.verdict === 'red', 'red');
      expect(red.red_since?.first_red.title).toBe(CULPRIT);

      const retriedAt = Date.now();
      await call('retry_pipeline', { id: WEB, pipeline_id: red.head_pipeline!.id });
      const failedAgain = await followed.until(
        (r) => r.verdict === 'red' && r.failed_jobs[0]?.id !== red.failed_jobs[0]?.id,
        'the retry failing again',
        retriedAt,
      );
      expect(failedAgain.head_pipeline?.id).toBe(red.head_pipeline!.id);

      const commits = await call<Array<{ id: string; title: string }>>('list_commits', {
        id: WEB,
        ref_name: 'main',
        per_page: 50,
      });
      const culprit = commits.find((c) => c.title === CULPRIT)!;
      const reverted = await call<{ merge_request: { iid: number } }>('revert_as_merge_request', {
        id: WEB,
        sha: culprit.id,
      });
      const mergedAt = Date.now();
      await call('merge_merge_request', { id: WEB, merge_request_iid: reverted.merge_request.iid });
      const green = await followed.until((r) => r.verdict === 'green', 'green', mergedAt);
      expect(green.head?.title).toMatch(/^Merge branch 'revert-[0-9a-f]{8}' into 'main'/);

      const told = story(followed.reports);
      // Main's new pipeline ran between the last red and green (the retry's own run is usually seen too).
      expect(told.slice(told.lastIndexOf('red'))).toEqual(['red', 'running', 'green']);
      expect(told[0]).toBe('red');
    } finally {
      await mcp.close();
      await stop(serve.child);
    }
  }, 45_000);

  it('over stdio: `forgeops mcp` makes its hub on the first subscribe and tells the client', async () => {
    const mcp = new Client({ name: 'stdio-status', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cli, 'mcp'],
      env: forgeopsEnv({ FORGEOPS_WATCH_INTERVAL_MS: '1000' }),
      stderr: 'ignore',
    });
    await mcp.connect(transport);
    try {
      expect(mcp.getServerCapabilities()?.resources?.subscribe).toBe(true);
      const followed = follow(mcp);
      await mcp.subscribeResource({ uri: URI });
      const report = await followed.until(() => true, 'any report');
      expect(report.project).toBe(WEB);
      await mcp.unsubscribeResource({ uri: URI });
    } finally {
      await mcp.close();
    }
  }, 20_000);

  it("over a serve checking every ten minutes: the service's pipeline hook, with the secret, has a new pipeline told at once", async () => {
    const serve = await startServe({ FORGEOPS_WATCH_INTERVAL_MS: '600000', FORGEOPS_WEBHOOK_SECRET: SECRET });
    const hookUrl = `${serve.base}/hooks/pipeline`;
    const { mcp } = await connectClient(`${serve.base}/mcp`);
    // The watch reads the branch by the project's number.
    const watched = `/projects/${sandbox.store.findProject(WEB)!.id}/pipelines`;
    const listReads = () => sandbox.requests.all().filter((r) => r.method === 'GET' && r.path === watched).length;
    const metric = async (result: string) => {
      const line = (await (await fetch(`${serve.base}/metrics`)).text())
        .split('\n')
        .find((l) => l.startsWith(`forgeops_webhooks_total{result="${result}"}`));
      return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
    };
    /** A new pipeline on main; waits until it finished, read by id (not through the pipeline list the watch reads). */
    const runPipeline = async (waitForEnd: boolean) => {
      const created = await client.request({
        method: 'POST',
        path: '/projects/acme%2Fweb/pipeline',
        query: { ref: 'main' },
        idempotent: false,
      });
      const id = (created.data as { id: number }).id;
      for (let i = 0; waitForEnd && i < 400; i++) {
        const status = (
          await client.request({ method: 'GET', path: `/projects/acme%2Fweb/pipelines/${id}`, idempotent: true })
        ).data as { status: string };
        if (status.status === 'success' || status.status === 'failed') break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return id;
    };
    try {
      // Not read back here: the pipeline reads this test counts must be the watch's alone.
      const followed = follow(mcp, false);
      await mcp.subscribeResource({ uri: URI });
      // The watch's first check, on subscribe.
      await followed.notifiedSince(0, 'the first check');

      // Strangers without the secret are refused with nothing echoed.
      const bare = await fetch(hookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ object_kind: 'pipeline', project: { path_with_namespace: WEB } }),
      });
      expect(bare.status).toBe(401);
      expect(await bare.text()).not.toContain(WEB);

      // The project's hook with a wrong token: each delivery refused, and nothing checked while a whole pipeline runs.
      const hook = (
        await client.request({
          method: 'POST',
          path: '/projects/acme%2Fweb/hooks',
          body: { url: hookUrl, token: 'not-the-secret-at-all', pipeline_events: true },
          idempotent: false,
        })
      ).data as { id: number };
      const readsBefore = listReads();
      await runPipeline(true);
      for (let i = 0; i < 100 && (await metric('unauthorized')) < 2; i++)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await metric('unauthorized')).toBeGreaterThanOrEqual(2);
      expect(listReads()).toBe(readsBefore);
      expect(await metric('nudged')).toBe(0);

      // With the secret: the next pipeline is told to the subscriber well before any interval would have.
      await client.request({
        method: 'PUT',
        path: `/projects/acme%2Fweb/hooks/${hook.id}`,
        body: { token: SECRET },
        idempotent: true,
      });
      const startedAt = Date.now();
      const pipeline = await runPipeline(false);
      await followed.notifiedSince(startedAt, `pipeline #${pipeline}`, 10_000);
      expect(listReads()).toBeGreaterThan(readsBefore);
      const told = JSON.parse(
        ((await mcp.readResource({ uri: URI })).contents[0] as { text: string }).text,
      ) as TriageReport;
      expect([told.running_pipeline?.id, told.head_pipeline?.id]).toContain(pipeline);
      expect(await metric('nudged')).toBeGreaterThanOrEqual(1);
    } finally {
      await mcp.close();
      await stop(serve.child);
    }
  }, 40_000);

  it('leaves /hooks/pipeline unmounted without the secret', async () => {
    const serve = await startServe({ FORGEOPS_WATCH_INTERVAL_MS: '600000' });
    try {
      const answer = await fetch(`${serve.base}/hooks/pipeline`, {
        method: 'POST',
        headers: { 'x-gitlab-token': SECRET },
        body: '{}',
      });
      expect(answer.status).toBe(404);
    } finally {
      await stop(serve.child);
    }
  }, 20_000);
});
