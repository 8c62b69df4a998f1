// Who a caller is: the connection's address, or, from a trusted proxy, the client its X-Forwarded-For names (read from
// the right, so what a client wrote itself never counts); and which slot a newcomer may take.
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import {
  callerAddress,
  callerIdentity,
  chooseSlot,
  maxSessionsPerAddress,
  type HeldSession,
} from '../../../src/mcp/session-caps.js';
import { normaliseAddress, trustedProxyList } from '../../../src/http/addresses.js';

function request(remoteAddress: string, forwardedFor?: string): IncomingMessage {
  return {
    socket: { remoteAddress },
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  } as unknown as IncomingMessage;
}

describe('callerAddress', () => {
  const proxies = trustedProxyList(['127.0.0.1', '10.0.0.0/8', 'fd00::/8']);

  it("is the connection's address when no proxy is trusted, whatever the header says", () => {
    expect(callerAddress(request('192.0.2.1', '203.0.113.7'))).toBe('192.0.2.1');
    expect(callerAddress(request('192.0.2.1', '203.0.113.7'), proxies)).toBe('192.0.2.1');
  });

  it('is the first address from the right that is no trusted proxy, through a chain of them', () => {
    expect(callerAddress(request('127.0.0.1', '203.0.113.7'), proxies)).toBe('203.0.113.7');
    expect(callerAddress(request('::ffff:127.0.0.1', '198.51.100.9, 203.0.113.7, 10.1.2.3'), proxies)).toBe(
      '203.0.113.7',
    );
    expect(callerAddress(request('fd00::1', '2001:db8::5'), proxies)).toBe('2001:db8::5');
  });

  it('stops at what is not an address, and is the proxy itself when nothing was forwarded', () => {
    expect(callerAddress(request('127.0.0.1', 'unknown, 10.0.0.7'), proxies)).toBe('10.0.0.7');
    expect(callerAddress(request('127.0.0.1'), proxies)).toBe('127.0.0.1');
  });

  it('reads an IPv4 client on an IPv6 socket as the same caller', () => {
    expect(normaliseAddress('::FFFF:192.0.2.1')).toBe('192.0.2.1');
    expect(normaliseAddress('2001:DB8::1')).toBe('2001:db8::1');
  });

  it('refuses a trusted proxy that is no address or range', () => {
    expect(() => trustedProxyList(['balancer.internal'])).toThrow(/not an IP address or a CIDR range/);
    expect(() => trustedProxyList(['10.0.0.0/x'])).toThrow(/not an IP address or a CIDR range/);
  });
});

describe('chooseSlot', () => {
  const limits = { maxSessions: 4, maxPerCaller: 2, maxPerAddress: 4, handshakeMs: 1000 };
  /** Sessions of callers known by their address (no token): each caller is its own address. */
  const held = (entries: Array<[string, string, number, number?]>) =>
    new Map<string, HeldSession>(
      entries.map(([id, caller, lastActive, busy = 0]) => [id, { caller, address: caller, lastActive, busy }]),
    );
  const who = (address: string) => callerIdentity(address);

  it("a caller at its share gives up its own idlest session, never another caller's idler one, and never a busy one", () => {
    const sessions = held([
      ['other', 'b', 0],
      ['a1', 'a', 500, 1],
      ['a2', 'a', 2000],
    ]);
    expect(chooseSlot(sessions, who('a'), limits, 5000)).toEqual({ kind: 'evict', id: 'a2', whose: 'own' });
    expect(chooseSlot(sessions, who('a'), limits, 2500)).toMatchObject({
      kind: 'refuse',
      status: 429,
      retryAfterSeconds: 1,
    });
  });

  it('below its share a caller may take the idlest slot of a full table, or is told 503', () => {
    const full = held([
      ['a1', 'a', 100],
      ['a2', 'a', 200],
      ['b1', 'b', 300],
      ['c1', 'c', 400],
    ]);
    expect(chooseSlot(full, who('d'), limits, 5000)).toEqual({ kind: 'evict', id: 'a1', whose: 'idlest' });
    expect(chooseSlot(full, who('d'), limits, 600)).toMatchObject({ kind: 'refuse', status: 503 });
    expect(chooseSlot(held([['a1', 'a', 100]]), who('a'), limits, 5000)).toEqual({ kind: 'free' });
  });

  it("token callers of one address have a share each, and all of them together the address's ceiling", () => {
    const table = { maxSessions: 8, maxPerCaller: 2, maxPerAddress: maxSessionsPerAddress(8, 2), handshakeMs: 1000 };
    expect(table.maxPerAddress).toBe(4);
    const [a, b, c] = ['token-a', 'token-b', 'token-c'].map((token) => callerIdentity('127.0.0.1', token));
    const sessions = new Map<string, HeldSession>([
      ['a1', { ...a, lastActive: 1800, busy: 0 }],
      ['a2', { ...a, lastActive: 2000, busy: 0 }],
    ]);
    // Another token from the same machine is another caller: a's full share does not stop it.
    expect(chooseSlot(sessions, a, table, 2500)).toMatchObject({ kind: 'refuse', status: 429 });
    expect(chooseSlot(sessions, b, table, 2500)).toEqual({ kind: 'free' });
    sessions.set('b1', { ...b, lastActive: 2100, busy: 0 }).set('b2', { ...b, lastActive: 2200, busy: 0 });
    // The machine holds half the table: a third token is refused, naming the address and never a token.
    const refused = chooseSlot(sessions, c, table, 2500);
    expect(refused).toMatchObject({ kind: 'refuse', status: 429, logKind: 'address cap' });
    expect(JSON.stringify(refused)).not.toContain('token-c');
    expect((refused as { message: string }).message).toContain('(127.0.0.1)');
    // …unless one of the machine's sessions is idle past the handshake; another machine still gets in at once.
    expect(chooseSlot(sessions, c, table, 3050)).toEqual({ kind: 'evict', id: 'a1', whose: 'address' });
    expect(chooseSlot(sessions, callerIdentity('127.0.0.2', 'token-c'), table, 2500)).toEqual({ kind: 'free' });
    expect(chooseSlot(sessions, callerIdentity('127.0.0.2'), table, 2500)).toEqual({ kind: 'free' });
  });
});
