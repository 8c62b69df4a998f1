// MCP over Streamable HTTP on two replicas behind a real haproxy with the documented config (deploy/haproxy.cfg):
// session ids carry the replica's name (FORGEOPS_REPLICA_ID), so every request of a session reaches the replica that
// holds it, whatever the balancing. The same clients behind plain round robin lose their session: the control.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpHttpServer } from '../../src/mcp/http.js';
import { freePort, startHaproxy, type Haproxy } from '../helpers/haproxy.js';
import { useSandbox } from '../helpers/mcp.js';
import { connectClient, startHttp } from '../safety/mcp-harness.js';

const env = useSandbox();
const documented = readFileSync(new URL('../../deploy/haproxy.cfg', import.meta.url), 'utf8');
const replicas: McpHttpServer[] = [];
let routed: Haproxy;
let roundRobin: Haproxy;

/** The documented config with this test's addresses: haproxy on `port`, the replicas where they listen. */
function configFor(port: number, ports: number[], options: { routeBySession: boolean }): string {
  let config = documented.replace('bind 127.0.0.1:8750', `bind 127.0.0.1:${port}`)
    .replaceAll('127.0.0.1:8751', `127.0.0.1:${ports[0]}`).replaceAll('127.0.0.1:8752', `127.0.0.1:${ports[1]}`);
  if (!options.routeBySession) config = config.replace(/^\s*use_backend .*$/m, '');
  return config;
}

beforeAll(async () => {
  const [a, b] = [await freePort(), await freePort()];
  // On loopback each replica accepts only its own Host: the proxy's address is listed (FORGEOPS_ALLOWED_HOSTS).
  const allowedHosts = [`127.0.0.1:${a}`, `127.0.0.1:${b}`];
  for (const replicaId of ['r1', 'r2']) replicas.push(await startHttp(env.client, { replicaId, allowedHosts }));
  const ports = replicas.map((r) => Number(new URL(r.url).port));
  routed = await startHaproxy(configFor(a, ports, { routeBySession: true }), a);
  roundRobin = await startHaproxy(configFor(b, ports, { routeBySession: false }), b);
});

afterAll(async () => {
  await routed?.stop();
  await roundRobin?.stop();
  for (const replica of replicas) await replica.close();
});

async function callsThrough(url: string, calls: number) {
  const { mcp, transport } = await connectClient(`${url}/mcp`);
  try {
    const results: boolean[] = [];
    for (let i = 0; i < calls; i++) {
      const answer = await mcp.callTool({ name: 'list_pipelines', arguments: { id: 'acme/web', per_page: 1 } }).then((r) => !r.isError, () => false);
      results.push(answer);
    }
    return { sessionId: transport.sessionId ?? '', results };
  } finally {
    await mcp.close();
  }
}

describe('two replicas behind haproxy', () => {
  it('route every request of a session to its replica: sessions on both, every call answered', async () => {
    const sessions = await Promise.all([1, 2, 3, 4].map(() => callsThrough(routed.url, 6)));
    for (const s of sessions) expect(s.results).toEqual(Array(6).fill(true));
    expect(new Set(sessions.map((s) => s.sessionId.split('.')[0]))).toEqual(new Set(['r1', 'r2']));
    for (const s of sessions) expect(s.sessionId).toMatch(/^r[12]\.[0-9a-f-]{36}$/);
  });

  it('lose sessions under plain round robin (why the ids carry the replica)', async () => {
    const { mcp } = await connectClient(`${roundRobin.url}/mcp`).catch(() => ({ mcp: undefined }));
    // The initialize reached one replica; the next request reaches the other, which does not know the session.
    const failed = mcp ? await mcp.callTool({ name: 'list_pipelines', arguments: { id: 'acme/web', per_page: 1 } }).then(() => false, () => true) : true;
    await mcp?.close().catch(() => undefined);
    expect(failed).toBe(true);
  });
});
