// /metrics as Prometheus scrapes it from serve's HTTP server: tool calls by operation, front end and outcome with
// their latency, the service's retries after a 429, MCP sessions live, and chat calls under their own front end.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../src/http/client.js';
import type { McpHttpServer } from '../../src/mcp/http/server.js';
import { useSandbox, testServerOptions } from '../helpers/mcp.js';
import { connectClient, startHttp, statelessEndpoint } from '../safety/mcp-harness.js';
import { modernClient } from '../helpers/mcp-v2.js';
import { testDispatcher } from '../helpers/dispatcher.js';
import { countedClient, series } from '../helpers/metrics.js';

const env = useSandbox();
let client: HttpClient;
let server: McpHttpServer;

beforeAll(async () => {
  client = await countedClient(env.sandbox);
  server = await startHttp(client);
});

afterAll(async () => {
  await server?.close();
  await client?.close();
});

async function scrape(): Promise<string> {
  const res = await fetch(server.url.replace(/\/mcp$/, '/metrics'));
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  return res.text();
}

describe('/metrics', () => {
  it('counts MCP tool calls by outcome, times them, counts a 429 retry and the live sessions', async () => {
    const { mcp } = await connectClient(server.url);
    env.sandbox.faults.add({
      method: 'GET',
      path: '/projects/acme%2Fweb/pipelines',
      status: 429,
      headers: { 'retry-after': '0' },
    });
    expect(
      (await mcp.callTool({ name: 'list_pipelines', arguments: { id: 'acme/web', per_page: 1 } })).isError,
    ).toBeFalsy();
    expect(
      (await mcp.callTool({ name: 'list_pipelines', arguments: { id: 'acme/web', per_page: 1 } })).isError,
    ).toBeFalsy();
    expect(
      (await mcp.callTool({ name: 'get_pipeline', arguments: { id: 'acme/web', pipeline_id: 99999 } })).isError,
    ).toBe(true);
    expect(
      (await mcp.callTool({ name: 'get_pipeline', arguments: { id: 'acme/web', pipeline_id: 'soon' } })).isError,
    ).toBe(true);
    const text = await scrape();
    expect(series(text, 'forgeops_calls_total', { operation: 'list_pipelines', front: 'mcp', outcome: 'ok' })).toBe(2);
    expect(series(text, 'forgeops_calls_total', { operation: 'get_pipeline', front: 'mcp', outcome: 'failed' })).toBe(
      1,
    );
    expect(series(text, 'forgeops_calls_total', { operation: 'get_pipeline', front: 'mcp', outcome: 'refused' })).toBe(
      1,
    );
    expect(series(text, 'forgeops_call_duration_seconds_count', { operation: 'list_pipelines', front: 'mcp' })).toBe(2);
    expect(series(text, 'forgeops_service_retries_total', { reason: 'rate_limited' })).toBe(1);
    expect(series(text, 'forgeops_mcp_sessions')).toBeGreaterThanOrEqual(0);
    expect(text).toContain('# TYPE forgeops_call_duration_seconds histogram');
    // Labels hold operation names and outcomes only: never a token, a project or a person.
    expect(text).not.toMatch(/acme|fo-maintainer|alice/);
    await mcp.close();
  });

  it("counts the chat's and Slack's calls under their own front end", async () => {
    const dispatcher = testDispatcher(() => client, { front: 'slack' });
    await dispatcher.dispatch('pipeline get acme/web 1');
    expect(
      series(await scrape(), 'forgeops_calls_total', { operation: 'get_pipeline', front: 'slack', outcome: 'ok' }),
    ).toBe(1);
  });

  it('counts a 2026-07-28 approval once, though it takes two requests: asked, then approved', async () => {
    const stateless = await startHttp(client, {
      stateless: () => statelessEndpoint((token?: string) => ({ ...testServerOptions(client), token })),
    });
    const path = `/projects/${encodeURIComponent('acme/web')}/repository/branches`;
    await client.request({ method: 'POST', path, query: { branch: 'metrics-2026', ref: 'main' }, idempotent: false });
    const before = await scrape();
    const { client: v2 } = await modernClient(stateless.url, () => ({ action: 'accept', content: { confirm: true } }));
    expect(
      (await v2.callTool({ name: 'delete_branch', arguments: { id: 'acme/web', branch: 'metrics-2026' } })).isError,
    ).toBeFalsy();
    const after = await scrape();
    const delta = (event: string) =>
      (series(after, 'forgeops_confirmations_total', { front: 'mcp', event }) ?? 0) -
      (series(before, 'forgeops_confirmations_total', { front: 'mcp', event }) ?? 0);
    expect([delta('asked'), delta('approved'), delta('declined')]).toEqual([1, 1, 0]);
    await v2.close();
    await stateless.close();
  });
});
