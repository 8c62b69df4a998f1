// The 2026-07-28 revision on /mcp beside 2025-11-25 sessions: SDK v2 clients read, approve and decline statelessly,
// and an approval counts once, for the exact call it was asked about, only after it was asked.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
  isInputRequiredResult,
} from '@modelcontextprotocol/client';
import type { CallToolResult, InputRequiredResult } from '@modelcontextprotocol/client';
import { ACCEPT, MODERN, manualClient, modernClient, text } from '../helpers/mcp-v2.js';
import type { McpHttpServer } from '../../src/mcp/http/server.js';
import type { McpServerOptions } from '../../src/mcp/server.js';
import { MemoryStore } from '../../src/state/store.js';
import { branchDeletes, newBranch, PROJECT } from '../helpers/approval.js';
import { useSandbox, testServerOptions } from '../helpers/mcp.js';
import { connectClient, rawRequest, startHttp, statelessEndpoint } from '../safety/mcp-harness.js';

const env = useSandbox();

/** The options serve gives both revisions, here on the sandbox. */
function serverOptions(token?: string): McpServerOptions {
  return {
    ...testServerOptions(env.client),
    token,
  };
}

function startServer(store = new MemoryStore()): Promise<McpHttpServer> {
  return startHttp(env.client, {
    stateless: () => statelessEndpoint(serverOptions, { store }),
  });
}

async function branchExists(name: string): Promise<boolean> {
  const path = `/projects/${encodeURIComponent(PROJECT)}/repository/branches/${name}`;
  return env.client.request({ method: 'GET', path, idempotent: true }).then(
    (response) => response.status === 200,
    () => false,
  );
}

/** Asks a 2026-07-28 client to delete `branch` of PROJECT (a call that needs a person's yes). */
async function deleteBranch(client: ClientV2, branch: string): Promise<CallToolResult> {
  return (await client.callTool({ name: 'delete_branch', arguments: { id: PROJECT, branch } })) as CallToolResult;
}

