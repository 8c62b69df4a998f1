// Two forgeops replicas in front of one code host (the sandbox, its clock in the test's hands), sharing one state
// store as they would share Redis: a person signs in through one, the host's token works on the other, and when the
// code host's token expires, both replicas hit at once refresh it at the code host once (it rotates both tokens: a
// second refresh would sign the person out). With one store in memory, and with Redis (each replica its own connection).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { HttpClient } from '../../src/http/client.js';
import { CodeHostOAuth } from '../../src/identity/code-host-oauth.js';
import { createMcpSignInParts } from '../../src/identity/mcp-sign-in.js';
import { personTransport } from '../../src/identity/person-client.js';
import { personKey, TokenVault } from '../../src/identity/token-vault.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { type McpHttpServer, startMcpHttpServer } from '../../src/mcp/http/server.js';
import { mcpSignIn } from '../../src/mcp/http/sign-in.js';
import { ManualClock } from '../../src/sandbox/core/clock.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { RedisStore } from '../../src/state/redis-store.js';
import { MemoryStore, type StateStore } from '../../src/state/store.js';
import { onFreePort } from '../../tools/ports.mjs';
import { testServerOptions } from '../helpers/mcp.js';
import { connectWith, MemoryOAuthProvider, signInHost } from '../helpers/mcp-oauth-host.js';
import { OAuthBrowser, signInAsPerson } from '../helpers/oauth-browser.js';
import { listWith } from '../helpers/oauth-serve.js';
import { type RedisServer, startRedis } from '../helpers/redis.js';

const SECRET = 'replicas-test-secret-0123456789abcdef';
const clock = new ManualClock(Date.UTC(2026, 11, 6, 9));
let sandbox: Sandbox;
let service: HttpClient;
let redis: RedisServer;

beforeAll(async () => {
  sandbox = await startSandbox({
    clock,
    applications: [
      {
        name: 'forgeops',
        redirect_uris: ['http://127.0.0.1/oauth/callback'],
        scopes: ['api', 'read_api', 'read_user'],
        confidential: true,
      },
    ],
  });
  service = new HttpClient({ baseUrl: sandbox.url, proxy: {} });
  redis = await startRedis();
}, 60_000);

afterAll(async () => {
  await service?.close();
  await sandbox?.close();
  await redis?.stop();
});

/**
 * Two replicas, each with its own store handle (the same store, or connections to one Redis). Their shared address,
 * as a balancer in front gives them one, is the first replica's: the redirect URI at the code host holds it, so it is
 * chosen before that replica listens, and chosen again if another program was given it first.
 */
function startReplicas(stores: [StateStore, StateStore]) {
  return onFreePort((port) => startReplicasOn(port, stores));
}

async function startReplicasOn(port: number, stores: [StateStore, StateStore]) {
  const [app] = sandbox.applications;
  const replicas: McpHttpServer[] = [];
  const vaults: TokenVault[] = [];
  const codeHosts: CodeHostOAuth[] = [];
  const refreshes: string[] = [];
  const publicUrl = `http://127.0.0.1:${port}`;
  // Each replica's own client of the code host, counting the refreshes it sends.
  const countingFetch =
    (replica: string): typeof fetch =>
    async (url, init) => {
      const body = init?.body?.toString() ?? '';
      if (String(url).endsWith('/oauth/token') && body.includes('grant_type=refresh_token')) refreshes.push(replica);
      return fetch(url, init);
    };
  for (const [index, listenOn] of [port, 0].entries()) {
    const name = `r${index + 1}`;
    const store = stores[index];
    const oauth = new CodeHostOAuth(
      {
        url: sandbox.url,
        clientId: app.uid,
        clientSecret: app.secret,
        redirectUri: `${publicUrl}/oauth/callback`,
        scopes: ['api'],
      },
      { fetch: countingFetch(name), now: () => clock.now() },
    );
    const vault = new TokenVault({
      store,
      secret: SECRET,
      oauth,
      now: () => clock.now(),
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.min(ms, 20))),
    });
    vaults.push(vault);
    codeHosts.push(oauth);
    const parts = createMcpSignInParts({
      store,
      secret: SECRET,
      publicUrl: () => publicUrl,
      mcpPath: '/mcp',
      codeHost: oauth,
      vault,
      personOf: personKey,
      clients: {},
      address: () => '127.0.0.1',
      log: { error() {}, warn() {}, info() {}, debug() {} },
    });
    replicas.push(
      await startMcpHttpServer({
        host: '127.0.0.1',
        port: listenOn,
        allowedOrigins: [],
        allowedHosts: [new URL(publicUrl).host],
        replicaId: name,
        signIn: mcpSignIn(parts, () => true),
        createSessionServer: ({ person }) =>
          createMcpServer({
            ...testServerOptions(personTransport(service, vault, person!)),
            tools: ['get_current_user'],
          }),
      }).catch(async (error: unknown) => {
        // None left listening: a start on a new port begins again (the stores are the caller's).
        for (const replica of replicas) await replica.close();
        throw error;
      }),
    );
  }
  return {
    replicas,
    vaults,
    codeHosts,
    refreshes,
    async close() {
      for (const replica of replicas) await replica.close();
      for (const store of new Set(stores)) await store.close();
    },
  };
}

