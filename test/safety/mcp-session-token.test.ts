// A session is bound to the X-Codehost-Token it was opened with: a request with another token, or none, or one too many, is refused.
import { describe, expect, it } from 'vitest';
import { SESSION_TOKEN_HEADER } from '../../src/mcp/http/guard.js';
import { useSandbox } from '../helpers/mcp.js';
import { connectClient, rawRequest, rawSessionPost, startHttp } from './mcp-harness.js';

const env = useSandbox();

const whoAmI = { id: 7, method: 'tools/call', params: { name: 'get_current_user', arguments: {} } };

describe('session bound to its service token', () => {
  it('refuses with 403 a request on a token session that carries another token or none, and keeps serving the owner', async () => {
    const server = await startHttp(env.client);
    const owner = await connectClient(server.url, { [SESSION_TOKEN_HEADER]: env.sandbox.tokens.outsider });
    const id = owner.transport.sessionId!;

    const stolen = await rawSessionPost(server.url, id, whoAmI, {
      [SESSION_TOKEN_HEADER]: env.sandbox.tokens.maintainer,
    });
    expect(stolen.status).toBe(403);
    expect(JSON.parse(stolen.body).error.message).toMatch(/opened with a different x-codehost-token/);
    const bare = await rawSessionPost(server.url, id, whoAmI);
    expect(bare.status).toBe(403);
    // GET (the notification stream) and DELETE are bound the same way: a stranger cannot end the session either.
    const hijackStream = await rawRequest(server.url, 'GET', {
      'mcp-session-id': id,
      'mcp-protocol-version': '2025-06-18',
    });
    expect(hijackStream.status).toBe(403);
    const end = await rawRequest(server.url, 'DELETE', {
      'mcp-session-id': id,
      [SESSION_TOKEN_HEADER]: env.sandbox.tokens.maintainer,
    });
    expect(end.status).toBe(403);
    expect(server.sessionCount()).toBe(1);

    const same = await rawSessionPost(server.url, id, whoAmI, { [SESSION_TOKEN_HEADER]: env.sandbox.tokens.outsider });
    expect(same.status).toBe(200);
    const me = await owner.mcp.callTool({ name: 'get_current_user', arguments: {} });
    const outsider = await env.client.request({
      method: 'GET',
      path: '/user',
      idempotent: true,
      token: env.sandbox.tokens.outsider,
    });
    expect((me.structuredContent as { username: string }).username).toBe(
      (outsider.data as { username: string }).username,
    );
    await owner.mcp.close();
    await server.close();
  });

  it('refuses with 403 a token on a session opened without one', async () => {
    const server = await startHttp(env.client);
    const owner = await connectClient(server.url);
    const id = owner.transport.sessionId!;
    const added = await rawSessionPost(server.url, id, whoAmI, { [SESSION_TOKEN_HEADER]: env.sandbox.tokens.admin });
    expect(added.status).toBe(403);
    expect(JSON.parse(added.body).error.message).toMatch(/opened with no x-codehost-token/);
    expect((await owner.mcp.callTool({ name: 'get_current_user', arguments: {} })).isError).toBeFalsy();
    await owner.mcp.close();
    await server.close();
  });
});
