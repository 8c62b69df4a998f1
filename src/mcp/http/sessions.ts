// The table of live MCP sessions: each bound to the address and service token that opened it, capped per caller, per
// address and in all (see session-caps.ts), and swept of sessions half-open past the handshake time or idle too long.
import { randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { BoundedEventStore, type EventBudget, SSE_RETRY_MS } from '../event-store.js';
import {
  type CallerIdentity,
  chooseSlot,
  defaultMaxSessionsPerCaller,
  MAX_SESSIONS_PER_CALLER_VARIABLE,
  maxSessionsPerAddress,
  type SessionLimits,
} from '../session-caps.js';
import { SESSION_TOKEN_HEADER, sessionBinding, sessionToken, signedInPerson } from './guard.js';
import type { RateLimitedLog } from './limited-log.js';
import { Refusal } from './refusal.js';

/** Session openings and closings are logged this many times per interval; the rest are summed up. */
const SESSION_LOG_BURST = 10;
/** The sweeper looks at least this often, and never less often than once a minute. */
const MIN_SWEEP_MS = 10;
const MAX_SWEEP_MS = 60_000;

/** What the table needs of a session's transport. */
export interface SessionTransport {
  close(): Promise<void>;
  handleRequest(req: IncomingMessage, res: ServerResponse, body?: unknown): Promise<void>;
}

export interface Session {
  transport: SessionTransport;
  /** The address that opened it (see callerAddress): its requests must come from there; it counts against its ceiling. */
  address: string;
  /** Whose share it takes: its service token's once the service accepted it, else its address's (see callerIdentity). */
  caller: string;
  /**
   * SHA-256 of what the session was opened with (its signed-in person, else its own service token): a later request
   * must bring the same (or none).
   */
  tokenHash?: Buffer;
  lastActive: number;
  /** False until the client sends anything after initialize; such half-open sessions expire after the handshake time. */
  established: boolean;
  /** Requests of this session being answered now: a session waiting on a long call is not idle, whatever lastActive says. */
  busy: number;
  /** What its streams sent, for a client whose stream broke off (told which response each POST's stream goes to). */
  events?: Pick<BoundedEventStore, 'expectStream'>;
}

/** A session a request named, found and checked against who opened it. */
export interface FoundSession {
  id: string;
  session: Session;
}

/** The caps of the table from the configured numbers (a caller's share defaults to a quarter, see session-caps.ts). */
export function sessionLimits(maxSessions: number, handshakeMs: number, maxSessionsPerCaller?: number): SessionLimits {
  const maxPerCaller = Math.min(maxSessions, maxSessionsPerCaller ?? defaultMaxSessionsPerCaller(maxSessions));
  return { maxSessions, handshakeMs, maxPerCaller, maxPerAddress: maxSessionsPerAddress(maxSessions, maxPerCaller) };
}

export class SessionTable {
  /** Insertion order is opening order: the first half-open entry is the oldest. */
  private readonly sessions = new Map<string, Session>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly limits: SessionLimits,
    /** Idle time after which a session is closed. */
    private readonly idleMs: number,
    private readonly log: RateLimitedLog,
  ) {
    const every = Math.max(MIN_SWEEP_MS, Math.min(idleMs / 2, limits.handshakeMs / 2, MAX_SWEEP_MS));
    this.sweeper = setInterval(() => this.sweep(), every);
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Takes a new session into the table; it counts against the caps from now on. */
  hold(id: string, session: Session): void {
    this.sessions.set(id, session);
  }

  /** Drops a session its transport closed by itself. */
  forget(id: string): void {
    this.sessions.delete(id);
  }

  close(id: string): void {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    session.transport.close().catch(() => undefined);
  }

  /** Closes the sessions half-open past the handshake time, and those idle past the idle time. */
  private sweep(): void {
    const now = Date.now();
    const { handshakeMs } = this.limits;
    for (const [id, session] of this.sessions) {
      if (!session.established && now - session.lastActive > handshakeMs) {
        this.close(id);
        this.log.note(
          'half-open',
          `mcp http: closed sessions that sent nothing after initialize within ${Math.round(handshakeMs / 1000)} s`,
        );
      } else if (now - session.lastActive > this.idleMs) {
        this.close(id);
        this.log.note(
          'idle',
          `mcp session ${id.slice(0, 8)} closed after ${Math.round(this.idleMs / 1000)} s idle`,
          'info',
          SESSION_LOG_BURST,
        );
      }
    }
    this.log.flush();
  }

  /**
   * The session a request names, checked against who opened it: from another address it is as unknown as a made-up
   * id (so a leaked id alone is worth nothing, and ids cannot be probed); from the same one, with another service
   * token, the refusal says why.
   */
  find(req: IncomingMessage, address: string): FoundSession | undefined {
    const id = req.headers['mcp-session-id'];
    if (id === undefined) return undefined;
    const found = typeof id === 'string' ? this.sessions.get(id) : undefined;
    const session = found?.address === address ? found : undefined;
    if (!session)
      throw new Refusal(404, -32001, 'Session not found: start a new session with initialize', 'unknown session');
    const given = sessionBinding(req);
    const same = session.tokenHash && given ? timingSafeEqual(session.tokenHash, given) : session.tokenHash === given;
    if (!same && signedInPerson(req)) {
      throw new Refusal(403, -32001, 'Forbidden: this session belongs to another signed-in person', 'session person');
    }
    if (!same) {
      throw new Refusal(
        403,
        -32001,
        `Forbidden: this session was opened with ${session.tokenHash ? 'a different' : 'no'} ${SESSION_TOKEN_HEADER} header; ` +
          'send the same one on every request, or start a new session',
        'session token',
      );
    }
    return { id: id as string, session };
  }

  /** A request of the session came: it is active now, and established once it sends anything after initialize. */
  touch({ id, session }: FoundSession): void {
    session.lastActive = Date.now();
    if (session.established) return;
    session.established = true;
    this.log.note(
      'opened',
      `mcp session ${id.slice(0, 8)} opened${session.tokenHash ? ` with its own ${SESSION_TOKEN_HEADER}` : ''}`,
      'info',
      SESSION_LOG_BURST,
    );
  }

  /** Hands a POST to its session, counted busy until answered, so a long call keeps the session from being swept. */
  serve(found: FoundSession, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    this.touch(found);
    const { session } = found;
    session.busy += 1;
    res.once('close', () => {
      session.busy -= 1;
      session.lastActive = Date.now();
    });
    // The SDK opens the POST's stream before its first await: the store learns it is this response's.
    session.events?.expectStream(res);
    try {
      return session.transport.handleRequest(req, res, body);
    } finally {
      session.events?.expectStream(undefined);
    }
  }

  /**
   * Makes room for a new session of `who` (see chooseSlot): a session is closed for it only once idle past the
   * handshake time with no request running, so a client between its initialize and its next request is never cut
   * off; a caller at its own cap only ever gives up its own, an address at its ceiling one of its own callers'.
   */
  reserveSlot(who: CallerIdentity): void {
    const { limits } = this;
    const decision = chooseSlot(this.sessions, who, limits, Date.now());
    if (decision.kind === 'refuse') {
      throw new Refusal(decision.status, -32000, decision.message, decision.logKind, {
        'retry-after': String(decision.retryAfterSeconds),
      });
    }
    if (decision.kind !== 'evict') return;
    this.close(decision.id);
    const idle = `idle longest (over ${Math.round(limits.handshakeMs / 1000)} s)`;
    if (decision.whose === 'own') {
      this.log.note(
        'evicted own',
        `mcp http: a caller at its cap of ${limits.maxPerCaller} sessions (${MAX_SESSIONS_PER_CALLER_VARIABLE}) opened another: closed its own session ${idle}`,
      );
    } else if (decision.whose === 'address') {
      this.log.note(
        'evicted address',
        `mcp http: an address at its ceiling of ${limits.maxPerAddress} sessions opened another: closed its session ${idle}`,
      );
    } else {
      this.log.note('evicted', `mcp http: session cap ${limits.maxSessions} reached: closed the sessions ${idle}`);
    }
  }

  stopSweeping(): void {
    clearInterval(this.sweeper);
  }

  /** Closes every session (their clients reconnect, elsewhere when this replica goes away). */
  async closeAll(): Promise<void> {
    const open = [...this.sessions.values()];
    this.sessions.clear();
    for (const session of open) await session.transport.close().catch(() => undefined);
  }
}

/** Who opens a session: a service token of its own, or a signed-in person with the scopes of their sign-in. */
export interface SessionOwner {
  token?: string;
  person?: string;
  scopes?: readonly string[];
}

/** What a new session is made with. */
export interface SessionFactory {
  /**
   * Makes the MCP server of one new session; `token` is the session's own service token, if it sent one, `person` the
   * signed-in person (OAuth) and `scopes` what their sign-in allows.
   */
  createSessionServer: (session: SessionOwner) => Server;
  /** Session ids start with it and a dot, so a balancer can send a session's requests back to this replica. */
  replicaId?: string;
  /** What all sessions' resumable streams hold together. */
  eventBudget: EventBudget;
}

/** Opens a session of `who` for an initialize, in a slot reserved for it, and answers the initialize through it. */
export async function openSession(
  table: SessionTable,
  factory: SessionFactory,
  who: CallerIdentity,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  scopes?: readonly string[],
): Promise<void> {
  const token = sessionToken(req);
  const person = signedInPerson(req);
  // Nothing awaited from here to the table's entry: the decision holds for the slot it reserves.
  table.reserveSlot(who);
  const id = factory.replicaId ? `${factory.replicaId}.${randomUUID()}` : randomUUID();
  // An event store makes streams resumable: a client whose SSE stream dropped reconnects with Last-Event-ID.
  const eventStore = new BoundedEventStore({}, Date.now, factory.eventBudget);
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => id,
    eventStore,
    retryInterval: SSE_RETRY_MS,
  });
  // Held before connect, so that concurrent initializes count against the cap at once.
  table.hold(id, {
    transport,
    events: eventStore,
    address: who.address,
    caller: who.caller,
    tokenHash: sessionBinding(req),
    lastActive: Date.now(),
    established: false,
    busy: 0,
  });
  transport.onclose = () => {
    table.forget(id);
    eventStore.release();
  };
  try {
    await factory.createSessionServer({ token, person, scopes }).connect(transport);
    await transport.handleRequest(req, res, body);
  } finally {
    // The SDK refused the initialize (bad params): nothing will ever use this session.
    if (!transport.sessionId) table.close(id);
  }
}
