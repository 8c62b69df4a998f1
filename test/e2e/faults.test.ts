// Faults end to end: the executor retries reads through 503/429 but never resends a write, against the sandbox.
import { describe, expect, it } from 'vitest';
import { connectInMemory, resultText, useSandbox } from '../helpers/mcp.js';
import { sentTo, useRetryingClient } from '../helpers/retrying-client.js';

const env = useSandbox();
const retrying = useRetryingClient(env);
const PIPELINES = '/projects/acme%2Fweb/pipeline';

const sent = (method: string, path: string) => sentTo(env.sandbox, method, path);

describe('retries through the MCP tool path', () => {
  it('retries a read on 503 and on 429 with Retry-After, then succeeds', async () => {
    const mcp = await connectInMemory({ client: retrying() });
    env.sandbox.faults.add({ method: 'GET', path: `${PIPELINES}s`, status: 503 });
    env.sandbox.faults.add({
      method: 'GET',
      path: `${PIPELINES}s`,
      status: 429,
      headers: { 'retry-after': '0' },
      body: 'slow down',
    });
    const before = sent('GET', `${PIPELINES}s`);
    const result = await mcp.client.callTool({ name: 'list_pipelines', arguments: { id: 'acme/web' } });
    expect(result.isError).toBeFalsy();
    expect(sent('GET', `${PIPELINES}s`) - before).toBe(3);
    await mcp.close();
  });

  it('does not resend a create after a 502: one request, and the error names the status', async () => {
    const mcp = await connectInMemory({ client: retrying() });
    env.sandbox.faults.add({ method: 'POST', path: PIPELINES, status: 502 });
    const before = sent('POST', PIPELINES);
    const result = await mcp.client.callTool({ name: 'create_pipeline', arguments: { id: 'acme/web', ref: 'main' } });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(
      /\(502 Bad Gateway\), so it may or may not have been applied\. forgeops did not send it again\. Check with list_pipelines/,
    );
    expect(sent('POST', PIPELINES) - before).toBe(1);
    await mcp.close();
  });

  it('does not resend a create after a connection reset', async () => {
    const mcp = await connectInMemory({ client: retrying() });
    env.sandbox.faults.add({ method: 'POST', path: PIPELINES, status: 500, resetConnection: true });
    const before = sent('POST', PIPELINES);
    const result = await mcp.client.callTool({ name: 'create_pipeline', arguments: { id: 'acme/web', ref: 'main' } });
    expect(result.isError).toBe(true);
    expect(sent('POST', PIPELINES) - before).toBe(1);
    await mcp.close();
  });
});
