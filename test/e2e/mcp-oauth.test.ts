// Signing in from an MCP host, end to end: `forgeops serve` (the built CLI, OAuth mode, the embedded sandbox as the
// code host), the SDK client's own OAuth flow (discovery, DCR, PKCE, refresh), and people signing in and consenting
// in a browser driven with fetch. Both protocol revisions act as the signed-in person; read-only sign-ins run reads.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpTokens } from '../../src/identity/mcp-tokens.js';
import { MemoryStore } from '../../src/state/store.js';
import { connectWith, MemoryOAuthProvider, signInHost } from '../helpers/mcp-oauth-host.js';
import { isInputRequiredResult } from '@modelcontextprotocol/client';
import { ACCEPT, manualClient, modernClient, text } from '../helpers/mcp-v2.js';
import { OAuthBrowser, signInAsPerson } from '../helpers/oauth-browser.js';
import { type OAuthServe, startOAuthServe, postToolsList, postWithToken } from '../helpers/oauth-serve.js';

const SECRET = 'e2e-mcp-oauth-secret-0123456789abcdef';
let serve: OAuthServe;
let base: string;
let mcpUrl: string;

beforeAll(async () => {
  serve = await startOAuthServe({
    FORGEOPS_SECRET: SECRET,
    FORGEOPS_TOOLSETS: 'default',
    FORGEOPS_TOOLS: 'get_current_user',
  });
  ({ base, mcpUrl } = serve);
});

afterAll(() => serve?.stop());

const person = (username: string, decision?: 'allow' | 'allow-read') => (url: URL) =>
  signInAsPerson(new OAuthBrowser(), url, new MemoryOAuthProvider().redirect, { username, decision });

function textOf(result: unknown): string {
  return ((result as CallToolResult).content[0] as { text: string }).text;
}

