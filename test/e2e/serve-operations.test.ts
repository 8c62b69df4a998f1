// `forgeops serve` as an operator runs it (the built CLI, the embedded sandbox, the Slack bot mounted, state in a real
// redis-server): /healthz, /readyz with the service and the state, /metrics, and SIGTERM draining to a clean exit.
import { tmpdir } from 'node:os';
import { spawn, type ChildProcess } from 'node:child_process';
import { createConnection } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { modernClient, text } from '../helpers/mcp-v2.js';
import { connectClient, initializeBody, rawRequest } from '../safety/mcp-harness.js';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { onOutput, servedReady } from '../helpers/child-output.js';

const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
let redis: RedisServer;
let serve: ChildProcess;
let base: string;
let output = '';
let exited: Promise<number | null>;

beforeAll(async () => {
  redis = await startRedis();
  // Port 0, its address read from its banner: the system gives serve the port as it binds, and no other program can
  // be given it first. Nothing needs the port beforehand: without FORGEOPS_SECRET the Slack bot offers no sign-in
  // through the code host (whose redirect URI would hold it).
  serve = spawn(process.execPath, [cli, 'serve', '--port', '0'], {
    env: {
      PATH: process.env.PATH ?? '',
      TMPDIR: tmpdir(),
      // The MCP calls here act with the sandbox's configured token: the token mode, chosen explicitly.
      FORGEOPS_MCP_AUTH: 'token',
      FORGEOPS_REDIS_URL: redis.url,
      FORGEOPS_REPLICA_ID: 'r1',
      SLACK_SIGNING_SECRET: 'test-signing-secret',
      SLACK_BOT_TOKEN: 'xoxb-test',
      SLACK_API_URL: 'http://127.0.0.1:9/api',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  onOutput(serve, (chunk) => {
    output += chunk;
  });
  exited = new Promise((resolve) => serve.once('exit', (code) => resolve(code)));
  // Ready: serve has said where it listens, the sandbox is up and the service answers.
  base = await servedReady(() => output);
});

/** One Redis command over a raw connection: its first answer line. */
function redisCommand(port: number, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => socket.write(`${command}\r\n`));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().split('\r\n')[0]);
    });
    socket.once('error', reject);
  });
}

afterAll(async () => {
  if (serve.exitCode === null) serve.kill('SIGKILL');
  await redis?.stop();
});

describe('forgeops serve for an operator', () => {
  it('is alive and ready: the service and the shared state answer; metrics are served', async () => {
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${base}/readyz`)).json()).toEqual({
      ready: true,
      checks: { service: 'ok', state: 'ok', watching: 'ok' },
    });
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toContain('# TYPE forgeops_calls_total counter');
    expect(metrics).toMatch(/^forgeops_mcp_sessions 0$/m);
    expect(output).toContain(`slack: state in Redis at 127.0.0.1:${redis.port}, shared with every replica`);
  });

  it('answers a 2026-07-28 client from the bundle: a read, and a delete approved through input_required with its ticket in Redis', async () => {
    const { client, asked } = await modernClient(`${base}/mcp`, () => ({
      action: 'accept',
      content: { confirm: true },
    }));
    const me = await client.callTool({ name: 'get_current_user', arguments: {} });
    expect((me.structuredContent as { username: string }).username).toMatch(/\w+/);
    const created = (await client.callTool({
      name: 'create_branch',
      arguments: { id: 'acme/web', branch: 'bundle-2026', ref: 'main' },
    })) as CallToolResult;
    expect(created.isError).toBeFalsy();
    expect(asked).toHaveLength(0);
    const deleted = (await client.callTool({
      name: 'delete_branch',
      arguments: { id: 'acme/web', branch: 'bundle-2026' },
    })) as CallToolResult;
    expect(text(deleted)).toContain('bundle-2026');
    expect(deleted.isError).toBeFalsy();
    expect(asked).toHaveLength(1);
    // The replicas' requestState key lives in Redis (no FORGEOPS_SECRET here).
    expect(await redisCommand(redis.port, 'EXISTS forgeops:mcp:request-state-key')).toBe(':1');
    await client.close();
  });

  it('is not ready while Redis is away, and says why', async () => {
    await redis.stop();
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const answer = await fetch(`${base}/readyz`);
    expect(answer.status).toBe(503);
    expect(await answer.json()).toEqual({
      ready: false,
      // Watching pauses once a check meets the store away: at once, or at the next interval.
      checks: {
        service: 'ok',
        state: `Redis at 127.0.0.1:${redis.port} does not answer`,
        watching: expect.stringMatching(/^(ok|watching paused: Redis at .* unreachable)$/),
      },
    });
  });

  it('drains on SIGTERM with 20 calls in flight: all 20 answered, no new session let in, exit 0 within the grace', async () => {
    const clients = await Promise.all([1, 2, 3, 4].map(() => connectClient(`${base}/mcp`)));
    const listed = await clients[0].mcp.callTool({
      name: 'list_pipelines',
      arguments: { id: 'acme/web', status: 'running' },
    });
    const running = (listed.structuredContent as { items: Array<{ id: number }> }).items[0].id;
    // Each call waits 3 s on a pipeline that keeps running (checks at about 0, 1 and 2.5 s), through run_operation
    // (the default toolset leaves wait_for_pipeline to the meta tools): all 20 are in flight when the signal comes.
    const calls = clients.flatMap(({ mcp }) =>
      [1, 2, 3, 4, 5].map(() =>
        mcp.callTool({
          name: 'run_operation',
          arguments: {
            name: 'wait_for_pipeline',
            arguments: { id: 'acme/web', pipeline_id: running, timeout_seconds: 3 },
          },
        }),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    const signalled = Date.now();
    serve.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const newcomer = await rawRequest(`${base}/mcp`, 'POST', { 'content-type': 'application/json' }, initializeBody());
    expect(newcomer.status).toBe(503);
    const answers = await Promise.all(calls);
    expect(answers.map((answer) => (answer.isError ? JSON.stringify(answer.content) : 'answered'))).toEqual(
      Array(20).fill('answered'),
    );
    // Each waited through the drain rather than being cut by it.
    for (const answer of answers) expect((answer.content as Array<{ text: string }>)[0].text).toMatch(/"checks":[2-9]/);
    expect(await exited).toBe(0);
    // The grace is 25 s; these calls needed about 2.5.
    expect(Date.now() - signalled).toBeLessThan(25_000);
    expect(output).toContain('shutting down: finishing the calls in flight');
    expect(output).not.toContain('requests still running');
    for (const { mcp } of clients) await mcp.close().catch(() => undefined);
  });
});
