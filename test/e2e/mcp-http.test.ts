// The MCP server over Streamable HTTP: sessions, elicitation accepted and declined, Host/Origin and bearer checks.
import { request as httpRequest } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { McpHttpServer } from '../../src/mcp/http/server.js';
import { SESSION_TOKEN_HEADER } from '../../src/mcp/http/guard.js';
import { resultText, useSandbox, startMcpHttpOn } from '../helpers/mcp.js';

const env = useSandbox();

import { createPipeline, PROJECT } from '../helpers/approval.js';

function startServer(extra: { mcpToken?: string; host?: string } = {}): Promise<McpHttpServer> {
  return startMcpHttpOn(env.client, {
    http: { host: extra.host ?? '127.0.0.1', mcpToken: extra.mcpToken, allowedOrigins: ['https://console.example'] },
  });
}

async function connect(url: string, answer: (message: string) => ElicitResult, headers: Record<string, string> = {}) {
  const mcp = new Client({ name: 'http-test', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  const prompts: string[] = [];
  mcp.setRequestHandler(ElicitRequestSchema, async (req) => {
    prompts.push(req.params.message);
    return answer(req.params.message);
  });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  await mcp.connect(transport);
  return { mcp, prompts, transport };
}

/** A raw POST with chosen headers (fetch will not let a test forge Host). */
function rawPost(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    const req = httpRequest(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('Streamable HTTP session', () => {
  it('approves a destructive call through elicitation: accepted deletes, declined deletes nothing', async () => {
    const server = await startServer();
    let answer: ElicitResult = { action: 'accept', content: { confirm: true } };
    const { mcp, prompts, transport } = await connect(server.url, () => answer);
    expect(transport.sessionId).toBeTruthy();
    expect(server.sessionCount()).toBe(1);

    const accepted = await createPipeline(mcp);
    const ok = await mcp.callTool({ name: 'delete_pipeline', arguments: { id: PROJECT, pipeline_id: accepted } });
    expect(ok.isError).toBeFalsy();
    const gone = await mcp.callTool({ name: 'get_pipeline', arguments: { id: PROJECT, pipeline_id: accepted } });
    expect(resultText(gone)).toMatch(/^404/);

    answer = { action: 'decline' };
    const declined = await createPipeline(mcp);
    const refused = await mcp.callTool({ name: 'delete_pipeline', arguments: { id: PROJECT, pipeline_id: declined } });
    expect(refused.isError).toBe(true);
    expect(resultText(refused)).toMatch(/declined; nothing was changed/);
    const kept = await mcp.callTool({ name: 'get_pipeline', arguments: { id: PROJECT, pipeline_id: declined } });
    expect(kept.isError).toBeFalsy();
    expect((kept.structuredContent as { id: number }).id).toBe(declined);
    expect(
      env.sandbox.requests.all().filter((r) => r.method === 'DELETE' && r.path.endsWith(`/pipelines/${declined}`)),
    ).toHaveLength(0);
    expect(
      env.sandbox.requests.all().filter((r) => r.method === 'DELETE' && r.path.endsWith(`/pipelines/${accepted}`)),
    ).toHaveLength(1);

    expect(prompts).toHaveLength(2);
    // The pipeline is named by what it is, not by its number alone.
    expect(prompts[1]).toContain(`\n  pipeline_id: ${declined} — on "main", `);
    await mcp.close();
    await server.close();
  });

  it("uses the session's own service token when the client sends one", async () => {
    const server = await startServer();
    const { mcp } = await connect(server.url, () => ({ action: 'cancel' }), {
      [SESSION_TOKEN_HEADER]: env.sandbox.tokens.outsider,
    });
    const result = await mcp.callTool({ name: 'list_pipelines', arguments: { id: 'acme/platform/payments-api' } });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/^404 Project Not Found/);
    const me = await mcp.callTool({ name: 'get_current_user', arguments: {} });
    const mine = await env.client.request({
      method: 'GET',
      path: '/user',
      idempotent: true,
      token: env.sandbox.tokens.outsider,
    });
    expect((me.structuredContent as { username: string }).username).toBe((mine.data as { username: string }).username);
    await mcp.close();
    await server.close();
  });
});

describe('request checks', () => {
  let server: McpHttpServer;
  // The teardown beforeAll returns runs after the block's tests.
  beforeAll(async () => {
    server = await startServer();
    return () => server.close();
  });

  it('rejects a foreign Host (DNS rebinding) with 403', async () => {
    const res = await rawPost(server.url, { host: 'evil.example:80' });
    expect(res.status).toBe(403);
    expect(res.body).toMatch(/Host/);
  });

  it('rejects a foreign Origin with 403 and accepts a configured one', async () => {
    expect((await rawPost(server.url, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await rawPost(server.url, { origin: 'https://console.example' })).status).toBe(200);
    expect((await rawPost(server.url, { origin: 'http://localhost:5173' })).status).toBe(200);
  });

  it('answers a request with an unknown session id with 404', async () => {
    const res = await rawPost(server.url, { 'mcp-session-id': 'no-such-session' });
    expect(res.status).toBe(404);
  });
});

describe('access token', () => {
  it('refuses to start on a non-loopback address without FORGEOPS_MCP_TOKEN', async () => {
    await expect(startServer({ host: '0.0.0.0' })).rejects.toThrow(/FORGEOPS_MCP_TOKEN/);
  });

  it('requires the bearer token when one is configured', async () => {
    const server = await startServer({ mcpToken: 'mcp-test-secret' });
    const none = await rawPost(server.url, {});
    expect(none.status).toBe(401);
    const wrong = await rawPost(server.url, { authorization: 'Bearer nope' });
    expect(wrong.status).toBe(401);
    const right = await rawPost(server.url, { authorization: 'Bearer mcp-test-secret' });
    expect(right.status).toBe(200);
    await server.close();
  });
});

describe('session lifetime', () => {
  it('closes a session that stays idle, and its id then answers 404', async () => {
    // Idle for 1 s: long enough that the handshake's own requests, on a loaded machine, come before it passes.
    const server = await startMcpHttpOn(env.client, { http: { sessionIdleMs: 1000 } });
    const { mcp, transport } = await connect(server.url, () => ({ action: 'cancel' }));
    const id = transport.sessionId!;
    expect(server.sessionCount()).toBe(1);
    // Bounded wait (10 s): the sweeper runs a few times a second here.
    for (let i = 0; i < 200 && server.sessionCount() > 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(server.sessionCount()).toBe(0);
    const res = await rawPost(server.url, { 'mcp-session-id': id });
    expect(res.status).toBe(404);
    await mcp.close().catch(() => undefined);
    await server.close();
  });

  it('ends a session on DELETE from the client', async () => {
    const server = await startServer();
    const { mcp, transport } = await connect(server.url, () => ({ action: 'cancel' }));
    expect(server.sessionCount()).toBe(1);
    await transport.terminateSession();
    expect(server.sessionCount()).toBe(0);
    await mcp.close();
    await server.close();
  });
});
