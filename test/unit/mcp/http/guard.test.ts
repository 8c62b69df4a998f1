// The request guard alone: Host and Origin allow-lists on loopback, the bearer token, and a session's own service
// token checked with the service before it counts as a caller of its own.
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { assertGuarded, identifyCaller, isLoopback, requestGuard } from '../../../../src/mcp/http/guard.js';
import { Refusal } from '../../../../src/mcp/http/refusal.js';
import type { ServiceTokenChecker } from '../../../../src/mcp/token-check.js';

function request(headers: Record<string, string>): IncomingMessage {
  return { headers } as unknown as IncomingMessage;
}

/** The refusal a guard throws for these headers, or undefined when it lets the request through. */
function refusalOf(check: (req: IncomingMessage) => void, headers: Record<string, string>): Refusal | undefined {
  try {
    check(request(headers));
    return undefined;
  } catch (error) {
    if (error instanceof Refusal) return error;
    throw error;
  }
}

describe('requestGuard', () => {
  const onLoopback = requestGuard({
    host: '127.0.0.1',
    port: () => 4100,
    allowedOrigins: ['https://app.example'],
    allowedHosts: ['mcp.internal:8443'],
  });

  it("lets through this server's own Host names and the configured ones, and refuses any other with 403", () => {
    for (const host of ['127.0.0.1:4100', 'localhost:4100', '[::1]:4100', 'LOCALHOST:4100', 'mcp.internal:8443']) {
      expect(refusalOf(onLoopback, { host })).toBeUndefined();
    }
    const rebound = refusalOf(onLoopback, { host: 'evil.example:4100' });
    expect(rebound).toMatchObject({ status: 403, kind: 'host' });
    expect(rebound?.message).toContain("Host 'evil.example:4100' is not this server");
    expect(refusalOf(onLoopback, { host: '127.0.0.1:4101' })?.status).toBe(403);
    expect(refusalOf(onLoopback, {})?.status).toBe(403);
  });

  it('reads the port when asked, so a port picked at listen time counts', () => {
    let port = 0;
    const guard = requestGuard({ host: '127.0.0.1', port: () => port, allowedOrigins: [] });
    port = 5123;
    expect(refusalOf(guard, { host: '127.0.0.1:5123' })).toBeUndefined();
  });

  it('does not check Host off loopback, where the operator names the server', () => {
    const open = requestGuard({ host: '0.0.0.0', port: () => 80, allowedOrigins: [], mcpToken: 's3cret' });
    expect(refusalOf(open, { host: 'mcp.example.com', authorization: 'Bearer s3cret' })).toBeUndefined();
  });

  it('lets through loopback and configured origins, and refuses any other browser origin with 403', () => {
    const host = '127.0.0.1:4100';
    expect(refusalOf(onLoopback, { host, origin: 'http://localhost:3000' })).toBeUndefined();
    expect(refusalOf(onLoopback, { host, origin: 'https://app.example' })).toBeUndefined();
    expect(refusalOf(onLoopback, { host, origin: 'https://evil.example' })).toMatchObject({
      status: 403,
      kind: 'origin',
    });
    expect(refusalOf(onLoopback, { host, origin: 'not a url' })?.kind).toBe('origin');
  });

  it('asks for the bearer token when one is set: missing or wrong is 401 with a challenge', () => {
    const guard = requestGuard({ host: '127.0.0.1', port: () => 1, allowedOrigins: [], mcpToken: 's3cret' });
    const host = '127.0.0.1:1';
    expect(refusalOf(guard, { host, authorization: 'Bearer s3cret' })).toBeUndefined();
    for (const authorization of ['', 'Bearer wrong', 'Bearer s3cre', 'Basic s3cret']) {
      const refused = refusalOf(guard, { host, authorization });
      expect(refused).toMatchObject({ status: 401, code: -32001, kind: 'bearer' });
      expect(refused?.headers).toEqual({ 'www-authenticate': 'Bearer' });
    }
  });
});

describe('assertGuarded', () => {
  it('refuses to serve off loopback without a bearer token, and allows loopback without one', () => {
    expect(() => assertGuarded('0.0.0.0', undefined)).toThrow(/FORGEOPS_MCP_TOKEN/);
    // People signing in (OAuth mode) guard it instead of a shared bearer.
    expect(() => assertGuarded('0.0.0.0', undefined, true)).not.toThrow();
    expect(() => assertGuarded('0.0.0.0', 's3cret')).not.toThrow();
    expect(() => assertGuarded('127.0.0.1', undefined)).not.toThrow();
    expect(isLoopback('127.8.9.10')).toBe(true);
    expect(isLoopback('10.0.0.1')).toBe(false);
  });
});

describe('identifyCaller', () => {
  const checker = (answer: Awaited<ReturnType<ServiceTokenChecker['check']>>): ServiceTokenChecker => ({
    check: async () => answer,
  });

  it('counts a session as its address without a token, and as its token once the service accepts it', async () => {
    expect(await identifyCaller(checker({ accepted: true }), undefined, '192.0.2.1')).toMatchObject({
      caller: '192.0.2.1',
    });
    const own = await identifyCaller(checker({ accepted: true }), 'tok', '192.0.2.1');
    expect(own.caller).toMatch(/^token:/);
    expect(own.address).toBe('192.0.2.1');
  });

  it('counts a signed-in person as that person wherever they connect from, asking the service nothing', async () => {
    const never: ServiceTokenChecker = {
      check: async () => {
        throw new Error('a signed-in person is not checked again');
      },
    };
    const fromHome = await identifyCaller(never, undefined, '192.0.2.1', 'codehost-user:7');
    const fromWork = await identifyCaller(never, undefined, '198.51.100.9', 'codehost-user:7');
    expect(fromHome.caller).toBe('person:codehost-user:7');
    expect(fromWork.caller).toBe(fromHome.caller);
    expect(fromWork.address).toBe('198.51.100.9');
    expect(fromWork.label).not.toMatch(/token/i);
  });

  it('refuses a token the service refuses with 401, and one it could not check with 503', async () => {
    await expect(identifyCaller(checker({ accepted: false, refused: true }), 'tok', '192.0.2.1')).rejects.toMatchObject(
      { status: 401, kind: 'session token refused' },
    );
    await expect(
      identifyCaller(checker({ accepted: false, refused: false, why: 'GET /user answered 502' }), 'tok', '192.0.2.1'),
    ).rejects.toMatchObject({ status: 503, headers: { 'retry-after': '5' }, message: expect.stringContaining('502') });
  });
});
