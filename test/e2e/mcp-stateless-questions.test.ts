// 2026-07-28 questions are capped per client, not per principal: clients without a token of their own share one
// principal, and one's unanswered questions must not refuse another's. A made-up X-Codehost-Token gets no question
// while the service cannot say whether it is real.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isInputRequiredResult, type CallToolResult } from '@modelcontextprotocol/client';
import { HttpClient } from '../../src/http/client.js';
import type { McpHttpServer } from '../../src/mcp/http/server.js';
import { MAX_WAITING_PER_CLIENT } from '../../src/mcp/stateless.js';
import type { McpServerOptions } from '../../src/mcp/server.js';
import { MemoryStore } from '../../src/state/store.js';
import type { ApiTransport } from '../../src/http/types.js';
import { newBranch, PROJECT } from '../helpers/approval.js';
import { testServerOptions, useSandbox } from '../helpers/mcp.js';
import { text } from '../helpers/mcp-v2.js';
import { manualClientFrom } from '../helpers/from-address.js';
import { startHttp, statelessEndpoint } from '../safety/mcp-harness.js';

const env = useSandbox();

function startServer(store: MemoryStore, client: () => ApiTransport = () => env.client): Promise<McpHttpServer> {
  const serverOptions = (token?: string): McpServerOptions => ({
    ...testServerOptions(client() as HttpClient),
    token,
  });
  return startHttp(env.client, {
    stateless: () => statelessEndpoint(serverOptions, { store }),
  });
}

describe('2026-07-28 questions per client', () => {
  beforeAll(async () => {
    await newBranch(env.client, 'questions-held');
  });

  it('a client with its cap of unanswered questions is refused more; another client without a token is still asked', async () => {
    const store = new MemoryStore();
    const server = await startServer(store);
    const args = { id: PROJECT, branch: 'questions-held' };
    const first = await manualClientFrom('127.0.0.1', server.url);
    for (let i = 0; i < MAX_WAITING_PER_CLIENT; i++)
      expect(isInputRequiredResult(await first.call('delete_branch', args))).toBe(true);
    const refused = (await first.call('delete_branch', args)) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain(`You already have ${MAX_WAITING_PER_CLIENT} calls waiting for your approval`);

    // Same principal (the configured token), another client: its own share.
    const second = await manualClientFrom('127.0.0.2', server.url);
    expect(isInputRequiredResult(await second.call('delete_branch', args))).toBe(true);
    // Same address, its own token: another principal, another share.
    const withToken = await manualClientFrom('127.0.0.1', server.url, {
      'x-codehost-token': env.sandbox.tokens.maintainer,
    });
    expect(isInputRequiredResult(await withToken.call('delete_branch', args))).toBe(true);
    await Promise.all([first.client.close(), second.client.close(), withToken.client.close()]);
    await server.close();
  });
});

describe('a made-up X-Codehost-Token while the service cannot check it', () => {
  let failing: Server;
  let failingUrl: string;
  let closedUrl: string;
  beforeAll(async () => {
    failing = createServer((_req, res) =>
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"message":"503 Service Unavailable"}'),
    );
    await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
    failingUrl = `http://127.0.0.1:${(failing.address() as AddressInfo).port}`;
    const gone = createServer();
    await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve));
    closedUrl = `http://127.0.0.1:${(gone.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => gone.close(() => resolve()));
  });
  afterAll(() => new Promise<void>((resolve) => failing.close(() => resolve())));

  it.each([
    ['answers 503', () => failingUrl, 'GET /user answered 503'],
    ['cannot be reached', () => closedUrl, 'GET /user could not reach the service'],
  ])(
    'gets no ticket and no question when the service %s, and is told the token could not be checked',
    async (_what, url, why) => {
      const store = new MemoryStore();
      const service = new HttpClient({ baseUrl: url(), retry: { maxRetries: 0 } });
      const server = await startServer(store, () => service);
      const stranger = await manualClientFrom('127.0.0.1', server.url, { 'x-codehost-token': 'made-up-token-0000' });
      const result = await stranger.call('delete_branch', { id: PROJECT, branch: 'questions-held' });
      expect(isInputRequiredResult(result)).toBe(false);
      expect((result as CallToolResult).isError).toBe(true);
      expect(text(result as CallToolResult)).toContain(
        `the X-Codehost-Token this request carries could not be checked with the service (${why})`,
      );
      expect(text(result as CallToolResult)).not.toContain('made-up-token-0000');
      expect(await store.count('confirm:')).toBe(0);
      await stranger.client.close();
      await server.close();
      await service.close();
    },
  );
});
