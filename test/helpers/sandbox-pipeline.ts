// A fresh pipeline on acme/web's main, made straight through the REST client (no MCP, no approval), for safety tests.
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
