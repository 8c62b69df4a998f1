// Whether the service takes a client's own X-Codehost-Token (GET /user), remembered briefly: both MCP revisions ask it
// before a token may hold anything shared (a session slot and a caller's own share, a waiting question).
import { createHash } from 'node:crypto';
import type { ApiTransport } from '../http/types.js';

/** A token the service accepted is not checked again for this long; tokens remembered at most. */
const TOKEN_CHECK_TTL_MS = 60_000;
const MAX_ACCEPTED_TOKENS = 1000;
const TOKEN_CHECK_TIMEOUT_MS = 5_000;

/** Whether the service takes a token: it does, it says no (401), or it could not be asked (why, in words). */
type TokenCheck =
  | { accepted: true }
  | { accepted: false; refused: true }
  | { accepted: false; refused: false; why: string };

/** The service's failure to answer GET /user in a few words (its status or the kind of failure), never its token. */
function checkFailure(error: unknown): string {
  const { status, kind } = error as { status?: number; kind?: string };
  if (kind === 'http' && typeof status === 'number') return `GET /user answered ${status}`;
  if (kind === 'timeout') return `GET /user got no answer within ${TOKEN_CHECK_TIMEOUT_MS / 1000} s`;
  return 'GET /user could not reach the service';
}

/** What a token is known by in memory: never the token itself. */
function tokenKey(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export interface ServiceTokenChecker {
  check(token: string): Promise<TokenCheck>;
}

/**
 * Asks the service about a token once a minute at most while it keeps saying yes. Only a yes is remembered: a token
 * the service refused, or could not be asked about, is asked about again next time (the service decides, not us).
 */
export function serviceTokenChecker(client: ApiTransport, now: () => number = Date.now): ServiceTokenChecker {
  const acceptedUntil = new Map<string, number>();
  return {
    async check(token) {
      const key = tokenKey(token);
      if ((acceptedUntil.get(key) ?? 0) > now()) return { accepted: true };
      try {
        await client.request({
          method: 'GET',
          path: '/user',
          token,
          idempotent: true,
          timeoutMs: TOKEN_CHECK_TIMEOUT_MS,
        });
      } catch (error) {
        if ((error as { status?: number }).status === 401) return { accepted: false, refused: true };
        return { accepted: false, refused: false, why: checkFailure(error) };
      }
      acceptedUntil.delete(key);
      if (acceptedUntil.size >= MAX_ACCEPTED_TOKENS) acceptedUntil.delete(acceptedUntil.keys().next().value!);
      acceptedUntil.set(key, now() + TOKEN_CHECK_TTL_MS);
      return { accepted: true };
    },
  };
}
