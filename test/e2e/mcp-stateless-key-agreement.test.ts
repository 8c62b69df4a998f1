// Two replicas without FORGEOPS_SECRET agree on the requestState key through Redis, and agree again after Redis lost
// it (FLUSHALL, or a restart without persistence): a question asked on one is answered on the other, both ways,
// without restarting either. A real redis-server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { isInputRequiredResult, type CallToolResult, type InputRequiredResult } from '@modelcontextprotocol/client';
import type { McpHttpServer } from '../../src/mcp/http/server.js';
import { RedisStore } from '../../src/state/redis-store.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { branchDeletes, newBranch, PROJECT } from '../helpers/approval.js';
import { useSandbox, testServerOptions } from '../helpers/mcp.js';
import { ACCEPT, manualClient, text } from '../helpers/mcp-v2.js';
import { startHttp, statelessEndpoint } from '../safety/mcp-harness.js';

const env = useSandbox();

describe('the requestState key after Redis lost its data', () => {
  let redis: RedisServer;
  let admin: Redis;
  const stores: RedisStore[] = [];
  const replicas: McpHttpServer[] = [];

  /** A replica as serve makes it: its 2026-07-28 endpoint (and so its key) is made on its first such request. */
  async function startReplica(): Promise<McpHttpServer> {
    const store = await RedisStore.open(redis.url);
    stores.push(store);
    const replica = await startHttp(env.client, {
      stateless: () =>
        statelessEndpoint((token?: string) => ({ ...testServerOptions(env.client), token }), {
          store,
          sharedStore: true,
        }),
    });
    replicas.push(replica);
    return replica;
  }

  /** Makes `branch`, asks to delete it on one replica and answers yes on the other; the call's result. */
  async function askHereAnswerThere(
    asked: McpHttpServer,
    answered: McpHttpServer,
    branch: string,
  ): Promise<CallToolResult> {
    await newBranch(env.client, branch);
    const args = { id: PROJECT, branch };
    const here = await manualClient(asked.url);
    const there = await manualClient(answered.url);
    const question = await here.call('delete_branch', args);
    expect(isInputRequiredResult(question)).toBe(true);
    const result = await there
      .call('delete_branch', args, { ...ACCEPT, requestState: (question as InputRequiredResult).requestState })
      .catch((error: Error) => ({ isError: true, content: [{ type: 'text', text: error.message }] }) as CallToolResult);
    await Promise.all([here.client.close(), there.client.close()]);
    return result as CallToolResult;
  }

  beforeAll(async () => {
    redis = await startRedis();
    admin = new Redis(redis.url);
  });

  afterAll(async () => {
    for (const replica of replicas) await replica.close();
    for (const store of stores) await store.close();
    admin?.disconnect();
    await redis?.stop();
  });

  it("a replica that made its key before FLUSHALL and one that made it after answer each other's questions", async () => {
    const before = await startReplica();
    // The first replica's key is made now, and kept in Redis.
    expect((await askHereAnswerThere(before, before, 'key-warmup')).isError).toBeFalsy();
    await admin.flushall();
    const after = await startReplica();
    for (const [asked, answered, branch] of [
      [after, before, 'key-after-to-before'],
      [before, after, 'key-before-to-after'],
    ] as const) {
      const result = await askHereAnswerThere(asked, answered, branch);
      expect(text(result)).not.toMatch(/requestState/i);
      expect(result.isError).toBeFalsy();
      expect(branchDeletes(env.sandbox, branch)).toBe(1);
    }
  });

  it('replicas that both hold the key put it back when Redis lost it, and a replica started then agrees with them', async () => {
    const [one, two] = [await startReplica(), await startReplica()];
    expect((await askHereAnswerThere(one, two, 'key-both-warm')).isError).toBeFalsy();
    await admin.flushall();
    expect((await askHereAnswerThere(one, two, 'key-put-back')).isError).toBeFalsy();
    const three = await startReplica();
    for (const [asked, answered, branch] of [
      [three, one, 'key-newcomer-asks'],
      [two, three, 'key-newcomer-answers'],
    ] as const) {
      expect((await askHereAnswerThere(asked, answered, branch)).isError).toBeFalsy();
      expect(branchDeletes(env.sandbox, branch)).toBe(1);
    }
  });
});
