// The 2026-07-28 revision has no session to send resource updates on: a subscribe over it is refused in words that
// say where subscriptions are served, never accepted and left silent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpHttpServer } from '../../../src/mcp/http/server.js';
import { STATELESS_SUBSCRIBE_REFUSAL } from '../../../src/mcp/stateless.js';
import { statusUri } from '../../../src/mcp/status-resource.js';
import { MODERN } from '../../helpers/mcp-v2.js';
import { useSandbox, testServerOptions } from '../../helpers/mcp.js';
import { rawRequest, startHttp, statelessEndpoint } from '../../safety/mcp-harness.js';

const env = useSandbox();
let server: McpHttpServer;

beforeAll(async () => {
  server = await startHttp(env.client, {
    stateless: () => statelessEndpoint((token?: string) => ({ ...testServerOptions(env.client), token })),
  });
});
afterAll(async () => {
  await server?.close();
});

/** One 2026-07-28 request as the revision frames it (the SDK's client refuses to send a method the revision lacks). */
function modernRequest(method: string, params: Record<string, unknown>) {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  return rawRequest(
    server.url,
    'POST',
    { 'content-type': 'application/json', 'mcp-protocol-version': MODERN, 'mcp-method': method },
    JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: meta } }),
  );
}

describe('subscribing over the stateless revision', () => {
  it('is refused, naming the 2025-11-25 sessions that serve it', async () => {
    const answer = await modernRequest('resources/subscribe', { uri: statusUri('acme/web') });
    expect(JSON.parse(answer.body)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32601, message: STATELESS_SUBSCRIBE_REFUSAL },
    });
    expect(STATELESS_SUBSCRIBE_REFUSAL).toMatch(/2025-11-25 sessions/);
    expect(server.sessionCount()).toBe(0);
  });

  it('acknowledges a subscriptions/listen for a status with nothing honored, so the client knows no update will come', async () => {
    const answer = await modernRequest('subscriptions/listen', {
      notifications: { resourceSubscriptions: [statusUri('acme/web')] },
    });
    expect(answer.headers['content-type']).toMatch(/text\/event-stream/);
    const acknowledged = answer.body
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)))
      .find((message) => message.method === 'notifications/subscriptions/acknowledged');
    expect(acknowledged?.params.notifications).toEqual({});
  });
});