function textOf(result: unknown): string {
  return ((result as CallToolResult).content[0] as { text: string }).text;
}

describe.each([
  [
    'one store in memory',
    async (): Promise<[StateStore, StateStore]> => {
      const store = new MemoryStore({ now: () => clock.now() });
      return [store, store];
    },
  ],
  [
    'Redis',
    async (): Promise<[StateStore, StateStore]> => [await RedisStore.open(redis.url), await RedisStore.open(redis.url)],
  ],
])('two replicas sharing %s', (_kind, openStores) => {
  let set: Awaited<ReturnType<typeof startReplicas>>;
  beforeAll(async () => {
    set = await startReplicas(await openStores());
  }, 60_000);
  afterAll(() => set?.close());

  it("take each other's tokens, and refresh an expired code host token once when hit at the same time", async () => {
    const host = new MemoryOAuthProvider('Replicated host');
    const { client: first } = await signInHost(set.replicas[0].url, host, (url) =>
      signInAsPerson(new OAuthBrowser(), url, host.redirect, { username: 'erin' }),
    );
    const { client: second } = await connectWith(set.replicas[1].url, host);
    expect(textOf(await second.callTool({ name: 'get_current_user', arguments: {} }))).toContain('erin');
    expect(set.refreshes).toEqual([]);

    // Past the code host token's two hours (forgeops's own tokens are checked against the real clock: still good).
    clock.advance(2 * 3600_000 + 60_000);
    const [a, b] = await Promise.all([connectWith(set.replicas[0].url, host), connectWith(set.replicas[1].url, host)]);
    const answers = await Promise.all([
      a.client.callTool({ name: 'get_current_user', arguments: {} }),
      b.client.callTool({ name: 'get_current_user', arguments: {} }),
    ]);
    expect(answers.map(textOf).every((text) => text.includes('erin'))).toBe(true);
    // One refresh at the code host for both replicas: the second used the pair the first stored.
    expect(set.refreshes).toHaveLength(1);
    await Promise.all([first.close(), second.close(), a.client.close(), b.client.close()]);
  }, 60_000);

  it('a grant revoked at the code host makes the host sign in again (401), on either replica', async () => {
    const host = new MemoryOAuthProvider('Revoked host');
    const { client } = await signInHost(set.replicas[0].url, host, (url) =>
      signInAsPerson(new OAuthBrowser(), url, host.redirect, { username: 'carol' }),
    );
    expect(textOf(await client.callTool({ name: 'get_current_user', arguments: {} }))).toContain('carol');
    // The person (or an administrator) revokes forgeops's access at the code host.
    const carol = (
      (await service.request({ method: 'GET', path: '/users', query: { username: 'carol' }, idempotent: true }))
        .data as Array<{ id: number }>
    )[0];
    const token = await set.vaults[1].accessToken(personKey(carol));
    await set.codeHosts[1].revoke(token!);
    const refused = (await client.callTool({ name: 'get_current_user', arguments: {} })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('sign in again');
    // The other replica refuses the host's token too (401), and the SDK asks the person to sign in again.
    const other = await listWith(set.replicas[1].url, host.tokens()!.access_token);
    expect(other.status).toBe(401);
    expect(other.challenge).toContain('error="invalid_token"');
    host.authorizationUrl = undefined;
    const again = await connectWith(set.replicas[0].url, host).then(
      () => 'connected',
      (error: Error) => error.constructor.name,
    );
    expect(again).toBe('UnauthorizedError');
    expect(host.authorizationUrl).toBeDefined();
    await client.close().catch(() => undefined);
  }, 60_000);

  it("sign-out (revoking the host's token) ends the sign-in at forgeops and at the code host, on every replica", async () => {
    const host = new MemoryOAuthProvider('Signing-out host');
    const { client } = await signInHost(set.replicas[0].url, host, (url) =>
      signInAsPerson(new OAuthBrowser(), url, host.redirect, { username: 'dave' }),
    );
    const dave = (
      (await service.request({ method: 'GET', path: '/users', query: { username: 'dave' }, idempotent: true }))
        .data as Array<{ id: number }>
    )[0];
    const codeHostToken = (await set.vaults[0].accessToken(personKey(dave)))!;
    const asDave = () =>
      fetch(`${sandbox.url}/api/v4/user`, { headers: { authorization: `Bearer ${codeHostToken}` } }).then(
        (r) => r.status,
      );
    expect(await asDave()).toBe(200);
    const revoked = await fetch(`${set.replicas[1].url.replace(/\/mcp$/, '')}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        token: host.tokens()!.refresh_token!,
        client_id: (host.clientInformation() as { client_id: string }).client_id,
      }),
    });
    expect(revoked.status).toBe(200);
    // The code host's token no longer works there, neither replica holds it, and forgeops's token is refused.
    expect(await asDave()).toBe(401);
    expect(await set.vaults[0].accessToken(personKey(dave))).toBeUndefined();
    expect((await listWith(set.replicas[0].url, host.tokens()!.access_token)).status).toBe(401);
    await client.close().catch(() => undefined);
  }, 60_000);
});
