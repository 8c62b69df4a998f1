// The session table alone: the sweeper (half-open past the handshake time, idle past the idle time), a session bound
// to the address and token that opened it, busy counting, and room made for a newcomer by eviction or refused.
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SESSION_TOKEN_HEADER, hashToken } from '../../../../src/mcp/http/guard.js';
import type { RateLimitedLog } from '../../../../src/mcp/http/limited-log.js';
import { type Session, SessionTable, sessionLimits } from '../../../../src/mcp/http/sessions.js';
import { callerIdentity } from '../../../../src/mcp/session-caps.js';

const HANDSHAKE_MS = 1_000;
const IDLE_MS = 10_000;

function quietLog(): RateLimitedLog {
  return { note: vi.fn(), flush: vi.fn() };
}

function session(overrides: Partial<Session> = {}): Session {
  return {
    transport: { close: vi.fn(async () => undefined), handleRequest: vi.fn(async () => undefined) },
    address: '192.0.2.1',
    caller: '192.0.2.1',
    lastActive: Date.now(),
    established: true,
    busy: 0,
    ...overrides,
  };
}

function request(headers: Record<string, string>): IncomingMessage {
  return { headers } as unknown as IncomingMessage;
}

let table: SessionTable;
beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  table?.stopSweeping();
  vi.useRealTimers();
});

describe('SessionTable sweeper', () => {
  it('closes a session that sent nothing after initialize once the handshake time is over', async () => {
    table = new SessionTable(sessionLimits(10, HANDSHAKE_MS), IDLE_MS, quietLog());
    const halfOpen = session({ established: false });
    table.hold('half-open', halfOpen);
    table.hold('talking', session());
    await vi.advanceTimersByTimeAsync(HANDSHAKE_MS / 2);
    expect(table.size).toBe(2);
    await vi.advanceTimersByTimeAsync(HANDSHAKE_MS);
    expect(table.size).toBe(1);
    expect(halfOpen.transport.close).toHaveBeenCalled();
  });

  it('closes an established session only once idle past the idle time, and a request keeps it open', async () => {
    table = new SessionTable(sessionLimits(10, HANDSHAKE_MS), IDLE_MS, quietLog());
    const held = session();
    table.hold('s1', held);
    await vi.advanceTimersByTimeAsync(IDLE_MS - 1_000);
    table.touch({ id: 's1', session: held });
    await vi.advanceTimersByTimeAsync(IDLE_MS - 1_000);
    expect(table.size).toBe(1);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(table.size).toBe(0);
    expect(held.transport.close).toHaveBeenCalled();
  });
});

describe('SessionTable.find', () => {
  beforeEach(() => {
    table = new SessionTable(sessionLimits(10, HANDSHAKE_MS), IDLE_MS, quietLog());
    table.hold('plain', session());
    table.hold('tokened', session({ tokenHash: hashToken('tok-a') }));
  });

  it('finds nothing when the request names no session', () => {
    expect(table.find(request({}), '192.0.2.1')).toBeUndefined();
  });

  it('answers 404 for an unknown id and for a known one asked from another address', () => {
    expect(() => table.find(request({ 'mcp-session-id': 'made-up' }), '192.0.2.1')).toThrow(
      expect.objectContaining({ status: 404 }),
    );
    expect(() => table.find(request({ 'mcp-session-id': 'plain' }), '198.51.100.2')).toThrow(
      expect.objectContaining({ status: 404 }),
    );
  });

  it('answers 403 when the request carries another service token than the one the session was opened with', () => {
    const tokened = (token?: string) =>
      request({ 'mcp-session-id': 'tokened', ...(token ? { [SESSION_TOKEN_HEADER]: token } : {}) });
    expect(table.find(tokened('tok-a'), '192.0.2.1')?.id).toBe('tokened');
    expect(() => table.find(tokened('tok-b'), '192.0.2.1')).toThrow(expect.objectContaining({ status: 403 }));
    expect(() => table.find(tokened(), '192.0.2.1')).toThrow(/a different/);
    expect(() =>
      table.find(request({ 'mcp-session-id': 'plain', [SESSION_TOKEN_HEADER]: 'tok-a' }), '192.0.2.1'),
    ).toThrow(/opened with no/);
  });
});

describe('SessionTable.serve', () => {
  it('counts the session busy until its answer is closed, and establishes it', async () => {
    table = new SessionTable(sessionLimits(10, HANDSHAKE_MS), IDLE_MS, quietLog());
    const held = session({ established: false });
    table.hold('s1', held);
    const res = new EventEmitter() as unknown as ServerResponse;
    await table.serve({ id: 's1', session: held }, request({}), res, { jsonrpc: '2.0' });
    expect(held.busy).toBe(1);
    expect(held.established).toBe(true);
    expect(held.transport.handleRequest).toHaveBeenCalledWith(expect.anything(), res, { jsonrpc: '2.0' });
    res.emit('close');
    expect(held.busy).toBe(0);
  });
});

describe('SessionTable.reserveSlot', () => {
  const newcomer = callerIdentity('203.0.113.9');

  it('closes the session idle longest past the handshake time when the table is full', () => {
    table = new SessionTable(sessionLimits(2, HANDSHAKE_MS, 2), IDLE_MS, quietLog());
    const older = session({ address: '192.0.2.1', caller: '192.0.2.1', lastActive: Date.now() - 5_000 });
    table.hold('older', older);
    table.hold('newer', session({ address: '192.0.2.2', caller: '192.0.2.2', lastActive: Date.now() - 2_000 }));
    table.reserveSlot(newcomer);
    expect(older.transport.close).toHaveBeenCalled();
    expect(table.size).toBe(1);
  });

  it('refuses with 503 and Retry-After when every session is busy or within its handshake time', () => {
    table = new SessionTable(sessionLimits(2, HANDSHAKE_MS, 2), IDLE_MS, quietLog());
    table.hold('busy', session({ address: '192.0.2.1', caller: '192.0.2.1', lastActive: Date.now() - 5_000, busy: 1 }));
    table.hold('fresh', session({ address: '192.0.2.2', caller: '192.0.2.2' }));
    expect(() => table.reserveSlot(newcomer)).toThrow(
      expect.objectContaining({ status: 503, kind: 'session cap', headers: { 'retry-after': '1' } }),
    );
    expect(table.size).toBe(2);
  });
});
