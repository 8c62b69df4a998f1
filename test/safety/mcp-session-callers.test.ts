// Sessions per caller: one caller flooding `serve` with sessions (live, pinged ones too) holds at most its share of the
// table, never takes anybody else's slot, and another caller's fresh client gets in at once; a session's id is worth
// nothing from any other address (404, as for an id that never existed).
import { describe, expect, it } from 'vitest';
import { defaultMaxSessionsPerCaller } from '../../src/mcp/session-caps.js';
import { useSandbox } from '../helpers/mcp.js';
import { connectFrom, floodFrom, initializeFrom, requestFrom, sessionPostFrom } from '../helpers/from-address.js';
import { captureLog, PROTOCOL_VERSION, startHttp } from './mcp-harness.js';

const env = useSandbox();
const FLOODER = '127.0.0.1';
const whoAmI = { id: 7, method: 'tools/call', params: { name: 'get_current_user', arguments: {} } };

/** Pings every session, as a client that keeps them alive does: each answers. */
async function ping(url: string, address: string, ids: string[]) {
  for (const [i, id] of ids.entries())
    expect((await sessionPostFrom(address, url, id, { id: 100 + i, method: 'ping' })).status).toBe(200);
}

async function currentUser(address: string, url: string): Promise<string> {
  const { mcp } = await connectFrom(address, url);
  const me = await mcp.callTool({ name: 'get_current_user', arguments: {} });
  await mcp.close();
  expect(me.isError).toBeFalsy();
  return (me.structuredContent as { username: string }).username;
}

describe('sessions per caller', () => {
  it('a caller flooding with live sessions holds only its share, is told so with 429, and another caller gets in at once', async () => {
    const { lines, log } = captureLog();
    const server = await startHttp(env.client, { maxSessions: 12, maxSessionsPerCaller: 4, handshakeMs: 20_000, log });
    const { opened, refused } = await floodFrom(server.url, FLOODER, 30);
    await ping(server.url, FLOODER, opened);
    expect(opened).toHaveLength(4);
    expect(refused).toHaveLength(26);
    for (const answer of refused) {
      expect(answer.status).toBe(429);
      const wait = Number(answer.headers.get('retry-after'));
      expect(wait).toBeGreaterThan(0);
      expect(JSON.parse(answer.body).error.message).toBe(
        `Too many sessions: this client (${FLOODER}) already has 4 sessions open, the most one caller may hold (FORGEOPS_MAX_SESSIONS_PER_CALLER); close one (DELETE) or retry in ${wait} s`,
      );
    }
    // Two other callers' fresh clients get in at once, and the flood lost nothing it held.
    expect(await currentUser('127.0.0.2', server.url)).toMatch(/\w+/);
    expect(await currentUser('127.0.0.3', server.url)).toMatch(/\w+/);
    await ping(server.url, FLOODER, opened);
    expect(lines.filter((l) => l.includes('FORGEOPS_MAX_SESSIONS_PER_CALLER'))).toHaveLength(1);
    await server.close();
  });

  it('by default a caller may hold a quarter of the table, at least 10', async () => {
    expect(defaultMaxSessionsPerCaller(1000)).toBe(250);
    expect(defaultMaxSessionsPerCaller(40)).toBe(10);
    expect(defaultMaxSessionsPerCaller(5)).toBe(5);
    const server = await startHttp(env.client, { maxSessions: 40 });
    const { opened } = await floodFrom(server.url, FLOODER, 40);
    expect(opened).toHaveLength(10);
    expect(await currentUser('127.0.0.2', server.url)).toMatch(/\w+/);
    await server.close();
  });

  it("a caller at its cap gives up its own session idle longest, never another caller's (even an idler one)", async () => {
    const server = await startHttp(env.client, { maxSessions: 10, maxSessionsPerCaller: 2, handshakeMs: 300 });
    const other = await connectFrom('127.0.0.2', server.url);
    const {
      opened: [oldest, second],
    } = await floodFrom(server.url, FLOODER, 2);
    await new Promise((resolve) => setTimeout(resolve, 400));
    await ping(server.url, FLOODER, [second]);
    const {
      opened: [third],
    } = await floodFrom(server.url, FLOODER, 1);
    expect(third).toBeDefined();
    expect((await sessionPostFrom(FLOODER, server.url, oldest, { id: 1, method: 'ping' })).status).toBe(404);
    await ping(server.url, FLOODER, [second, third]);
    // The other caller's session was idle longest of all, and is still there.
    expect((await other.mcp.callTool({ name: 'get_current_user', arguments: {} })).isError).toBeFalsy();
    await other.mcp.close();
    await server.close();
  });

  it("behind a trusted proxy, each client its X-Forwarded-For names is a caller of its own; an untrusted peer's header counts for nothing", async () => {
    const server = await startHttp(env.client, {
      maxSessions: 20,
      maxSessionsPerCaller: 2,
      trustedProxies: ['127.0.0.1'],
    });
    const viaProxy = (client: string) => ({ 'x-forwarded-for': client });
    expect((await floodFrom(server.url, '127.0.0.1', 3, viaProxy('203.0.113.7'))).opened).toHaveLength(2);
    // A client that writes its own X-Forwarded-For before the proxy's entry is still the address the proxy saw.
    expect(
      (await floodFrom(server.url, '127.0.0.1', 1, viaProxy('198.51.100.1, 203.0.113.7'))).refused[0]?.status,
    ).toBe(429);
    expect((await floodFrom(server.url, '127.0.0.1', 2, viaProxy('203.0.113.8'))).opened).toHaveLength(2);
    // 127.0.0.2 is no proxy of ours: however it varies the header, it is one caller.
    const spoofed = await Promise.all(
      [1, 2, 3].map((n) => floodFrom(server.url, '127.0.0.2', 1, viaProxy(`192.0.2.${n}`))),
    );
    expect(spoofed.flatMap((s) => s.opened)).toHaveLength(2);
    await server.close();
  });
});

