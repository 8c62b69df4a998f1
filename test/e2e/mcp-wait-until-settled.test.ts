// wait_until_settled through real SDK clients against the sandbox, whose clock moves only when the test says (here: on
// each progress notification, as if that much time passed between two checks): progress reaches a 2025-11-25 client in
// process and a 2026-07-28 client over HTTP; a cancelled call stops asking the service; and the incident of
// docs/operations-guide.md — main red, the culprit reverted as a merge request set to merge when its pipeline passes —
// reaches "main is green" in four tool calls, the last one waiting for it.
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { callsInFlight } from '../../src/health.js';
import type { ApiRequest, ApiTransport } from '../../src/http/types.js';
import type { McpHttpServer } from '../../src/mcp/http/server.js';
import type { McpServerOptions } from '../../src/mcp/server.js';
import { ManualClock } from '../../src/sandbox/core/clock.js';
import { connectInMemory, resultText, testServerOptions, useSandbox } from '../helpers/mcp.js';
import { modernClient, MODERN } from '../helpers/mcp-v2.js';
import { startHttp, statelessEndpoint } from '../safety/mcp-harness.js';

const env = useSandbox({ clock: new ManualClock() });
const WEB = 'acme/web';
const NAME = 'wait_until_settled';
const clock = () => env.sandbox.store.clock as ManualClock;

type Settled = {
  summary: string;
  outcome: string;
  ref?: string;
  pipeline?: { id: number; status: string; sha: string };
  merge_request?: { iid: number; state: string; merge_commit_sha?: string };
  wait: { finished: boolean; checks: number };
};

let made = 0;
/** A new branch of acme/web from main with a commit of its own: its pipeline is pending until the clock moves. */
async function freshBranch(): Promise<{ name: string; sha: string }> {
  const name = `settle-${++made}`;
  const res = await env.client.request<{ id: string }>({
    method: 'POST',
    path: `/projects/${encodeURIComponent(WEB)}/repository/commits`,
    body: {
      branch: name,
      start_branch: 'main',
      commit_message: `Add ${name}`,
      actions: [{ action: 'create', file_path: `${name}.txt`, content: `${name}\n` }],
    },
    idempotent: false,
  });
  return { name, sha: res.data.id };
}

/** The sandbox client, noting each request and whether the call it belongs to was already cancelled when it was sent. */
function countingClient(inner: ApiTransport) {
  const sent: Array<{ path: string; cancelled: boolean }> = [];
  const client: ApiTransport = {
    request(req: ApiRequest) {
      sent.push({ path: req.path, cancelled: req.signal?.aborted === true });
      return inner.request(req);
    },
  };
  return { client, sent };
}

