// Against a service that accepts connections and never answers, a tool call ends at its deadline with words naming the service, showing progress meanwhile.
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { HttpClient } from '../../src/http/client.js';
import { connectInMemory, resultText } from '../helpers/mcp.js';
import { startScriptedServer, type ScriptedServer } from '../unit/http/scripted-server.js';

/** Accepts connections, reads what comes, never answers: a hung service. */
let hung: Server;
let hungUrl: string;
const sockets: Socket[] = [];
let requestsSeen = 0;

beforeAll(async () => {
  hung = createServer((socket) => {
    sockets.push(socket);
    socket.on('data', (chunk) => {
      requestsSeen += (chunk.toString('latin1').match(/^(GET|POST|PUT|DELETE|HEAD) /gm) ?? []).length;
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
  hungUrl = `http://127.0.0.1:${(hung.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((resolve) => hung.close(() => resolve()));
});

/** The defaults a user gets (30 s per attempt, 3 retries), and a short call deadline so the test is quick. */
function connect(baseUrl: string) {
  const client = new HttpClient({
    baseUrl,
    token: 'fo-test-token',
    retry: { maxRetries: 3, minDelayMs: 1, maxDelayMs: 2 },
  });
  return { client, mcpPromise: connectInMemory({ client, callTimeoutMs: 1_500, progressIntervalMs: 200 }) };
}

describe('the call deadline', () => {
  it('ends a read at the deadline, naming the service URL and the setting, with progress notifications meanwhile', async () => {
    const { client, mcpPromise } = connect(hungUrl);
    const mcp = await mcpPromise;
    const progress: string[] = [];
    // The client would give up after 10 s; the answer must come from forgeops' own deadline well before.
    const result = await mcp.client.callTool(
      { name: 'get_pipeline', arguments: { id: 'acme/web', pipeline_id: 1 } },
      CallToolResultSchema,
      {
        timeout: 10_000,
        onprogress: (p) => {
          progress.push(String(p.message));
        },
      },
    );
    expect(result.isError).toBe(true);
    expect(resultText(result)).toBe(
      `timeout: no answer from the service at ${hungUrl} before the call's deadline (the call's deadline is 1.5 s, set by FORGEOPS_CALL_TIMEOUT_MS)`,
    );
    expect(progress.length).toBeGreaterThan(0);
    expect(progress[0]).toMatch(/^waiting for the service \(\d+ s\)$/);
    await mcp.close();
    await client.close();
  });

  it('sends a write once and says it may or may not have been applied, and how to check', async () => {
    const { client, mcpPromise } = connect(hungUrl);
    const mcp = await mcpPromise;
    const before = requestsSeen;
    const result = await mcp.client.callTool(
      { name: 'create_pipeline', arguments: { id: 'acme/web', ref: 'main' } },
      CallToolResultSchema,
      { timeout: 10_000 },
    );
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(
      /^No answer came for create_pipeline \(timeout: no answer from the service at http:\/\/127\.0\.0\.1:\d+ before the call's deadline.*\), so it may or may not have been applied\. forgeops did not send it again\. Check with list_pipelines before trying again\.$/,
    );
    expect(requestsSeen - before).toBe(1);
    await mcp.close();
    await client.close();
  });
});

describe('progress while retrying', () => {
  let flaky: ScriptedServer;
  beforeAll(async () => {
    flaky = await startScriptedServer();
  });
  afterAll(() => flaky.close());

  it('reports each retry of a read as a progress notification, then the answer', async () => {
    flaky.reply(
      { status: 503, headers: { 'retry-after': '0' } },
      { status: 503, headers: { 'retry-after': '0' } },
      { status: 200, body: { id: 1, status: 'failed' } },
    );
    const { client, mcpPromise } = connect(flaky.url);
    const mcp = await mcpPromise;
    const progress: string[] = [];
    const result = await mcp.client.callTool(
      { name: 'get_pipeline', arguments: { id: 'acme/web', pipeline_id: 1 } },
      CallToolResultSchema,
      {
        onprogress: (p) => {
          progress.push(String(p.message));
        },
      },
    );
    expect(result.isError).toBeFalsy();
    expect(progress.filter((m) => m.startsWith('retry '))).toEqual([
      'retry 1 in 0 s after: 503 Service Unavailable',
      'retry 2 in 0 s after: 503 Service Unavailable',
    ]);
    await mcp.close();
    await client.close();
  });
});
