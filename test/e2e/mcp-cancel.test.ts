// Cancelling a long page walk from the client stops it: no page is asked for after the cancellation arrives.
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { ApiRequest, ApiTransport } from '../../src/http/types.js';
import { connectInMemory, useSandbox } from '../helpers/mcp.js';

const env = useSandbox();

/** The sandbox client, a little slower, counting the requests that reach it. */
function slowCountingClient(inner: ApiTransport, ms: number) {
  const paths: string[] = [];
  const client: ApiTransport = {
    async request(req: ApiRequest) {
      paths.push(req.path);
      await delay(ms);
      return inner.request(req);
    },
  };
  return { client, paths };
}

describe('cancelling a tool call', () => {
  it('stops an all_pages walk: the pages after the cancellation are never asked for', async () => {
    // How many pages the walk would read if left alone.
    const whole = await connectInMemory({ client: env.client });
    const all = await whole.client.callTool({
      name: 'list_commits',
      arguments: { id: 'acme/web', per_page: 1, all_pages: true },
    });
    const total = (all.structuredContent as { items: unknown[] }).items.length;
    expect(total).toBeGreaterThanOrEqual(4);
    await whole.close();

    const { client, paths } = slowCountingClient(env.client, 40);
    const mcp = await connectInMemory({ client });
    const controller = new AbortController();
    const call = mcp.client.callTool(
      { name: 'list_commits', arguments: { id: 'acme/web', per_page: 1, all_pages: true } },
      undefined,
      {
        signal: controller.signal,
        // Cancel once the second page is in: the walk is under way.
        onprogress: (progress) => {
          if (/read page 2\b/.test(progress.message ?? '')) controller.abort();
        },
      },
    );
    await expect(call).rejects.toThrow(/abort/i);
    const atCancel = paths.length;
    await delay(300);
    expect(paths.length).toBe(atCancel);
    expect(paths.length).toBeLessThan(total);
    await mcp.close();
  });
});
