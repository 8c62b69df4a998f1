// Who may talk to /mcp at all: Host and Origin allow-lists against DNS rebinding, the bearer token, and the check of a
// session's own X-Codehost-Token with the service before it may count as a caller of its own.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { callerIdentity, type CallerIdentity, personIdentity } from '../session-caps.js';
import type { ServiceTokenChecker } from '../token-check.js';
import { Refusal } from './refusal.js';

/** What a signed-in request is: its person and the scopes of its sign-in. */
export interface SignedIn {
  person: string;
  scopes: readonly string[];
}

/** Header a client may send on initialize to act with its own service token in that session. */
export const SESSION_TOKEN_HEADER = 'x-codehost-token';

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** A browser origin that may talk to /mcp: a loopback page, or one listed in FORGEOPS_ALLOWED_ORIGINS. */
export function originAllowed(origin: string, allowedOrigins: readonly string[]): boolean {
  return loopbackOrigin(origin) || allowedOrigins.includes(origin);
}

function loopbackOrigin(origin: string): boolean {
  try {
    const { hostname, protocol } = new URL(origin);
    return (protocol === 'http:' || protocol === 'https:') && isLoopback(hostname);
  } catch {
    return false;
  }
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function hashToken(token: string | undefined): Buffer | undefined {
  return token ? createHash('sha256').update(token).digest() : undefined;
}

/** The person each request signed in as (OAuth mode), set by the bearer check before anything else reads it. */
const signedIn = new WeakMap<IncomingMessage, string>();

export function markSignedIn(req: IncomingMessage, person: string): void {
  signedIn.set(req, person);
}

/** The signed-in person (personKey) a request acts as, in OAuth mode. */
export function signedInPerson(req: IncomingMessage): string | undefined {
  return signedIn.get(req);
}

/** The session's own service token, if the request carries one; a signed-in request acts as its person only. */
export function sessionToken(req: IncomingMessage): string | undefined {
  if (signedIn.has(req)) return undefined;
  const value = req.headers[SESSION_TOKEN_HEADER];
  return typeof value === 'string' && value ? value : undefined;
}

/**
 * What a session is bound to: its signed-in person, else its own service token (or nothing). A later request of the
 * session must bring the same; kept as a hash.
 */
export function sessionBinding(req: IncomingMessage): Buffer | undefined {
  const person = signedIn.get(req);
  return person ? personBinding(person) : hashToken(sessionToken(req));
}

/** Bindings of the people seen lately: every request of a signed-in session hashes the same name. */
const personBindings = new Map<string, Buffer>();
const MAX_PERSON_BINDINGS = 10_000;

function personBinding(person: string): Buffer {
  let binding = personBindings.get(person);
  if (!binding) {
    binding = hashToken(`person:${person}`) as Buffer;
    if (personBindings.size >= MAX_PERSON_BINDINGS) personBindings.clear();
    personBindings.set(person, binding);
  }
  return binding;
}

/** Refuses to start where anyone who can reach the port could act with the service token (unless people sign in). */
export function assertGuarded(host: string, mcpToken: string | undefined, signIn = false): void {
  if (!isLoopback(host) && !mcpToken && !signIn) {
    throw new Error(
      `refusing to serve MCP on ${host} without FORGEOPS_MCP_TOKEN: anyone who can reach it could act with the service token. Set FORGEOPS_MCP_TOKEN, or bind to 127.0.0.1.`,
    );
  }
}

export interface GuardOptions {
  /** The address the server binds to: on loopback, the Host header must name this server. */
  host: string;
  /** The port it listens on, known once it listens (a port of 0 picks one). */
  port: () => number;
  allowedHosts?: readonly string[];
  allowedOrigins: readonly string[];
  mcpToken?: string;
}

/** A check of one /mcp request that throws a Refusal when the caller may not talk to it. */
export function requestGuard(options: GuardOptions): (req: IncomingMessage) => void {
  const loopbackOnly = isLoopback(options.host);
  /** DNS rebinding: a page on evil.example resolving to 127.0.0.1 still sends its own Host and Origin. */
  return (req) => {
    if (loopbackOnly) {
      const host = (req.headers.host ?? '').toLowerCase();
      const port = options.port();
      const allowedHosts = [
        `127.0.0.1:${port}`,
        `localhost:${port}`,
        `[::1]:${port}`,
        `${options.host}:${port}`,
        ...(options.allowedHosts ?? []),
      ];
      if (!allowedHosts.includes(host))
        throw new Refusal(403, -32000, `Forbidden: Host '${host}' is not this server`, 'host');
    }
    const origin = req.headers.origin;
    if (origin && !originAllowed(origin, options.allowedOrigins)) {
      throw new Refusal(
        403,
        -32000,
        `Forbidden: Origin '${origin}' is not allowed (FORGEOPS_ALLOWED_ORIGINS)`,
        'origin',
      );
    }
    if (options.mcpToken) {
      const auth = req.headers.authorization ?? '';
      const given = auth.startsWith('Bearer ') ? auth.slice('Bearer '.length).trim() : '';
      if (!given || !sameSecret(given, options.mcpToken)) {
        throw new Refusal(401, -32001, 'Unauthorized: send Authorization: Bearer <FORGEOPS_MCP_TOKEN>', 'bearer', {
          'www-authenticate': 'Bearer',
        });
      }
    }
  };
}

/**
 * Who a new session counts as: its own service token once the service says it is valid, else its address. A token
 * is checked before it may take a slot, so made-up tokens cannot each claim a share of their own; a token the
 * service refuses, or one it cannot be asked about, gets no session at all (fail closed).
 */
export async function identifyCaller(
  tokenChecker: ServiceTokenChecker | undefined,
  token: string | undefined,
  address: string,
  person?: string,
): Promise<CallerIdentity> {
  if (person) return personIdentity(address, person);
  if (!token || !tokenChecker) return callerIdentity(address);
  const checked = await tokenChecker.check(token);
  if (checked.accepted) return callerIdentity(address, token);
  if (checked.refused) {
    throw new Refusal(
      401,
      -32001,
      `Unauthorized: the service refuses the ${SESSION_TOKEN_HEADER} header this initialize carries (401); ` +
        'send a valid token of the service, or none to act with the configured one',
      'session token refused',
    );
  }
  throw new Refusal(
    503,
    -32000,
    `Service Unavailable: the ${SESSION_TOKEN_HEADER} header this initialize carries could not be checked with ` +
      `the service (${checked.why}); no session was opened; retry once the service answers`,
    'session token unchecked',
    { 'retry-after': '5' },
  );
}
