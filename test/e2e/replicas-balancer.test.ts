// MCP over Streamable HTTP on two replicas behind a real haproxy and a real nginx, each with its documented config
// (deploy/haproxy.cfg, deploy/nginx.conf): session ids carry the replica's name (FORGEOPS_REPLICA_ID), so every request
// of a session reaches the replica that holds it. A replica that dies: its clients get 404 and a new session works on
// the other. The same clients behind plain round robin lose their session: the control.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpHttpServer } from '../../src/mcp/http/server.js';
import { reservePort, startHaproxy, startNginx, type Balancer } from '../helpers/balancers.js';
import { useSandbox } from '../helpers/mcp.js';
import { connectClient, startHttp } from '../safety/mcp-harness.js';

const env = useSandbox();
const read = (file: string) => readFileSync(new URL(`../../deploy/${file}`, import.meta.url), 'utf8');

/** The documented config with this test's addresses: the balancer on `port`, the replicas where they listen. */
function withAddresses(config: string, port: number, ports: number[]): string {
  return config
    .replace(/127\.0\.0\.1:8750/g, `127.0.0.1:${port}`)
    .replace(/127\.0\.0\.1:8751/g, `127.0.0.1:${ports[0]}`)
    .replace(/127\.0\.0\.1:8752/g, `127.0.0.1:${ports[1]}`);
}

const kinds: Array<[string, string, typeof startHaproxy]> = [
  ['haproxy', 'haproxy.cfg', startHaproxy],
  ['nginx', 'nginx.conf', startNginx],
];

async function call(mcp: Awaited<ReturnType<typeof connectClient>>['mcp']): Promise<boolean> {
  return mcp.callTool({ name: 'list_pipelines', arguments: { id: 'acme/web', per_page: 1 } }).then(
    (r) => !r.isError,
    () => false,
  );
}

describe.each(kinds)('two replicas behind %s', (_name, file, start) => {
  const replicas: McpHttpServer[] = [];
  let balancer: Balancer;

  beforeAll(async () => {
    // Held until the balancer starts: the replicas take seconds, and a free port may be given away meanwhile.
    const reserved = await reservePort();
    const { port } = reserved;
    // On loopback each replica accepts only its own Host: the balancer's address is listed (FORGEOPS_ALLOWED_HOSTS).
    for (const replicaId of ['r1', 'r2']) {
      // Each replica's approval pages answer with the replica's name: where the balancer sent the human.
      const approvals = (_req: unknown, res: import('node:http').ServerResponse) => {
        res.writeHead(200, { 'content-type': 'text/plain' }).end(replicaId);
      };
      replicas.push(
        await startHttp(env.client, {
          replicaId,
          allowedHosts: [`127.0.0.1:${port}`],
          mounts: { '/approvals/': approvals },
        }),
      );
    }
    balancer = await start(
      withAddresses(
        read(file),
        port,
        replicas.map((r) => Number(new URL(r.url).port)),
      ),
      reserved,
    );
  });

  afterAll(async () => {
    await balancer?.stop();
    for (const replica of replicas) await replica.close();
  });

  it('route every request of a session to its replica: sessions on both, every call answered', async () => {
    const sessions = await Promise.all(
      [1, 2, 3, 4].map(async () => {
        const { mcp, transport } = await connectClient(`${balancer.url}/mcp`);
        const results = [];
        for (let i = 0; i < 6; i++) results.push(await call(mcp));
        const id = transport.sessionId ?? '';
        await mcp.close();
        return { id, results };
      }),
    );
    for (const s of sessions) expect(s.results).toEqual(Array(6).fill(true));
    for (const s of sessions) expect(s.id).toMatch(/^r[12]\.[0-9a-f-]{36}$/);
    expect(new Set(sessions.map((s) => s.id.split('.')[0]))).toEqual(new Set(['r1', 'r2']));
  });

  it('run a destructive call approved through elicitation once, on the replica that holds the session', async () => {
    const branch = `balanced-${_name}`;
    const path = `/projects/${encodeURIComponent('acme/web')}/repository/branches`;
    expect(
      (await env.client.request({ method: 'POST', path, query: { branch, ref: 'main' }, idempotent: false })).status,
    ).toBe(201);
    const asked: string[] = [];
    const { mcp } = await connectClient(`${balancer.url}/mcp`, {}, (message) => {
      asked.push(message);
      return { action: 'accept', content: { confirm: true } };
    });
    const result = await mcp.callTool({ name: 'delete_branch', arguments: { id: 'acme/web', branch } });
    expect(result.isError).toBeFalsy();
    expect(asked).toHaveLength(1);
    expect(
      env.sandbox.requests.all().filter((r) => r.method === 'DELETE' && r.path.endsWith(`/branches/${branch}`)),
    ).toHaveLength(1);
    await mcp.close();
  });

  it('send the human who opens an approval page to the replica where the call waits', async () => {
    for (const replica of ['r1', 'r2', 'r1', 'r2', 'r2', 'r1']) {
      const res = await fetch(`${balancer.url}/approvals/${replica}.AbCdEfGhIjKlMnOpQrStUvWx`);
      expect(await res.text()).toBe(replica);
    }
  });

  it('when a replica dies, its sessions get 404 from the other and a new session works there', async () => {
    const clients = await Promise.all([1, 2, 3, 4].map(() => connectClient(`${balancer.url}/mcp`)));
    const onR1 = clients.find((c) => c.transport.sessionId?.startsWith('r1.'))!;
    expect(onR1).toBeDefined();
    await replicas[0].close();
    // The balancer notices within its checks; bounded: 40 tries of 250 ms. Until then a try may also fail outright
    // (the balancer closes a connection to the dead replica, or a kept-alive one to us, as we send): try again.
    let status: number | undefined;
    for (let i = 0; i < 40 && status !== 404; i++) {
      const res = await fetch(`${balancer.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': onR1.transport.sessionId!,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list', params: {} }),
      }).catch(() => undefined);
      status = res?.status;
      await res?.body?.cancel();
      if (status !== 404) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(status).toBe(404);
    const fresh = await connectClient(`${balancer.url}/mcp`);
    expect(fresh.transport.sessionId).toMatch(/^r2\./);
    expect(await call(fresh.mcp)).toBe(true);
    for (const c of [...clients, fresh]) await c.mcp.close().catch(() => undefined);
  });
});

describe('the control: plain round robin', () => {
  it('loses a session on its second request (why the ids carry the replica)', async () => {
    const reserved = await reservePort();
    const { port } = reserved;
    const pair = [
      await startHttp(env.client, { allowedHosts: [`127.0.0.1:${port}`] }),
      await startHttp(env.client, { allowedHosts: [`127.0.0.1:${port}`] }),
    ];
    const plain = read('haproxy.cfg').replace(/^\s*use_backend .*$/m, '');
    const balancer = await startHaproxy(
      withAddresses(
        plain,
        port,
        pair.map((r) => Number(new URL(r.url).port)),
      ),
      reserved,
    );
    try {
      const connected = await connectClient(`${balancer.url}/mcp`).catch(() => undefined);
      const failed = connected ? !(await call(connected.mcp)) : true;
      await connected?.mcp.close().catch(() => undefined);
      expect(failed).toBe(true);
    } finally {
      await balancer.stop();
      for (const r of pair) await r.close();
    }
  });
});