describe('a session bound to the peer that opened it', () => {
  it('answers 404, as for an unknown id, a request naming a no-token session from another address; the owner keeps it', async () => {
    const server = await startHttp(env.client);
    const owner = await connectFrom(FLOODER, server.url);
    const id = owner.transport.sessionId!;
    const stolen = await sessionPostFrom('127.0.0.2', server.url, id, whoAmI);
    const madeUp = await sessionPostFrom('127.0.0.2', server.url, `${id.slice(0, -4)}0000`, whoAmI);
    expect(stolen.status).toBe(404);
    expect(stolen.body).toBe(madeUp.body);
    const headers = { 'mcp-session-id': id, 'mcp-protocol-version': PROTOCOL_VERSION };
    expect((await requestFrom('127.0.0.2', server.url, 'GET', headers)).status).toBe(404);
    expect((await requestFrom('127.0.0.2', server.url, 'DELETE', headers)).status).toBe(404);
    expect(server.sessionCount()).toBe(1);
    expect((await owner.mcp.callTool({ name: 'get_current_user', arguments: {} })).isError).toBeFalsy();
    await owner.mcp.close();
    await server.close();
  });

  it('behind a trusted proxy, binds the session to the client the proxy named', async () => {
    const server = await startHttp(env.client, { trustedProxies: ['127.0.0.1'] });
    const opened = await initializeFrom('127.0.0.1', server.url, { 'x-forwarded-for': '203.0.113.7' });
    const id = opened.sessionId!;
    expect(
      (
        await sessionPostFrom(
          '127.0.0.1',
          server.url,
          id,
          { method: 'notifications/initialized' },
          { 'x-forwarded-for': '203.0.113.7' },
        )
      ).status,
    ).toBe(202);
    expect(
      (await sessionPostFrom('127.0.0.1', server.url, id, whoAmI, { 'x-forwarded-for': '203.0.113.9' })).status,
    ).toBe(404);
    expect(
      (await sessionPostFrom('127.0.0.1', server.url, id, whoAmI, { 'x-forwarded-for': '203.0.113.7' })).status,
    ).toBe(200);
    await server.close();
  });
});
