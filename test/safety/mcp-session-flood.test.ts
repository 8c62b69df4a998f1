// A flood of initialize requests cannot take `serve` down: sessions are capped, half-open ones expire and make room, live ones keep working.
import { describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/mcp.js';
import { ReadinessProbe } from '../../src/health.js';
import { captureLog, connectClient, eventually, rawInitialize, rawRequest, rawSessionPost, startHttp } from './mcp-harness.js';

const env = useSandbox();
const CAP = 5;
const FLOOD = 50;

async function currentUser(mcp: Awaited<ReturnType<typeof connectClient>>['mcp']): Promise<string> {
  const me = await mcp.callTool({ name: 'get_current_user', arguments: {} });
  expect(me.isError).toBeFalsy();
  return (me.structuredContent as { username: string }).username;
}

describe('session flood', () => {
  it('keeps at most the cap of sessions under a flood of half-open ones, evicting the oldest, and a real client still works', async () => {
    const { lines, log } = captureLog();
    const server = await startHttp(env.client, { maxSessions: CAP, handshakeMs: 60_000, log });
    const before = await connectClient(server.url);
    const statuses: number[] = [];
    for (let i = 0; i < FLOOD; i++) {
      statuses.push((await rawInitialize(server.url)).status);
      expect(server.sessionCount()).toBeLessThanOrEqual(CAP);
    }
    // Each new initialize took the slot of the oldest one that never came back; nobody was locked out.
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(server.sessionCount()).toBe(CAP);
    expect(await currentUser(before.mcp)).toMatch(/\w+/);
    const after = await connectClient(server.url);
    expect(await currentUser(after.mcp)).toMatch(/\w+/);
    // Fifty evictions, one log line about them; the two real sessions are logged as opened.
    expect(lines.filter((l) => l.includes('session cap'))).toHaveLength(1);
    expect(lines.filter((l) => l.includes('opened'))).toHaveLength(2);
    expect(lines).toHaveLength(3);
    await before.mcp.close();
    await after.mcp.close();
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
    const server = await startHttp(env.client, { maxSessions: CAP, handshakeMs: 100 });
    const live = await connectClient(server.url);
    for (let i = 0; i < CAP - 1; i++) expect((await rawInitialize(server.url)).status).toBe(200);
    expect(server.sessionCount()).toBe(CAP);
    expect(await eventually(() => server.sessionCount() === 1)).toBe(true);
    expect(await currentUser(live.mcp)).toMatch(/\w+/);
    await live.mcp.close();
    await server.close();
  });
});

describe('/readyz', () => {
  it('answers a balancer without the MCP token: 200 while every check passes, 503 with the reasons once one fails or it drains', async () => {
    let serviceUp = true;
    const readiness = new ReadinessProbe([
      { name: 'service', check: async () => (serviceUp ? undefined : 'http://code.example does not answer: connect ECONNREFUSED') },
      { name: 'state', check: async () => undefined },
    ], () => now);
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
    expect(JSON.parse(down.body)).toEqual({ ready: false, checks: { service: 'http://code.example does not answer: connect ECONNREFUSED', state: 'ok' } });
    readiness.drain();
    expect(JSON.parse((await rawRequest(readyz, 'GET', {})).body)).toMatchObject({ ready: false, checks: { drain: expect.stringMatching(/shutting down/) } });
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
