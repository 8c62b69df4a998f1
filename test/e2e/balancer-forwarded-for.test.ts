// Behind haproxy and nginx with their documented configs (deploy/), a replica that trusts the balancer
// (FORGEOPS_TRUSTED_PROXIES) tells the clients apart by the X-Forwarded-For the balancer sends: one client holding its
// share of sessions leaves another's fresh client unaffected, and a session answers only the client that opened it.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpHttpServer } from '../../src/mcp/http/server.js';
import { reservePort, startHaproxy, startNginx, type Balancer } from '../helpers/balancers.js';
import { useSandbox } from '../helpers/mcp.js';
import { connectFrom, initializeFrom, sessionPostFrom } from '../helpers/from-address.js';
import { startHttp } from '../safety/mcp-harness.js';

const env = useSandbox();
const read = (file: string) => readFileSync(new URL(`../../deploy/${file}`, import.meta.url), 'utf8');
const SHARE = 2;

const kinds: Array<[string, string, typeof startHaproxy]> = [
  ['haproxy', 'haproxy.cfg', startHaproxy],
  ['nginx', 'nginx.conf', startNginx],
];

describe.each(kinds)('one replica behind %s, trusting it', (_name, file, start) => {
  let replica: McpHttpServer;
  let balancer: Balancer;
  let url: string;

  beforeAll(async () => {
    // Held until the balancer starts, so that no other server is given it meanwhile.
    const reserved = await reservePort();
    const { port } = reserved;
    replica = await startHttp(env.client, {
      allowedHosts: [`127.0.0.1:${port}`],
      trustedProxies: ['127.0.0.1'],
      maxSessions: 20,
      maxSessionsPerCaller: SHARE,
    });
    // Every server of the documented config is this one replica, so all sessions meet the same caps.
    const replicaAddress = `127.0.0.1:${new URL(replica.url).port}`;
    const config = read(file)
      .replace(/127\.0\.0\.1:8750/g, `127.0.0.1:${port}`)
      .replace(/127\.0\.0\.1:875[12]/g, replicaAddress);
    balancer = await start(config, reserved);
    url = `${balancer.url}/mcp`;
  });

  afterAll(async () => {
    await balancer?.stop();
    await replica?.close();
  });

  it('counts each client by the address the balancer saw: one at its share is refused, another gets in', async () => {
    const opened: string[] = [];
    for (let i = 0; i < SHARE; i++) {
      const answer = await initializeFrom('127.0.0.2', url);
      expect(answer.status).toBe(200);
      opened.push(answer.sessionId!);
    }
    const over = await initializeFrom('127.0.0.2', url);
    expect(over.status).toBe(429);
    expect(JSON.parse(over.body).error.message).toContain('this client (127.0.0.2)');
    const { mcp } = await connectFrom('127.0.0.3', url);
    expect((await mcp.callTool({ name: 'get_current_user', arguments: {} })).isError).toBeFalsy();
    await mcp.close();
    // A session's id from the other client is unknown there.
    expect((await sessionPostFrom('127.0.0.3', url, opened[0], { id: 1, method: 'ping' })).status).toBe(404);
    expect((await sessionPostFrom('127.0.0.2', url, opened[0], { method: 'notifications/initialized' })).status).toBe(
      202,
    );
  });
});