describe('discovery', () => {
  it('answers an unauthenticated /mcp with 401 naming the protected resource metadata', async () => {
    const response = await postToolsList(mcpUrl);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain(
      `resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
    );
  });

  it('serves the resource metadata at the root and under /mcp, naming forgeops as the authorization server', async () => {
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const prm = await (await fetch(`${base}${path}`)).json();
      expect(prm).toMatchObject({ resource: mcpUrl, authorization_servers: [base] });
    }
    const meta = await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json();
    expect(meta).toMatchObject({
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      registration_endpoint: `${base}/oauth/register`,
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
    });
  });
});

describe('signed in from an MCP host', () => {
  it('two people signed in at once each act as themselves, in sessions and over 2026-07-28', async () => {
    // Neither is the sandbox's configured identity (alice, the maintainer): each answer can only come from a sign-in.
    const carolHost = new MemoryOAuthProvider('Carol host');
    const bobHost = new MemoryOAuthProvider('Bob host');
    const [carol, bob] = await Promise.all([
      signInHost(mcpUrl, carolHost, person('carol')),
      signInHost(mcpUrl, bobHost, person('bob')),
    ]);
    expect(carol.back.searchParams.get('iss')).toBe(base);
    const [c, b] = await Promise.all([
      carol.client.callTool({ name: 'get_current_user', arguments: {} }),
      bob.client.callTool({ name: 'get_current_user', arguments: {} }),
    ]);
    expect(textOf(c)).toContain('carol');
    expect(textOf(c)).not.toContain('bob');
    expect(textOf(b)).toContain('bob');
    expect(textOf(b)).not.toContain('carol');

    // The stateless revision, with the token the host got: the same person.
    const token = carolHost.tokens()?.access_token;
    const { client: modern } = await modernClient(mcpUrl, () => ({ action: 'decline' }), {
      authorization: `Bearer ${token}`,
    });
    const modernAnswer = textOf(await modern.callTool({ name: 'get_current_user', arguments: {} }));
    expect(modernAnswer).toContain('carol');
    expect(modernAnswer).not.toContain('alice');
    // The audit trail names people by their code host id, never by a token.
    expect(serve.output()).toMatch(/mcp sign-in: codehost-user:\d+ signed in for client mcp-/);
    await Promise.all([carol.client.close(), bob.client.close(), modern.close()]);
  });

  it('a read-only sign-in lists and runs reads only; a write is refused with 403 insufficient_scope', async () => {
    const host = new MemoryOAuthProvider('Reader host');
    const { client } = await signInHost(mcpUrl, host, person('dave', 'allow-read'));
    expect(host.tokens()?.scope).toBe('read_api');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('get_current_user');
    // Only reads (run_operation, a meta tool, runs reads only in such a session); the default toolset's writes are gone.
    expect(tools.filter((t) => t.annotations?.readOnlyHint !== true).map((t) => t.name)).toEqual(['run_operation']);
    expect(tools.map((t) => t.name)).not.toContain('delete_branch');
    expect(textOf(await client.callTool({ name: 'get_current_user', arguments: {} }))).toContain('dave');
    const refused = await fetch(mcpUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${host.tokens()?.access_token}`,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: { name: 'create_user', arguments: {} },
      }),
    });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    expect(refused.headers.get('www-authenticate')).toContain('scope="api"');
    await client.close();
  });

  it('the host refreshes its token (rotating), and revoking signs the person out at both ends (401 after)', async () => {
    const host = new MemoryOAuthProvider('Refreshing host');
    const { client } = await signInHost(mcpUrl, host, person('alice'));
    const first = host.tokens()!;
    const tokenEndpoint = `${base}/oauth/token`;
    const clientId = (host.clientInformation() as { client_id: string }).client_id;
    const refresh = (refreshToken: string) =>
      fetch(tokenEndpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId }),
      });
    const rotated = await refresh(first.refresh_token!);
    expect(rotated.status).toBe(200);
    expect(rotated.headers.get('cache-control')).toBe('no-store');
    const next = (await rotated.json()) as { access_token: string; refresh_token: string };
    expect(next.refresh_token).not.toBe(first.refresh_token);
    // The old refresh token is spent; presenting it again is a replay and ends the whole grant.
    const replay = await refresh(first.refresh_token!);
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as { error: string }).error).toBe('invalid_grant');
    const afterReplay = await postToolsList(mcpUrl, next.access_token);
    expect(afterReplay.status).toBe(401);
    expect(afterReplay.headers.get('www-authenticate')).toContain('error="invalid_token"');
    await client.close().catch(() => undefined);
  });

  it('the SDK client refreshes by itself when forgeops refuses its access token, without the person', async () => {
    const host = new MemoryOAuthProvider('Self-refreshing host');
    const { client } = await signInHost(mcpUrl, host, person('erin'));
    await client.close();
    const before = host.tokens()!;
    // An access token forgeops no longer takes (as after its hour): the host's next connection gets 401.
    host.saveTokens({ ...before, access_token: `${before.access_token}x` });
    host.authorizationUrl = undefined;
    const { client: again } = await connectWith(mcpUrl, host);
    expect(host.authorizationUrl).toBeUndefined();
    expect(host.tokens()!.refresh_token).not.toBe(before.refresh_token);
    expect(textOf(await again.callTool({ name: 'get_current_user', arguments: {} }))).toContain('erin');
    await again.close();
  });

  it('sign-out revokes at forgeops and at the code host: the host must sign in again', async () => {
    const host = new MemoryOAuthProvider('Signing-out host');
    const { client } = await signInHost(mcpUrl, host, person('bob'));
    const tokens = host.tokens()!;
    const revoked = await fetch(`${base}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        token: tokens.refresh_token!,
        client_id: (host.clientInformation() as { client_id: string }).client_id,
      }),
    });
    expect(revoked.status).toBe(200);
    const again = await client.callTool({ name: 'get_current_user', arguments: {} }).then(
      () => 'answered',
      (error: Error) => error.message,
    );
    expect(again).not.toBe('answered');
    // A fresh connection asks for a sign-in (the SDK sends the person to authorize again).
    host.authorizationUrl = undefined;
    const reconnect = await connectWith(mcpUrl, host).then(
      () => 'connected',
      (error: Error) => error.constructor.name,
    );
    expect(reconnect).toBe('UnauthorizedError');
    expect(host.authorizationUrl).toBeDefined();
  });

  it('refuses a token minted for another resource (another aud), even signed with the same key', async () => {
    const other = new McpTokens({
      store: new MemoryStore(),
      secret: SECRET,
      issuer: () => base,
      resource: () => 'https://elsewhere.example/mcp',
    });
    // A real sign-in's code, redeemed by another resource's token service: its token names that resource.
    const code = await other.issueCode({
      clientId: 'c',
      redirectUri: 'http://127.0.0.1:1/cb',
      codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      scopes: ['api'],
      person: 'codehost-user:1',
      resource: 'https://elsewhere.example/mcp',
    });
    const minted = await other.redeemCode(code, {
      clientId: 'c',
      redirectUri: 'http://127.0.0.1:1/cb',
      codeVerifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
    });
    const response = await postToolsList(mcpUrl, minted.access_token);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('another resource');
  });
});

describe('everything keys on the signed-in person', () => {
  let bobToken: string;
  let carolToken: string;

  beforeAll(async () => {
    const bobHost = new MemoryOAuthProvider('Bob keys host');
    const carolHost = new MemoryOAuthProvider('Carol keys host');
    const [bob, carol] = await Promise.all([
      signInHost(mcpUrl, bobHost, person('bob')),
      signInHost(mcpUrl, carolHost, person('carol')),
    ]);
    await Promise.all([bob.client.close(), carol.client.close()]);
    bobToken = bobHost.tokens()!.access_token;
    carolToken = carolHost.tokens()!.access_token;
  });

  const post = (token: string, body: unknown, session?: string) => postWithToken(mcpUrl, token, body, session);

  it("refuses one person's session to another person's token", async () => {
    const opened = await post(carolToken, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    });
    expect(opened.status).toBe(200);
    const session = opened.headers.get('mcp-session-id')!;
    await opened.body?.cancel();
    const stolen = await post(bobToken, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, session);
    expect(stolen.status).toBe(403);
    expect(await stolen.text()).toContain('belongs to another signed-in person');
  });

  it('acts as the person, not as an X-Codehost-Token sent beside the sign-in', async () => {
    const { client } = await modernClient(mcpUrl, () => ({ action: 'decline' }), {
      authorization: `Bearer ${carolToken}`,
      'x-codehost-token': 'fo-maintainer-sandbox-token',
    });
    const answer = textOf(await client.callTool({ name: 'get_current_user', arguments: {} }));
    expect(answer).toContain('carol');
    expect(answer).not.toContain('alice');
    await client.close();
  });

  it("binds a 2026-07-28 approval question to the person: another person's answer to it counts for nothing", async () => {
    const args = { id: 'acme/web', branch: 'no-such-branch-for-oauth' };
    const asker = await manualClient(mcpUrl, { authorization: `Bearer ${bobToken}` });
    const question = await asker.call('delete_branch', args);
    expect(isInputRequiredResult(question)).toBe(true);
    const requestState = (question as { requestState?: string }).requestState!;
    expect(requestState).toBeTruthy();
    // Carol echoes Bob's question with a yes: refused before the call runs.
    const other = await manualClient(mcpUrl, { authorization: `Bearer ${carolToken}` });
    const hijack = await other.call('delete_branch', args, { ...ACCEPT, requestState }).then(
      (result) => (isInputRequiredResult(result) ? 'asked again' : text(result as never)),
      (error: Error) => `error: ${error.message}`,
    );
    expect(hijack).toBe('error: Invalid or expired requestState');
    // Bob's own yes goes through to the service (which has no such branch).
    const answered = await asker.call('delete_branch', args, { ...ACCEPT, requestState });
    expect(isInputRequiredResult(answered)).toBe(false);
    expect(text(answered as never)).toMatch(/not found|404/i);
    await Promise.all([asker.client.close(), other.client.close()]);
  });
});