describe('MCP 2026-07-28 (stateless) beside 2025-11-25 sessions', () => {
  let server: McpHttpServer;
  // The teardown beforeAll returns runs after the block's tests.
  beforeAll(async () => {
    server = await startServer();
    return () => server.close();
  });

  it('reads with no session: the v2 client negotiates 2026-07-28, lists tools and calls one, and the server keeps nothing', async () => {
    const { client } = await modernClient(server.url, () => ({ action: 'decline' }));
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('triage_project');
    const me = await client.callTool({ name: 'get_current_user', arguments: {} });
    expect(me.isError).toBeFalsy();
    expect((me.structuredContent as { username: string }).username).toBe('alice');
    expect(server.sessionCount()).toBe(0);
    // A 2025 client on the same endpoint still gets its session.
    const legacy = await connectClient(server.url);
    expect(server.sessionCount()).toBe(1);
    await legacy.mcp.close();
    await client.close();
  });

  it('a destructive call asks the human once through input_required and runs once when they approve', async () => {
    await newBranch(env.client, 'stateless-yes');
    const { client, asked } = await modernClient(server.url, () => ({ action: 'accept', content: { confirm: true } }));
    const result = await deleteBranch(client, 'stateless-yes');
    expect(result.isError).toBeFalsy();
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('stateless-yes');
    expect(asked[0]).toContain('Run exactly this call?');
    expect(branchDeletes(env.sandbox, 'stateless-yes')).toBe(1);
    expect(await branchExists('stateless-yes')).toBe(false);
    await client.close();
  });

  it('a declined call runs nothing and says so', async () => {
    await newBranch(env.client, 'stateless-no');
    const { client, asked } = await modernClient(server.url, () => ({ action: 'decline' }));
    const result = await deleteBranch(client, 'stateless-no');
    expect(result.isError).toBe(true);
    expect(text(result)).toBe('The human declined; nothing was changed.');
    expect(asked).toHaveLength(1);
    expect(branchDeletes(env.sandbox, 'stateless-no')).toBe(0);
    expect(await branchExists('stateless-no')).toBe(true);
    await client.close();
  });

  it('an approval counts once: the same requestState and answer sent again run nothing', async () => {
    await newBranch(env.client, 'stateless-replay');
    const { client, call } = await manualClient(server.url);
    const args = { id: PROJECT, branch: 'stateless-replay' };
    const first = await call('delete_branch', args);
    expect(isInputRequiredResult(first)).toBe(true);
    const { requestState } = first as InputRequiredResult;
    expect(requestState).toBeTruthy();
    const confirmed = (await call('delete_branch', args, { ...ACCEPT, requestState })) as CallToolResult;
    expect(confirmed.isError).toBeFalsy();
    const replayed = (await call('delete_branch', args, { ...ACCEPT, requestState })) as CallToolResult;
    expect(replayed.isError).toBe(true);
    expect(text(replayed)).toBe('This approval was already used or is unknown; nothing was run.');
    expect(branchDeletes(env.sandbox, 'stateless-replay')).toBe(1);
    await client.close();
  });

  it('an approval is answered only with its requestState as sent: a padded or re-alphabeted one runs nothing', async () => {
    await newBranch(env.client, 'stateless-spelling');
    const { client, call } = await manualClient(server.url);
    const args = { id: PROJECT, branch: 'stateless-spelling' };
    const { requestState } = (await call('delete_branch', args)) as InputRequiredResult;
    const spelled = [`${requestState}=`, `${requestState}\n`, requestState!.replaceAll('-', '+').replaceAll('_', '/')];
    for (const variant of spelled.filter((s) => s !== requestState)) {
      await expect(call('delete_branch', args, { ...ACCEPT, requestState: variant })).rejects.toThrow(/requestState/i);
    }
    expect(branchDeletes(env.sandbox, 'stateless-spelling')).toBe(0);
    const approved = (await call('delete_branch', args, { ...ACCEPT, requestState })) as CallToolResult;
    expect(approved.isError).toBeFalsy();
    const replayed = (await call('delete_branch', args, { ...ACCEPT, requestState })) as CallToolResult;
    expect(replayed.isError).toBe(true);
    expect(branchDeletes(env.sandbox, 'stateless-spelling')).toBe(1);
    await client.close();
  });

  it('an approval runs only the call it was asked about: other arguments with its requestState run nothing', async () => {
    await newBranch(env.client, 'stateless-asked');
    await newBranch(env.client, 'stateless-other');
    const { client, call } = await manualClient(server.url);
    const first = (await call('delete_branch', { id: PROJECT, branch: 'stateless-asked' })) as InputRequiredResult;
    const swapped = (await call(
      'delete_branch',
      { id: PROJECT, branch: 'stateless-other' },
      { ...ACCEPT, requestState: first.requestState },
    )) as CallToolResult;
    expect(swapped.isError).toBe(true);
    expect(text(swapped)).toBe('The call changed since it was approved; nothing was run.');
    expect(branchDeletes(env.sandbox, 'stateless-other')).toBe(0);
    expect(branchDeletes(env.sandbox, 'stateless-asked')).toBe(0);
    await client.close();
  });

  it('an answer nobody was asked for counts for nothing: the question is asked instead', async () => {
    await newBranch(env.client, 'stateless-forged');
    const { client, call } = await manualClient(server.url);
    const forged = await call('delete_branch', { id: PROJECT, branch: 'stateless-forged' }, ACCEPT);
    expect(isInputRequiredResult(forged)).toBe(true);
    // A requestState the server did not sign is refused before any handler runs.
    await expect(
      call('delete_branch', { id: PROJECT, branch: 'stateless-forged' }, { ...ACCEPT, requestState: 'v1.e30.AAAA' }),
    ).rejects.toThrow(/requestState/i);
    expect(branchDeletes(env.sandbox, 'stateless-forged')).toBe(0);
    await client.close();
  });

  it('a requestState is bound to the service token it was asked under', async () => {
    await newBranch(env.client, 'stateless-token');
    const mine = await manualClient(server.url);
    const args = { id: PROJECT, branch: 'stateless-token' };
    const first = (await mine.call('delete_branch', args)) as InputRequiredResult;
    const other = await manualClient(server.url, { 'x-codehost-token': env.sandbox.tokens.admin });
    await expect(other.call('delete_branch', args, { ...ACCEPT, requestState: first.requestState })).rejects.toThrow(
      /requestState/i,
    );
    expect(branchDeletes(env.sandbox, 'stateless-token')).toBe(0);
    await Promise.all([mine.client.close(), other.client.close()]);
  });

  it('a made-up X-Codehost-Token gets no ticket and asks nobody; a real one is asked as usual', async () => {
    await newBranch(env.client, 'stateless-badtoken');
    const args = { id: PROJECT, branch: 'stateless-badtoken' };
    const stranger = await manualClient(server.url, { 'x-codehost-token': 'made-up-token-0000' });
    const refused = (await stranger.call('delete_branch', args)) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain('the service refuses the X-Codehost-Token this request carries (401)');
    const owner = await manualClient(server.url, { 'x-codehost-token': env.sandbox.tokens.maintainer });
    expect(isInputRequiredResult(await owner.call('delete_branch', args))).toBe(true);
    expect(branchDeletes(env.sandbox, 'stateless-badtoken')).toBe(0);
    await Promise.all([stranger.client.close(), owner.client.close()]);
  });

  it('a client without elicitation is told in words that the call needs a human, and nothing runs', async () => {
    await newBranch(env.client, 'stateless-noform');
    const client = new ClientV2(
      { name: 'v2-noform', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: MODERN } } },
    );
    await client.connect(new TransportV2(new URL(server.url)));
    const result = await deleteBranch(client, 'stateless-noform');
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('this MCP client cannot ask (it does not declare elicitation)');
    expect(branchDeletes(env.sandbox, 'stateless-noform')).toBe(0);
    await client.close();
  });

  it('a 2025 request with no session is still told to initialize first', async () => {
    const answer = await rawRequest(
      server.url,
      'POST',
      { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    );
    expect(answer.status).toBe(400);
    expect(answer.body).toContain('the first request must be initialize');
  });
});
