// One in-memory MCP session for a test file's tests, opened before them and closed after them.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll } from 'vitest';
import type { TriageReport } from '../../src/operations/composed/triage.js';
import { connectInMemory } from './mcp.js';

type Session = Awaited<ReturnType<typeof connectInMemory>>;

/**
 * Registers the calling file's hooks for a session on `env.client` (its sandbox must start first: call this after
 * useSandbox) with `options`; `client` reads the open session's MCP client. The session lives in this call only.
 */
export function useMcpSession(
  env: { readonly client: Parameters<typeof connectInMemory>[0]['client'] },
  options: Omit<Parameters<typeof connectInMemory>[0], 'client'> = {},
): { readonly client: Client } {
  let session: Session | undefined;
  beforeAll(async () => {
    session = await connectInMemory({ ...options, client: env.client });
  });
  afterAll(async () => {
    await session?.close();
  });
  return {
    get client() {
      if (!session) throw new Error('the MCP session is only open inside a test');
      return session.client;
    },
  };
}

/** triage_project on acme/web through `client`: the tool's result (for its text) and the structured report. */
export async function triageWebOverMcp(client: Client) {
  const result = await client.callTool({ name: 'triage_project', arguments: { id: 'acme/web' } });
  return { result, report: result.structuredContent as unknown as TriageReport };
}
