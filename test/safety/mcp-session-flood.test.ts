// A flood of initialize requests cannot take `serve` down: sessions are capped, half-open ones expire and make room, live ones keep working.
import { describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/mcp.js';
import { ReadinessProbe } from '../../src/health.js';
import {
  captureLog,
  connectClient,
  eventually,
  rawInitialize,
  rawRequest,
  rawSessionPost,
  startHttp,
} from './mcp-harness.js';

const env = useSandbox();
const CAP = 5;
const FLOOD = 50;

async function currentUser(mcp: Awaited<ReturnType<typeof connectClient>>['mcp']): Promise<string> {
  const me = await mcp.callTool({ name: 'get_current_user', arguments: {} });
  expect(me.isError).toBeFalsy();
  return (me.structuredContent as { username: string }).username;
}

describe('session flood', () => {
  it('never evicts a client in its handshake: a flood fills the cap and the rest get 503 saying when to retry', async () => {
    const { lines, log } = captureLog();
    const HANDSHAKE_MS = 20_000;
    const server = await startHttp(env.client, { maxSessions: CAP, handshakeMs: HANDSHAKE_MS, log });
    const before = await connectClient(server.url);
    const opened: string[] = [];
    const refused: Array<Awaited<ReturnType<typeof rawInitialize>>> = [];
    for (let i = 0; i < FLOOD; i++) {
      const answer = await rawInitialize(server.url);
      if (answer.sessionId) opened.push(answer.sessionId);
      else refused.push(answer);
      expect(server.sessionCount()).toBeLessThanOrEqual(CAP);
    }
    expect(opened).toHaveLength(CAP - 1);
    expect(refused).toHaveLength(FLOOD - (CAP - 1));
    for (const answer of refused) {
      expect(answer.status).toBe(503);
      // The oldest handshake window ends within HANDSHAKE_MS: that is when a slot can free up.
      const wait = Number(answer.headers['retry-after']);
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(HANDSHAKE_MS / 1000);
      expect(JSON.parse(answer.body).error.message).toContain(`retry in ${wait} s`);
    }
    // Every session that was let in is still there: each one finishes its handshake.
    for (const id of opened)
      expect((await rawSessionPost(server.url, id, { method: 'notifications/initialized' })).status).toBe(202);
    expect(await currentUser(before.mcp)).toMatch(/\w+/);
    expect(lines.filter((l) => l.includes('session cap'))).toHaveLength(0);
    await before.mcp.close();
    await server.close();
  });

  it('at the cap, closes the session idle longest once it is idle past the handshake time, never a fresh one', async () => {
    const { lines, log } = captureLog();
    const server = await startHttp(env.client, { maxSessions: 2, handshakeMs: 300, log });
    const idle = await connectClient(server.url);
    const active = await connectClient(server.url);
    await new Promise((resolve) => setTimeout(resolve, 400));
    // `active` just made a call, `idle` has said nothing for longer than the handshake time: it gives up its slot.
    expect(await currentUser(active.mcp)).toMatch(/\w+/);
    const newcomer = await connectClient(server.url);
    expect(await currentUser(newcomer.mcp)).toMatch(/\w+/);
    expect(await currentUser(active.mcp)).toMatch(/\w+/);
    await expect(idle.mcp.callTool({ name: 'get_current_user', arguments: {} })).rejects.toThrow(
      /Session not found|404/,
    );
    expect(lines.filter((l) => l.includes('session cap 2 reached'))).toHaveLength(1);
    await Promise.all([idle.mcp.close(), active.mcp.close(), newcomer.mcp.close()]);
    await server.close();
  });

  it('refuses new sessions with 503 and Retry-After once the cap is full of live ones; live sessions keep working', async () => {
    const { lines, log } = captureLog();
    const server = await startHttp(env.client, { maxSessions: CAP, log });
    const before = await connectClient(server.url);
    const refused: Array<Awaited<ReturnType<typeof rawInitialize>>> = [];
    for (let i = 0; i < FLOOD; i++) {
      const opened = await rawInitialize(server.url);
      if (opened.sessionId) {
        // A flood that completes the handshake holds its sessions for good.
        const ack = await rawSessionPost(server.url, opened.sessionId, { method: 'notifications/initialized' });
        expect(ack.status).toBe(202);
      } else refused.push(opened);
      expect(server.sessionCount()).toBeLessThanOrEqual(CAP);
    }
    expect(server.sessionCount()).toBe(CAP);
    expect(refused).toHaveLength(FLOOD - (CAP - 1));
    for (const answer of refused) {
      expect(answer.status).toBe(503);
      expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
      const body = JSON.parse(answer.body) as { jsonrpc: string; error: { message: string } };
      expect(body.jsonrpc).toBe('2.0');
      expect(body.error.message).toContain(`all ${CAP} sessions`);
      expect(body.error.message).toContain('FORGEOPS_MAX_SESSIONS');
    }
    expect(await currentUser(before.mcp)).toMatch(/\w+/);
    await expect(connectClient(server.url)).rejects.toThrow(/503|FORGEOPS_MAX_SESSIONS/);
    expect(lines.filter((l) => l.includes('FORGEOPS_MAX_SESSIONS'))).toHaveLength(1);
    await before.mcp.close();
    await server.close();
  });

  it('closes sessions that send nothing after initialize once the handshake time is over, and keeps the ones that did', async () => {
    // Long enough for the silent sessions to be all there at once even on a loaded machine (at 100 ms the first had
    // expired before the last was made); then bounded at 10 s for them to go.
    const server = await startHttp(env.client, { maxSessions: CAP, handshakeMs: 1_000 });
    const live = await connectClient(server.url);
    for (let i = 0; i < CAP - 1; i++) expect((await rawInitialize(server.url)).status).toBe(200);
    expect(server.sessionCount()).toBe(CAP);
    expect(await eventually(() => server.sessionCount() === 1, 500)).toBe(true);
    expect(await currentUser(live.mcp)).toMatch(/\w+/);
    await live.mcp.close();
    await server.close();
  });
});

describe('/readyz', () => {
  it('answers a balancer without the MCP token: 200 while every check passes, 503 with the reasons once one fails or it drains', async () => {
    let serviceUp = true;
    const readiness = new ReadinessProbe(
      [
        {
          name: 'service',
          check: async () => (serviceUp ? undefined : 'http://code.example does not answer: connect ECONNREFUSED'),
        },
        { name: 'state', check: async () => undefined },
      ],
      () => now,
    );
    let now = 0;
    const server = await startHttp(env.client, { readiness, mcpToken: 'a-token-the-probe-never-sends' });
    const readyz = server.url.replace(/\/mcp$/, '/readyz');
    const up = await rawRequest(readyz, 'GET', {});
    expect(up.status).toBe(200);
    expect(JSON.parse(up.body)).toEqual({ ready: true, checks: { service: 'ok', state: 'ok' } });
    serviceUp = false;
    now = 5000;
    const down = await rawRequest(readyz, 'GET', {});
    expect(down.status).toBe(503);
    expect(JSON.parse(down.body)).toEqual({
      ready: false,
      checks: { service: 'http://code.example does not answer: connect ECONNREFUSED', state: 'ok' },
    });
    readiness.drain();
    expect(JSON.parse((await rawRequest(readyz, 'GET', {})).body)).toMatchObject({
      ready: false,
      checks: { drain: expect.stringMatching(/shutting down/) },
    });
    await server.close();
  });
});

describe('/healthz', () => {
  it('says only that it is healthy, whatever the sessions', async () => {
    const server = await startHttp(env.client);
    const live = await connectClient(server.url);
    const health = await rawRequest(server.url.replace(/\/mcp$/, '/healthz'), 'GET', {});
    expect(health.status).toBe(200);
    expect(health.body).toBe('{"ok":true}');
    await live.mcp.close();
    await server.close();
  });
});
