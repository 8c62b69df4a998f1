// An approved destructive call is sent once, never retried; when its answer is lost the result says so and how to check.
import { describe, expect, it } from 'vitest';
import { connectInMemory, resultText, useSandbox } from '../helpers/mcp.js';
import { sentTo, useRetryingClient } from '../helpers/retrying-client.js';
import { createWebPipeline } from '../helpers/sandbox-pipeline.js';

const env = useSandbox();
const retrying = useRetryingClient(env);

const newPipeline = () => createWebPipeline(env.client);

const sent = (method: string, path: string) => sentTo(env.sandbox, method, path);

describe('destructive calls are never retried', () => {
  it.each([
    ['a connection reset', { status: 500, resetConnection: true }],
    ['a 503', { status: 503 }],
    ['a 502', { status: 502 }],
  ])('sends delete_pipeline once after %s and says the outcome is unknown', async (_what, fault) => {
    const mcp = await connectInMemory({
      client: retrying(),
      elicit: () => ({ action: 'accept', content: { confirm: true } }),
    });
    const id = await newPipeline();
    const path = `/projects/acme%2Fweb/pipelines/${id}`;
    env.sandbox.faults.add({ method: 'DELETE', path, ...fault });
    const result = await mcp.client.callTool({
      name: 'delete_pipeline',
      arguments: { id: 'acme/web', pipeline_id: id },
    });
    expect(result.isError).toBe(true);
    expect(sent('DELETE', path)).toBe(1);
    expect(resultText(result)).toMatch(
      /^No answer came for delete_pipeline \(.+\), so it may or may not have been applied\. forgeops did not send it again\. Check with get_pipeline before trying again\.$/,
    );
    env.sandbox.faults.clear();
    await mcp.close();
  });

  it('sends cancel_pipeline and update_release once after a 503 too', async () => {
    const mcp = await connectInMemory({
      client: retrying(),
      elicit: () => ({ action: 'accept', content: { confirm: true } }),
    });
    const id = await newPipeline();
    const cancel = `/projects/acme%2Fweb/pipelines/${id}/cancel`;
    const release = '/projects/acme%2Fweb/releases/v1.1.0';
    env.sandbox.faults.add({ method: 'POST', path: cancel, status: 503 });
    env.sandbox.faults.add({ method: 'PUT', path: release, status: 503 });
    await mcp.client.callTool({ name: 'cancel_pipeline', arguments: { id: 'acme/web', pipeline_id: id } });
    const updated = await mcp.client.callTool({
      name: 'update_release',
      arguments: { id: 'acme/web', tag_name: 'v1.1.0', name: 'Renamed' },
    });
    expect(sent('POST', cancel)).toBe(1);
    expect(sent('PUT', release)).toBe(1);
    expect(resultText(updated)).toContain('Check with get_release');
    env.sandbox.faults.clear();
    await mcp.close();
  });

  it('still retries a read through the same faults', async () => {
    const mcp = await connectInMemory({ client: retrying() });
    const id = await newPipeline();
    const path = `/projects/acme%2Fweb/pipelines/${id}`;
    env.sandbox.faults.add({ method: 'GET', path, status: 503 });
    const result = await mcp.client.callTool({ name: 'get_pipeline', arguments: { id: 'acme/web', pipeline_id: id } });
    expect(result.isError).toBeFalsy();
    expect(sent('GET', path)).toBe(2);
    env.sandbox.faults.clear();
    await mcp.close();
  });
});
