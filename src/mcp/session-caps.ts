// Who is calling the MCP endpoint (its own service token, else its address: the peer's, or the client's as a trusted
// proxy forwarded it), and how many sessions each caller and each address may hold, so that one caller cannot fill
// the table and keep everyone else out.
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { type BlockList, isIP } from 'node:net';
import { normaliseAddress } from '../http/addresses.js';
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

/**
 * All callers of one address together (the users of one machine, each with a token of their own) hold at most this
 * many: half the table, never less than one caller's share. One machine with many valid tokens still leaves the other
 * half to the rest; a ceiling that is the whole table is none.
 */
export function maxSessionsPerAddress(maxSessions: number, maxPerCaller: number): number {
  return Math.min(maxSessions, Math.max(maxPerCaller, Math.floor(maxSessions / 2)));
}

/** Who one new session counts against: `caller` for its own share, `address` for its machine's ceiling. */
export interface CallerIdentity {
  /** The session's own service token (a hash of it) once the service accepted it, else the address. */
  caller: string;
  address: string;
  /** The caller in refusals, never a token. */
  label: string;
}

/**
 * A caller by its service token when it sent one the service accepted (so that clients of different people on one
 * machine, where all share an address, have a share each), else by its address.
 */
export function callerIdentity(address: string, verifiedToken?: string): CallerIdentity {
  if (!verifiedToken) return { caller: address, address, label: address };
  const hash = createHash('sha256').update(verifiedToken).digest('hex').slice(0, 32);
  return { caller: `token:${hash}`, address, label: `its X-Codehost-Token, from ${address}` };
}

/** A signed-in person (OAuth) as a caller: a share of their own wherever they connect from; their address still counts. */
export function personIdentity(address: string, person: string): CallerIdentity {
  return { caller: `person:${person}`, address, label: `signed-in ${person}, from ${address}` };
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
  const hops = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map(normaliseAddress)
    .filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    if (!isIP(hops[i])) break;
    address = hops[i];
    if (!trusted(proxies, address)) break;
  }
  return address;
}

/** What the table knows of one session, for choosing whose slot a newcomer takes. */
export interface HeldSession {
  /** Whose share it takes (see CallerIdentity). */
  caller: string;
  /** The address it was opened from: whose machine's ceiling it counts against. */
  address: string;
  lastActive: number;
  /** Requests of the session being answered now: such a session is never closed to make room. */
  busy: number;
}

export interface SessionLimits {
  maxSessions: number;
  maxPerCaller: number;
  /** Sessions of all callers of one address together (see maxSessionsPerAddress). */
  maxPerAddress: number;
  /** A session is not closed to make room before it has been idle this long (a client in its handshake is left alone). */
  handshakeMs: number;
}

/** Room for one more session: there is some, or close this one first, or refuse in these words. */
type SlotDecision =
  | { kind: 'free' }
  | { kind: 'evict'; id: string; whose: 'own' | 'address' | 'idlest' }
  | { kind: 'refuse'; status: number; message: string; retryAfterSeconds: number; logKind: string };

type Among = (session: HeldSession) => boolean;
const anybody: Among = () => true;

/** The session among `among` idle longest with no request running. */
function idlest(sessions: ReadonlyMap<string, HeldSession>, among: Among): [string, HeldSession] | undefined {
  let found: [string, HeldSession] | undefined;
  for (const entry of sessions) {
    const [, session] = entry;
    if (!among(session)) continue;
    if (session.busy === 0 && (!found || session.lastActive < found[1].lastActive)) found = entry;
  }
  return found;
}

function count(sessions: ReadonlyMap<string, HeldSession>, among: Among): number {
  let n = 0;
  for (const session of sessions.values()) if (among(session)) n++;
  return n;
}

function secondsUntil(at: number, now: number): number {
  return Math.max(1, Math.ceil((at - now) / 1000));
}

/** What a refusal says: its status, its kind in the log, and its words once the wait is known. */
interface Refusal {
  status: number;
  logKind: string;
  message: (seconds: number) => string;
}

/** Closes the session among `among` idle longest past the handshake time for the newcomer, else refuses saying when to retry. */
function evictOrRefuse(
  sessions: ReadonlyMap<string, HeldSession>,
  among: Among,
  whose: 'own' | 'address' | 'idlest',
  refusal: Refusal,
  limits: SessionLimits,
  now: number,
): SlotDecision {
  const found = idlest(sessions, among);
  if (found && now - found[1].lastActive > limits.handshakeMs) return { kind: 'evict', id: found[0], whose };
  const seconds = secondsUntil((found?.[1].lastActive ?? now) + limits.handshakeMs, now);
  const { status, logKind } = refusal;
  return { kind: 'refuse', status, retryAfterSeconds: seconds, logKind, message: refusal.message(seconds) };
}

/** Whether the sessions `among` fill their share. A share as large as the table is no share: the table's own rule answers. */
function shareFull(sessions: ReadonlyMap<string, HeldSession>, among: Among, share: number, limits: SessionLimits) {
  return share < limits.maxSessions && count(sessions, among) >= share;
}

const callerCapRefusal = (who: CallerIdentity, limits: SessionLimits): Refusal => ({
  status: 429,
  logKind: 'caller cap',
  message: (seconds) =>
    `Too many sessions: this client (${who.label}) already has ${limits.maxPerCaller} sessions open, the most one caller may hold ` +
    `(${MAX_SESSIONS_PER_CALLER_VARIABLE}); close one (DELETE) or retry in ${seconds} s`,
});

const addressCapRefusal = (who: CallerIdentity, limits: SessionLimits): Refusal => ({
  status: 429,
  logKind: 'address cap',
  message: (seconds) =>
    `Too many sessions from this address (${who.address}): its clients already have ${limits.maxPerAddress} sessions open, the most ` +
    `one address may hold (half of ${MAX_SESSIONS_VARIABLE}, whatever their tokens); close one (DELETE) or retry in ${seconds} s`,
});

const tableFullRefusal = (limits: SessionLimits): Refusal => ({
  status: 503,
  logKind: 'session cap',
  message: (seconds) =>
    `Server busy: all ${limits.maxSessions} sessions are in use (${MAX_SESSIONS_VARIABLE}); retry in ${seconds} s`,
});

/**
 * Whether `who` may open one more session. A caller at its own cap gives up its own session idle longest (idle past
 * the handshake time, nothing running), or is refused with 429: it never takes anybody else's slot. An address at its
 * ceiling gives up the session idle longest of its own callers on the same terms, or is refused with 429. Below both,
 * a full table closes the session idle longest of all, on the same terms, or refuses with 503 saying when a slot can
 * free up at the earliest.
 */
export function chooseSlot(
  sessions: ReadonlyMap<string, HeldSession>,
  who: CallerIdentity,
  limits: SessionLimits,
  now: number,
): SlotDecision {
  const own: Among = (session) => session.caller === who.caller;
  if (shareFull(sessions, own, limits.maxPerCaller, limits)) {
    return evictOrRefuse(sessions, own, 'own', callerCapRefusal(who, limits), limits, now);
  }
  const sameAddress: Among = (session) => session.address === who.address;
  if (shareFull(sessions, sameAddress, limits.maxPerAddress, limits)) {
    return evictOrRefuse(sessions, sameAddress, 'address', addressCapRefusal(who, limits), limits, now);
  }
  if (sessions.size < limits.maxSessions) return { kind: 'free' };
  return evictOrRefuse(sessions, anybody, 'idlest', tableFullRefusal(limits), limits, now);
}