// One sandbox, in order: the branch waits run while main is red; the incident at the end turns it green.
describe('wait_until_settled over MCP', { shuffle: false }, () => {
  it('is offered as a task beside wait_for_pipeline', async () => {
    const mcp = await connectInMemory({ client: env.client });
    const { tools } = await mcp.client.listTools();
    expect(tools.find((t) => t.name === NAME)?.execution?.taskSupport).toBe('optional');
    await mcp.close();
  });

  it("sends each check as a progress notification to a client that asked, and answers the branch pipeline's end", async () => {
    const mcp = await connectInMemory({ client: env.client });
    const branch = await freshBranch();
    const progress: string[] = [];
    const result = await mcp.client.callTool({ name: NAME, arguments: { id: WEB, ref: branch.name } }, undefined, {
      onprogress: (p) => {
        progress.push(String(p.message));
        // A minute passes before the next check: the runner moves the pipeline on.
        clock().advance(60_000);
      },
    });
    expect(result.isError, resultText(result)).toBeFalsy();
    const settled = result.structuredContent as Settled;
    expect(settled).toMatchObject({ outcome: 'failed', pipeline: { sha: branch.sha, status: 'failed' } });
    expect(settled.summary).toBe(`${branch.name} is red: pipeline #${settled.pipeline!.id} failed at job test`);
    expect(progress[0]).toMatch(
      new RegExp(`^check 1: ${branch.name}: pipeline #${settled.pipeline!.id} pending: 0 of \\d+ jobs done$`),
    );
    expect(progress).toContain(`check ${settled.wait.checks}: ${settled.summary}`);
    // The answer's text leads with the sentence.
    expect(resultText(result)).toMatch(/^\{"summary":"/);
    await mcp.close();
  });

  it('stops asking the service once the client cancels the call', async () => {
    const { client, sent } = countingClient(env.client);
    const mcp = await connectInMemory({ client });
    const branch = await freshBranch();
    const controller = new AbortController();
    const call = mcp.client.callTool({ name: NAME, arguments: { id: WEB, ref: branch.name } }, undefined, {
      signal: controller.signal,
      onprogress: () => controller.abort(),
    });
    await expect(call).rejects.toThrow(/abort/i);
    // The clock stands still, so the pipeline stays pending: only the cancellation ends the call on the server, long
    // before its deadline (a minute). Bounded: a few seconds at most.
    for (let i = 0; i < 250 && callsInFlight() > 0; i++) await delay(20);
    expect(callsInFlight()).toBe(0);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.filter((r) => r.cancelled)).toEqual([]);
    await mcp.close();
  });

  it('runs as a task where the client asks for one: tasks/get shows each check, the result is what it became', async () => {
    const mcp = await connectInMemory({ client: env.client });
    const branch = await freshBranch();
    const seen: string[] = [];
    let result: unknown;
    const stream = mcp.client.experimental.tasks.callToolStream(
      { name: NAME, arguments: { id: WEB, ref: branch.name } },
      CallToolResultSchema,
      { task: { ttl: 60_000 } },
    );
    for await (const message of stream) {
      if (message.type === 'taskStatus') {
        seen.push(`${message.task.status}: ${message.task.statusMessage ?? ''}`);
        // Each status seen: a minute passes on the sandbox's clock.
        clock().advance(60_000);
      } else if (message.type === 'result') result = message.result;
      else if (message.type === 'error') throw message.error;
    }
    const settled = (result as { structuredContent: Settled }).structuredContent;
    expect(settled).toMatchObject({ outcome: 'failed', pipeline: { sha: branch.sha }, wait: { finished: true } });
    expect(seen.at(-1)).toBe(`completed: check ${settled.wait.checks}: ${settled.summary}`);
    await mcp.close();
  });

  it('answers over the stateless 2026-07-28 revision, with progress', async () => {
    const serverOptions = (token?: string): McpServerOptions => ({ ...testServerOptions(env.client), token });
    const server: McpHttpServer = await startHttp(env.client, {
      stateless: () => statelessEndpoint(serverOptions),
    });
    const { client } = await modernClient(server.url, () => ({ action: 'decline' }));
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    const branch = await freshBranch();
    const progress: string[] = [];
    const result = await client.callTool(
      { name: NAME, arguments: { id: WEB, ref: branch.name } },
      {
        onprogress: (p) => {
          progress.push(String(p.message));
          clock().advance(60_000);
        },
      },
    );
    expect(result.isError).toBeFalsy();
    const settled = result.structuredContent as Settled;
    expect(settled).toMatchObject({ outcome: 'failed', wait: { finished: true } });
    expect(progress.at(-1)).toBe(`check ${settled.wait.checks}: ${settled.summary}`);
    await client.close();
    await server.close();
  });

  it('takes an assistant from "main is red" to "main is green, fixed by !N" in four tool calls', async () => {
    const mcp = await connectInMemory({
      client: env.client,
      elicit: () => ({ action: 'accept', content: { confirm: true } }),
    });
    const calls: string[] = [];
    const call = async (
      name: string,
      args: Record<string, unknown>,
      onprogress?: (p: { message?: string }) => void,
    ) => {
      calls.push(name);
      const result = await mcp.client.callTool({ name, arguments: args }, undefined, onprogress ? { onprogress } : {});
      expect(result.isError, `${name}: ${resultText(result)}`).toBeFalsy();
      return result.structuredContent as Record<string, unknown>;
    };

    // 1. Triage: red, broken, and the revert it offers.
    const report = (await call('triage_project', { id: WEB })) as {
      verdict: string;
      actions: Array<{ operation: string; input: Record<string, unknown> }>;
    };
    expect(report.verdict).toBe('red');
    const revert = report.actions.find((a) => a.operation === 'revert_as_merge_request');
    expect(revert).toBeDefined();
    // 2. The revert as a merge request, as triage offered it.
    const made = (await call('revert_as_merge_request', revert!.input)) as { merge_request: { iid: number } };
    const iid = made.merge_request.iid;
    // 3. Merge it when its pipeline passes.
    const set = await call('merge_merge_request', {
      id: WEB,
      merge_request_iid: iid,
      merge_when_pipeline_succeeds: true,
    });
    expect(set).toMatchObject({ state: 'opened', merge_when_pipeline_succeeds: true });
    // 4. Wait for it: its pipeline passes, it is merged, main's pipeline for the merge passes.
    const progress: string[] = [];
    const settled = (await call('wait_until_settled', { id: WEB, merge_request_iid: iid }, (p) => {
      progress.push(String(p.message));
      clock().advance(60_000);
    })) as Settled;

    expect(calls).toEqual(['triage_project', 'revert_as_merge_request', 'merge_merge_request', 'wait_until_settled']);
    expect(settled).toMatchObject({
      outcome: 'success',
      ref: 'main',
      pipeline: { status: 'success' },
      merge_request: { iid, state: 'merged' },
      wait: { finished: true },
    });
    expect(settled.pipeline!.sha).toBe(settled.merge_request!.merge_commit_sha);
    // A day is named when the sandbox's clock has passed midnight (real time): either is right.
    expect(settled.summary).toMatch(
      new RegExp(
        `^main is green: pipeline #${settled.pipeline!.id} \\(the merge of !${iid}\\) passed at (\\d{4}-\\d\\d-\\d\\d )?\\d\\d:\\d\\d UTC$`,
      ),
    );
    // On the way: the merge request's own pipeline, then main's.
    expect(progress.some((m) => m.includes(`!${iid} is open, set to merge into main when a pipeline passes`))).toBe(
      true,
    );
    // What the service says now agrees: main's latest pipeline is that one, and it passed.
    const latest = await env.client.request<Array<{ id: number; status: string }>>({
      method: 'GET',
      path: `/projects/${encodeURIComponent(WEB)}/pipelines`,
      query: { ref: 'main', per_page: 1 },
      idempotent: true,
    });
    expect(latest.data[0]).toMatchObject({ id: settled.pipeline!.id, status: 'success' });
    await mcp.close();
  });
});
