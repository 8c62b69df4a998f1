// Pipelines of acme/web straight through the REST client (no MCP, no approval): a fresh one on main, or a running one.
import type { HttpClient } from '../../src/http/client.js';

/** Creates a pipeline of acme/web on main through `client` and gives its id. */
export async function createWebPipeline(client: HttpClient): Promise<number> {
  const created = await client.request<{ id: number }>({
    method: 'POST',
    path: '/projects/acme%2Fweb/pipeline',
    body: { ref: 'main' },
    idempotent: false,
  });
  return created.data.id;
}

/** A pipeline of acme/web that keeps running (the seed has some), read through `client`; throws when there is none. */
export async function runningWebPipeline(client: HttpClient): Promise<{ id: number }> {
  const running = await client.request<Array<{ id: number }>>({
    method: 'GET',
    path: '/projects/acme%2Fweb/pipelines',
    query: { status: 'running' },
    idempotent: true,
  });
  if (!running.data[0]) throw new Error('acme/web has no running pipeline');
  return running.data[0];
}
