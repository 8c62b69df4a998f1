// The 2026-07-28 revision on two replicas behind a real haproxy doing plain round robin, sharing a real Redis: every
// request may reach either replica, an approval asked on one is redeemed on the other, and each call runs as many
// times as it should (a read once, an approved delete once, a declined delete never), also with clicks racing.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallToolResult, InputRequiredResult } from '@modelcontextprotocol/client';
import type { McpHttpServer } from '../../src/mcp/http/server.js';
import { RedisStore } from '../../src/state/redis-store.js';
import { reservePort, startHaproxy, type Balancer } from '../helpers/balancers.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { branchDeletes, newBranch, PROJECT } from '../helpers/approval.js';
import { useSandbox, testServerOptions } from '../helpers/mcp.js';
import { ACCEPT, manualClient, modernClient, text } from '../helpers/mcp-v2.js';
import { startHttp, statelessEndpoint } from '../safety/mcp-harness.js';

const env = useSandbox();

/** Which replica answered each stateless tools/call, in order. */
const answeredBy: string[] = [];

describe('2026-07-28 on two replicas, plain round robin, one Redis', () => {
  let redis: RedisServer;
  const stores: RedisStore[] = [];
  const replicas: McpHttpServer[] = [];
  let balancer: Balancer;

  beforeAll(async () => {
    redis = await startRedis();
    // Held until the balancer starts: the replicas take seconds, and a free port may be given away meanwhile.
    const reserved = await reservePort();
    const { port } = reserved;
    for (const replicaId of ['r1', 'r2']) {
      const store = await RedisStore.open(redis.url);
      stores.push(store);
      replicas.push(
        await startHttp(env.client, {
          replicaId,
          allowedHosts: [`127.0.0.1:${port}`],
          // No FORGEOPS_SECRET: the replicas agree on the requestState key through Redis.
          stateless: async () => {
            const endpoint = await statelessEndpoint(
              (token?: string) => ({ ...testServerOptions(env.client), token }),
              {
                store,
                sharedStore: true,
              },
            );
            return {
              ...endpoint,
              serveIfModern: async (req, res, body) => {
                const served = await endpoint.serveIfModern(req, res, body);
                if (served && (body as { method?: string }).method === 'tools/call') answeredBy.push(replicaId);
                return served;
              },
            };
          },
        }),
      );
    }
    // The documented config without its routing by session prefix: round robin, the worst case for sessions.
    const config = readFileSync(new URL('../../deploy/haproxy.cfg', import.meta.url), 'utf8')
      .replace(/^\s*use_backend .*$/m, '')
      .replace(/127\.0\.0\.1:8750/g, `127.0.0.1:${port}`)
      .replace(/127\.0\.0\.1:8751/g, `127.0.0.1:${new URL(replicas[0].url).port}`)
      .replace(/127\.0\.0\.1:8752/g, `127.0.0.1:${new URL(replicas[1].url).port}`);
    balancer = await startHaproxy(config, reserved);
  });

  afterAll(async () => {
    await balancer?.stop();
    for (const replica of replicas) await replica.close();
    for (const store of stores) await store.close();
    await redis?.stop();
  });

  it('reads, approves and declines through either replica; each call runs 0 or 1 times as it should', async () => {
    const url = `${balancer.url}/mcp`;
    await newBranch(env.client, 'rr-yes');
    await newBranch(env.client, 'rr-no');
    answeredBy.length = 0;
    const yes = await modernClient(url, () => ({ action: 'accept', content: { confirm: true } }));
    const no = await modernClient(url, () => ({ action: 'decline' }));

    const before = env.sandbox.requests.all().filter((r) => r.method === 'GET' && r.path === '/user').length;
    const me = await yes.client.callTool({ name: 'get_current_user', arguments: {} });
    expect((me.structuredContent as { username: string }).username).toBe('alice');
    expect(env.sandbox.requests.all().filter((r) => r.method === 'GET' && r.path === '/user').length).toBe(before + 1);

    const deleted = (await yes.client.callTool({
      name: 'delete_branch',
      arguments: { id: PROJECT, branch: 'rr-yes' },
    })) as CallToolResult;
    expect(deleted.isError).toBeFalsy();
    expect(yes.asked).toHaveLength(1);
    expect(branchDeletes(env.sandbox, 'rr-yes')).toBe(1);

    const declined = (await no.client.callTool({
      name: 'delete_branch',
      arguments: { id: PROJECT, branch: 'rr-no' },
    })) as CallToolResult;
    expect(text(declined)).toBe('The human declined; nothing was changed.');
    expect(branchDeletes(env.sandbox, 'rr-no')).toBe(0);

    // Both replicas answered tool calls, and an approval's two requests went to different ones.
    expect(new Set(answeredBy)).toEqual(new Set(['r1', 'r2']));
    expect(answeredBy.slice(1, 3)).toEqual(answeredBy[1] === 'r1' ? ['r1', 'r2'] : ['r2', 'r1']);
    await Promise.all([yes.client.close(), no.client.close()]);
  });

  it('the same approval sent to both replicas at once runs once', async () => {
    await newBranch(env.client, 'rr-race');
    const { client, call } = await manualClient(`${balancer.url}/mcp`);
    const args = { id: PROJECT, branch: 'rr-race' };
    const asked = (await call('delete_branch', args)) as InputRequiredResult;
    const answers = await Promise.all(
      Array.from(
        { length: 6 },
        () => call('delete_branch', args, { ...ACCEPT, requestState: asked.requestState }) as Promise<CallToolResult>,
      ),
    );
    expect(answers.filter((a) => !a.isError)).toHaveLength(1);
    for (const refused of answers.filter((a) => a.isError))
      expect(text(refused)).toBe('This approval was already used or is unknown; nothing was run.');
    expect(branchDeletes(env.sandbox, 'rr-race')).toBe(1);
    await client.close();
  });
});
