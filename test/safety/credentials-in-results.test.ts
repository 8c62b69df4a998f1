// Credentials the service returns (a project's runners_token) never reach a tool result or a chat reply.
import { describe, expect, it } from 'vitest';
import { connectInMemory, useSandbox } from '../helpers/mcp.js';

const env = useSandbox();

describe('credentials in answers', () => {
  it("redacts a group's runners_token in the tool result its owner gets, and keeps everything else", async () => {
    const raw = await env.client.request<Record<string, unknown>>({
      method: 'GET',
      path: '/groups/acme',
      idempotent: true,
      token: env.sandbox.tokens.admin,
    });
    // The service does send it: the test would prove nothing otherwise.
    expect(typeof raw.data.runners_token).toBe('string');
    const mcp = await connectInMemory({ client: env.client, token: env.sandbox.tokens.admin });
    const result = await mcp.client.callTool({ name: 'get_group', arguments: { id: 'acme' } });
    const group = result.structuredContent as Record<string, unknown>;
    expect(group.runners_token).toBe('[redacted]');
    expect(group.full_path).toBe('acme');
    expect(JSON.stringify(result)).not.toContain(String(raw.data.runners_token));
    await mcp.close();
  });
});
