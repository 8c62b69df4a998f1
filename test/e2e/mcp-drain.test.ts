// Shutting a replica down without dropping work: a call in flight finishes and is answered, a new client is told
// 503 (to connect to another replica), and the server closes once the call is done, within the grace given.
import { describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/mcp.js';
import { runningWebPipeline } from '../helpers/sandbox-pipeline.js';
import { connectClient, initializeBody, rawRequest, startHttp } from '../safety/mcp-harness.js';

const env = useSandbox();

/** A server, a client of it, and a pipeline that keeps running, for a call that waits on it. */
async function serverWithRunningPipeline() {
  const server = await startHttp(env.client);
  const { mcp } = await connectClient(server.url);
  const running = await runningWebPipeline(env.client);
  return { server, mcp, running };
}

describe('drain', () => {
  it('finishes the call in flight, refuses new sessions with 503, then closes', async () => {
    const { server, mcp, running } = await serverWithRunningPipeline();
    // A call that takes a few seconds: waiting on a pipeline that keeps running.
    const inFlight = mcp.callTool({
      name: 'wait_for_pipeline',
      arguments: { id: 'acme/web', pipeline_id: running.id, timeout_seconds: 4 },
    });
    await new Promise((resolve) => setTimeout(resolve, 150));
    const started = Date.now();
    const drained = server.drain(10_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const newcomer = await rawRequest(server.url, 'POST', { 'content-type': 'application/json' }, initializeBody());
    expect(newcomer.status).toBe(503);
    expect(newcomer.headers['retry-after']).toBe('1');
    expect(newcomer.body).toMatch(/shutting down; connect again to reach another/);
    const answer = await inFlight;
    expect(answer.isError).toBeFalsy();
    const text = (answer.content as Array<{ text: string }>)[0].text;
    expect(JSON.parse(text.slice(0, text.lastIndexOf('}') + 1))).toMatchObject({ wait: { finished: false } });
    expect(await drained).toEqual({ unfinished: 0 });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(server.sessionCount()).toBe(0);
    await mcp.close().catch(() => undefined);
  });

  it('stops waiting at the grace: a call longer than that is cut, said in the count, and the server is closed', async () => {
    const { server, mcp, running } = await serverWithRunningPipeline();
    void mcp
      .callTool({
        name: 'wait_for_pipeline',
        arguments: { id: 'acme/web', pipeline_id: running.id, timeout_seconds: 30 },
      })
      .catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 150));
    const started = Date.now();
    expect(await server.drain(300)).toEqual({ unfinished: 1 });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(server.sessionCount()).toBe(0);
    await expect(
      rawRequest(server.url, 'POST', { 'content-type': 'application/json' }, initializeBody()),
    ).rejects.toThrow();
    await mcp.close().catch(() => undefined);
  });
});
