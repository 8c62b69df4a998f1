// The grants that lead to a token: authorization codes (single use, ten minutes, bound to the client, the redirect
// URI and the PKCE challenge) and device grants (RFC 8628: a device code polled by the client, a user code typed by
// a person). Each table is capped and forgets what expired, since a stranger can fill it.
import { createHash, randomInt } from 'node:crypto';
import { areaState } from '../../core/area.js';
import { randomSecret } from '../../core/credentials.js';
import type { TokenScope } from '../../core/scopes.js';
import type { Store } from '../../core/store.js';

/** The service's authorization codes live ten minutes. */
export const CODE_LIFETIME_S = 600;
/** How long a used code is remembered, so that a replay is recognised (and its tokens revoked). */
const USED_CODE_MEMORY_MS = 24 * 60 * 60 * 1000;
/** The device grant's codes live five minutes; the client polls at most every five seconds. */
export const DEVICE_CODE_LIFETIME_S = 300;
export const DEVICE_POLL_INTERVAL_S = 5;
const MAX_CODES = 10_000;
const MAX_DEVICE_GRANTS = 1_000;

export interface AuthorizationCode {
  code: string;
  application_id: number;
  user_id: number;
  redirect_uri: string;
  scopes: TokenScope[];
  code_challenge: string | null;
  /** Epoch ms on the sandbox's clock. */
  created_at: number;
  used_at: number | null;
}

export interface DeviceGrant {
  device_code: string;
  /** Eight characters a person can read out and type. */
  user_code: string;
  application_id: number;
  scopes: TokenScope[];
  created_at: number;
  /** Seconds; raised by 5 at each slow_down (RFC 8628 §3.5). */
  interval: number;
  last_polled_at: number | null;
  status: 'pending' | 'approved' | 'denied';
  user_id: number | null;
}

const codesOf = areaState('oauth_codes', () => new Map<string, AuthorizationCode>());
const devicesOf = areaState('oauth_device_grants', () => new Map<string, DeviceGrant>());

/** Drops the oldest entries of an insertion-ordered map down to `max` (the newest stay). */
function capMap<T>(map: Map<string, T>, max: number): void {
  for (const key of map.keys()) {
    if (map.size <= max) break;
    map.delete(key);
  }
}

export function issueCode(
  store: Store,
  grant: Omit<AuthorizationCode, 'code' | 'created_at' | 'used_at'>,
): AuthorizationCode {
  const codes = codesOf(store);
  const now = store.clock.now();
  for (const [key, record] of codes) {
    if (now - record.created_at > USED_CODE_MEMORY_MS) codes.delete(key);
  }
  const record: AuthorizationCode = { ...grant, code: randomSecret(), created_at: now, used_at: null };
  codes.set(record.code, record);
  capMap(codes, MAX_CODES);
  return record;
}

export function findCode(store: Store, code: string): AuthorizationCode | undefined {
  return codesOf(store).get(code);
}

export function codeExpired(store: Store, record: AuthorizationCode): boolean {
  return store.clock.now() >= record.created_at + CODE_LIFETIME_S * 1000;
}

/** The family name a code's tokens carry, so that a replay of the code finds them (credentials.ts). */
export function codeFamily(record: AuthorizationCode): string {
  return `code:${record.code}`;
}

const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

/** RFC 7636 §4.6 with S256: BASE64URL(SHA256(verifier)) equals the challenge; a malformed verifier never does. */
export function verifierMatches(verifier: string, challenge: string): boolean {
  if (!VERIFIER.test(verifier)) return false;
  return createHash('sha256').update(verifier).digest('base64url') === challenge;
}

/** A code_challenge as S256 makes it: 43 base64url characters. */
export function isS256Challenge(challenge: string): boolean {
  return /^[A-Za-z0-9\-_]{43}$/.test(challenge);
}

// No vowels that spell words, no 0/O or 1/I to confuse: what a person types from another screen.
const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ23456789';

function newUserCode(taken: (code: string) => boolean): string {
  for (;;) {
    const code = Array.from({ length: 8 }, () => USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)]).join('');
    if (!taken(code)) return code;
  }
}

/** A user code as a person may type it: any case, with spaces or a dash in the middle. */
export function normalizeUserCode(typed: string): string {
  return typed.toUpperCase().replace(/[\s-]/g, '');
}

export function deviceGrantExpired(store: Store, grant: DeviceGrant): boolean {
  return store.clock.now() >= grant.created_at + DEVICE_CODE_LIFETIME_S * 1000;
}

export function issueDeviceGrant(
  store: Store,
  grant: { application_id: number; scopes: readonly TokenScope[] },
): DeviceGrant {
  const grants = devicesOf(store);
  for (const [key, record] of grants) if (deviceGrantExpired(store, record)) grants.delete(key);
  const userCodes = new Set([...grants.values()].map((g) => g.user_code));
  const record: DeviceGrant = {
    device_code: randomSecret(),
    user_code: newUserCode((code) => userCodes.has(code)),
    application_id: grant.application_id,
    scopes: [...grant.scopes],
    created_at: store.clock.now(),
    interval: DEVICE_POLL_INTERVAL_S,
    last_polled_at: null,
    status: 'pending',
    user_id: null,
  };
  grants.set(record.device_code, record);
  capMap(grants, MAX_DEVICE_GRANTS);
  return record;
}

export function findDeviceGrant(store: Store, deviceCode: string): DeviceGrant | undefined {
  return devicesOf(store).get(deviceCode);
}

/** The pending, unexpired grant a person's typed user code names. */
export function pendingDeviceGrantByUserCode(store: Store, typed: string): DeviceGrant | undefined {
  const code = normalizeUserCode(typed);
  return [...devicesOf(store).values()].find(
    (g) => g.user_code === code && g.status === 'pending' && !deviceGrantExpired(store, g),
  );
}

export function forgetDeviceGrant(store: Store, grant: DeviceGrant): void {
  devicesOf(store).delete(grant.device_code);
}

/** Forgets the grants of a removed application or user. */
export function forgetGrantsWhere(
  store: Store,
  doomed: (grant: { application_id: number; user_id: number | null }) => boolean,
): void {
  for (const map of [codesOf(store), devicesOf(store)] as Array<Map<string, AuthorizationCode | DeviceGrant>>) {
    for (const [key, grant] of map) if (doomed(grant)) map.delete(key);
  }
}
