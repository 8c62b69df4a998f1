// Over HTTP the approval question travels on the tool call's own stream, so a client without the optional GET stream sees it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpHttpServer } from '../../src/mcp/http/server.js';
import { useSandbox } from '../helpers/mcp.js';
import { PROTOCOL_VERSION, startHttp } from './mcp-harness.js';
import { createWebPipeline } from '../helpers/sandbox-pipeline.js';

const env = useSandbox();
let server: McpHttpServer;

beforeAll(async () => {
  server = await startHttp(env.client);
});
afterAll(() => server.close());

interface JsonRpc {
  id?: number | string;
  method?: string;
  result?: Record<string, unknown>;
  params?: Record<string, unknown>;
}

/** Reads JSON-RPC messages off one SSE response as they come, bounded by a deadline. */
function sseReader(response: Response) {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  return async function next(withinMs: number): Promise<JsonRpc | undefined> {
    const until = Date.now() + withinMs;
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end >= 0) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = event
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5).trim())
          .join('');
        if (data) return JSON.parse(data) as JsonRpc;
        continue;
      }
      const left = until - Date.now();
      if (left <= 0) return undefined;
      const chunk = await Promise.race([reader.read(), new Promise<'late'>((r) => setTimeout(() => r('late'), left))]);
      if (chunk === 'late' || chunk.done) return undefined;
      buffer += decoder.decode(chunk.value, { stream: true });
    }
  };
}

async function post(sessionId: string | undefined, message: object): Promise<Response> {
  return fetch(server.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(sessionId ? { 'mcp-session-id': sessionId, 'mcp-protocol-version': PROTOCOL_VERSION } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', ...message }),
  });
}

const newPipeline = () => createWebPipeline(env.client);

describe('approving a destructive call over Streamable HTTP', () => {
  it('reaches a raw client that never opened the GET stream, on the POST of the call, and runs once accepted', async () => {
    const init = await post(undefined, {
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: PROTOCOL_VERSION,
        capabilities: { elicitation: { form: {} } },
        clientInfo: { name: 'raw', version: '1' },
      },
    });
    const sessionId = init.headers.get('mcp-session-id')!;
    await init.text();
    expect((await post(sessionId, { method: 'notifications/initialized' })).status).toBe(202);

    const pipelineId = await newPipeline();
    const call = await post(sessionId, {
      id: 2,
      method: 'tools/call',
      params: { name: 'delete_pipeline', arguments: { id: 'acme/web', pipeline_id: pipelineId } },
    });
    const next = sseReader(call);
    const question = await next(4_000);
    expect(question?.method).toBe('elicitation/create');
    expect(String(question?.params?.message)).toContain(`pipeline_id: ${pipelineId}`);

    const answer = await post(sessionId, {
      id: question!.id,
      result: { action: 'accept', content: { confirm: true } },
    });
    expect(answer.status).toBe(202);
    const result = await next(4_000);
    expect(result?.id).toBe(2);
    expect(result?.result?.isError).toBeFalsy();
    await expect(
      env.client.request({ method: 'GET', path: `/projects/acme%2Fweb/pipelines/${pipelineId}`, idempotent: true }),
    ).rejects.toMatchObject({ status: 404 });
  });

  it("reaches the SDK's own client too, which does open the GET stream", async () => {
    const mcp = new Client({ name: 'sdk', version: '1' }, { capabilities: { elicitation: { form: {} } } });
    const prompts: string[] = [];
    mcp.setRequestHandler(ElicitRequestSchema, async (req) => {
      prompts.push(req.params.message);
      return { action: 'accept', content: { confirm: true } };
    });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    const pipelineId = await newPipeline();
    const result = await mcp.callTool({
      name: 'delete_pipeline',
      arguments: { id: 'acme/web', pipeline_id: pipelineId },
    });
    expect(result.isError).toBeFalsy();
    expect(prompts).toHaveLength(1);
    await mcp.close();
  });
});
