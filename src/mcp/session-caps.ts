// Who is calling the MCP endpoint (the peer's address, or the client's as a trusted proxy forwarded it), and how many
// sessions each caller may hold, so that one caller cannot fill the table and keep everyone else out.
import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';
import { MAX_SESSIONS_VARIABLE } from './limits.js';

export const MAX_SESSIONS_PER_CALLER_VARIABLE = 'FORGEOPS_MAX_SESSIONS_PER_CALLER';
/** A caller may always hold this many sessions, however small the table (several clients on one machine share an address). */
const MIN_SESSIONS_PER_CALLER = 10;

/**
 * A caller's share of the session table unless configured: a quarter of it, at least 10 (and never more than the
 * table). With the default 1,000 sessions, one caller holds at most 250: four flooding machines are needed to fill it.
 */
export function defaultMaxSessionsPerCaller(maxSessions: number): number {
  return Math.min(maxSessions, Math.max(MIN_SESSIONS_PER_CALLER, Math.floor(maxSessions / 4)));
}

/** An address as one caller: an IPv4 client seen through an IPv6 socket (::ffff:10.0.0.1) is the same as 10.0.0.1. */
export function normaliseAddress(address: string): string {
  const lower = address.trim().toLowerCase();
  return lower.startsWith('::ffff:') && isIP(lower.slice(7)) === 4 ? lower.slice(7) : lower;
}

/** Addresses and CIDR ranges (10.0.0.0/8, fd00::/8) as written in FORGEOPS_TRUSTED_PROXIES; throws on anything else. */
export function trustedProxyList(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address, bits, extra] = entry.split('/');
    const family = isIP(normaliseAddress(address));
    if (!family || extra !== undefined || (bits !== undefined && !/^\d{1,3}$/.test(bits))) {
      throw new Error(`'${entry}' is not an IP address or a CIDR range such as 10.0.0.0/8`);
    }
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (bits === undefined) list.addAddress(normaliseAddress(address), type);
    else list.addSubnet(normaliseAddress(address), Number(bits), type);
  }
  return list;
}

function trusted(proxies: BlockList | undefined, address: string): boolean {
  const family = isIP(address);
  return family !== 0 && proxies !== undefined && proxies.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * The caller's address: the connection's own, unless it comes from a trusted proxy (a balancer in front), whose
 * X-Forwarded-For then names the client. That header is read from the right, as each proxy appends the address it saw:
 * the first hop that is not a trusted proxy is the client; what a client wrote further left is its own say and ignored.
 */
export function callerAddress(req: IncomingMessage, proxies?: BlockList): string {
  let address = normaliseAddress(req.socket.remoteAddress ?? 'unknown');
  if (!trusted(proxies, address)) return address;
  const header = req.headers['x-forwarded-for'];
  const hops = (Array.isArray(header) ? header.join(',') : header ?? '').split(',').map(normaliseAddress).filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    if (!isIP(hops[i])) break;
    address = hops[i];
    if (!trusted(proxies, address)) break;
  }
  return address;
}

/** What the table knows of one session, for choosing whose slot a newcomer takes. */
export interface HeldSession {
  caller: string;
  lastActive: number;
  /** Requests of the session being answered now: such a session is never closed to make room. */
  busy: number;
}

export interface SessionLimits {
  maxSessions: number;
  maxPerCaller: number;
  /** A session is not closed to make room before it has been idle this long (a client in its handshake is left alone). */
  handshakeMs: number;
}

/** Room for one more session: there is some, or close this one first, or refuse in these words. */
export type SlotDecision =
  | { kind: 'free' }
  | { kind: 'evict'; id: string; whose: 'own' | 'idlest' }
  | { kind: 'refuse'; status: number; message: string; retryAfterSeconds: number; logKind: string };

/** The session of `caller` (or anybody's, without one) idle longest with no request running. */
function idlest(sessions: ReadonlyMap<string, HeldSession>, caller?: string): [string, HeldSession] | undefined {
  let found: [string, HeldSession] | undefined;
  for (const entry of sessions) {
    const [, session] = entry;
    if (caller !== undefined && session.caller !== caller) continue;
    if (session.busy === 0 && (!found || session.lastActive < found[1].lastActive)) found = entry;
  }
  return found;
}

function sessionsOf(sessions: ReadonlyMap<string, HeldSession>, caller: string): number {
  let n = 0;
  for (const session of sessions.values()) if (session.caller === caller) n++;
  return n;
}

function secondsUntil(at: number, now: number): number {
  return Math.max(1, Math.ceil((at - now) / 1000));
}

/**
 * Whether `caller` may open one more session. A caller at its own cap gives up its own session idle longest (idle
 * past the handshake time, nothing running), or is refused with 429: it never takes anybody else's slot. Below its
 * cap, a full table closes the session idle longest of all, on the same terms, or refuses with 503 saying when a slot
 * can free up at the earliest.
 */
export function chooseSlot(sessions: ReadonlyMap<string, HeldSession>, caller: string, limits: SessionLimits, now: number): SlotDecision {
  // A share as large as the table is no share: the table's own rule answers.
  if (limits.maxPerCaller < limits.maxSessions && sessionsOf(sessions, caller) >= limits.maxPerCaller) {
    const own = idlest(sessions, caller);
    if (own && now - own[1].lastActive > limits.handshakeMs) return { kind: 'evict', id: own[0], whose: 'own' };
    const wait = secondsUntil((own?.[1].lastActive ?? now) + limits.handshakeMs, now);
    return {
      kind: 'refuse', status: 429, retryAfterSeconds: wait, logKind: 'caller cap',
      message: `Too many sessions: this client (${caller}) already has ${limits.maxPerCaller} sessions open, the most one caller may hold `
        + `(${MAX_SESSIONS_PER_CALLER_VARIABLE}); close one (DELETE) or retry in ${wait} s`,
    };
  }
  if (sessions.size < limits.maxSessions) return { kind: 'free' };
  const any = idlest(sessions);
  if (any && now - any[1].lastActive > limits.handshakeMs) return { kind: 'evict', id: any[0], whose: 'idlest' };
  const wait = secondsUntil((any?.[1].lastActive ?? now) + limits.handshakeMs, now);
  return {
    kind: 'refuse', status: 503, retryAfterSeconds: wait, logKind: 'session cap',
    message: `Server busy: all ${limits.maxSessions} sessions are in use (${MAX_SESSIONS_VARIABLE}); retry in ${wait} s`,
  };
}
