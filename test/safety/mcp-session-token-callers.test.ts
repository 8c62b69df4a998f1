// Sessions per service token: clients of different people on one machine (one address) each have their own share,
// a token is checked with the service before it holds a slot (refused: 401, unchecked: 503, no session either way),
// and all the tokens of one address together hold at most half the table.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../../src/http/client.js';
import { SESSION_TOKEN_HEADER } from '../../src/mcp/http/guard.js';
import { serviceTokenChecker } from '../../src/mcp/token-check.js';
import { useSandbox } from '../helpers/mcp.js';
import { connectFrom, floodFrom, initializeFrom, type Answer } from '../helpers/from-address.js';
import { startHttp } from './mcp-harness.js';

const env = useSandbox();
const MACHINE = '127.0.0.1';
const OTHER_MACHINE = '127.0.0.2';
/** A table of 12 with shares of 3: one address holds at most 6 (half the table). */
const LIMITS = { maxSessions: 12, maxSessionsPerCaller: 3, handshakeMs: 20_000 };

const tokenHeader = (token: string) => ({ [SESSION_TOKEN_HEADER]: token });

/** The username a fresh SDK client from `address` acts as, with these headers. */
async function currentUser(address: string, url: string, headers: Record<string, string> = {}): Promise<string> {
  const { mcp } = await connectFrom(address, url, headers);
  const me = await mcp.callTool({ name: 'get_current_user', arguments: {} });
  await mcp.close();
  expect(me.isError).toBeFalsy();
  return (me.structuredContent as { username: string }).username;
}

async function usernameOf(token: string): Promise<string> {
  const user = await env.client.request({ method: 'GET', path: '/user', idempotent: true, token });
  return (user.data as { username: string }).username;
}

function errorMessage(answer: Answer): string {
  return (JSON.parse(answer.body) as { error: { message: string } }).error.message;
}

describe('sessions per service token', () => {
  it('a flooder with one token holds only its share; another token from the same address, and no token, still get in at once', async () => {
    const { tokens } = env.sandbox;
    const server = await startHttp(env.client, LIMITS);
    const { opened, refused } = await floodFrom(server.url, MACHINE, 10, tokenHeader(tokens.developer));
    expect(opened).toHaveLength(3);
    expect(refused).toHaveLength(7);
    for (const answer of refused) expect(answer.status).toBe(429);
    expect(await currentUser(MACHINE, server.url, tokenHeader(tokens.reporter))).toBe(
      await usernameOf(tokens.reporter),
    );
    expect(await currentUser(MACHINE, server.url)).toMatch(/\w+/);
    // The refusal names the caller by its address, never by its token.
    for (const answer of refused) {
      expect(errorMessage(answer)).toContain(
        `this client (its X-Codehost-Token, from ${MACHINE}) already has 3 sessions open`,
      );
      expect(answer.body).not.toContain(tokens.developer);
    }
    await server.close();
  });

  it('a made-up token gets 401 in words and no session, however often it is tried', async () => {
    const server = await startHttp(env.client, LIMITS);
    for (let i = 0; i < 5; i++) {
      const answer = await initializeFrom(MACHINE, server.url, tokenHeader(`made-up-token-${i}`));
      expect(answer.status).toBe(401);
      expect(answer.sessionId).toBeUndefined();
      expect(errorMessage(answer)).toBe(
        'Unauthorized: the service refuses the x-codehost-token header this initialize carries (401); ' +
          'send a valid token of the service, or none to act with the configured one',
      );
      expect(answer.body).not.toContain(`made-up-token-${i}`);
    }
    expect(server.sessionCount()).toBe(0);
    await server.close();
  });

  describe('the service cannot say whether a token is valid', () => {
    let failing: Server;
    let failingUrl: string;
    beforeAll(async () => {
      failing = createServer((_req, res) => res.writeHead(502, { 'content-type': 'text/plain' }).end('bad gateway'));
      await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
      failingUrl = `http://127.0.0.1:${(failing.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => failing.close(() => resolve())));

    it.each([
      ['answers 5xx', () => failingUrl, 'GET /user answered 502'],
      ['cannot be reached', () => 'http://127.0.0.1:1', 'GET /user could not reach the service'],
    ])('when it %s: 503 in words, no session, no slot taken', async (_case, url, why) => {
      const unreachable = new HttpClient({ baseUrl: url(), retry: { maxRetries: 0 } });
      const server = await startHttp(env.client, { ...LIMITS, tokenChecker: serviceTokenChecker(unreachable) });
      for (let i = 0; i < 5; i++) {
        const answer = await initializeFrom(MACHINE, server.url, tokenHeader(env.sandbox.tokens.developer));
        expect(answer.status).toBe(503);
        expect(answer.sessionId).toBeUndefined();
        expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(errorMessage(answer)).toContain(`could not be checked with the service (${why}); no session was opened`);
      }
      expect(server.sessionCount()).toBe(0);
      // Without a token of its own a client is not asked about one: it gets in.
      expect((await initializeFrom(MACHINE, server.url)).status).toBe(200);
      await server.close();
      await unreachable.close();
    });
  });

  it('all the tokens of one address together hold at most half the table; another address still gets in', async () => {
    const { tokens } = env.sandbox;
    const server = await startHttp(env.client, LIMITS);
    expect((await floodFrom(server.url, MACHINE, 3, tokenHeader(tokens.developer))).opened).toHaveLength(3);
    expect((await floodFrom(server.url, MACHINE, 3, tokenHeader(tokens.reporter))).opened).toHaveLength(3);
    const { opened, refused } = await floodFrom(server.url, MACHINE, 3, tokenHeader(tokens.guest));
    expect(opened).toHaveLength(0);
    for (const answer of refused) {
      expect(answer.status).toBe(429);
      expect(errorMessage(answer)).toContain(
        `Too many sessions from this address (${MACHINE}): its clients already have 6 sessions open`,
      );
    }
    expect(server.sessionCount()).toBe(6);
    expect(await currentUser(OTHER_MACHINE, server.url, tokenHeader(tokens.guest))).toBe(
      await usernameOf(tokens.guest),
    );
    await server.close();
  });
});
