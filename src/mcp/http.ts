// Streamable HTTP transport for the MCP server: capped, expiring sessions bound to who opened them; Host/Origin and bearer checks.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomUUID, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../log.js';
import { silentLogger } from '../log.js';
import { DEFAULT_MAX_MESSAGE_BYTES, DEFAULT_MAX_SESSIONS } from './limits.js';
import { answerHealth, callsInFlight, type ReadinessProbe } from '../health.js';
import { answerMetrics } from '../metrics.js';
import { BoundedEventStore, EventBudget, SSE_RETRY_MS } from './event-store.js';
import type { StatelessEndpoint } from './stateless.js';
import {
  callerAddress,
  chooseSlot,
  defaultMaxSessionsPerCaller,
  MAX_SESSIONS_PER_CALLER_VARIABLE,
  maxSessionsPerAddress,
  trustedProxyList,
  type CallerIdentity,
  type SessionLimits,
} from './session-caps.js';
import type { ServiceTokenChecker } from './token-check.js';
import {
  assertGuarded,
  hashToken,
  identifyCaller,
  requestGuard,
  SESSION_TOKEN_HEADER,
  sessionToken,
} from './http/guard.js';
import { bodyReader } from './http/body.js';
import { rateLimitedLog } from './http/limited-log.js';
import { answerFailure, Refusal } from './http/refusal.js';

export { isLoopback, SESSION_TOKEN_HEADER } from './http/guard.js';
const MCP_PATH = '/mcp';
/** Sessions whose client vanished without DELETE are closed after this long without a request. */
const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;
/** A real client follows initialize with notifications/initialized at once; a session silent this long is a probe or a flood. */
const DEFAULT_HANDSHAKE_MS = 30_000;
/** Each kind of refusal is logged once per interval, session openings and closings a few times; the rest are summed up. */
const LOG_INTERVAL_MS = 60_000;
const SESSION_LOG_BURST = 10;

export interface McpHttpOptions {
  host: string;
  port: number;
  /** Bearer token clients must present; required when not bound to loopback. */
  mcpToken?: string;
  /** Browser origins allowed besides loopback ones. */
  allowedOrigins: readonly string[];
  /** Host headers accepted on loopback besides this server's own address (a proxy on this machine in front). */
  allowedHosts?: readonly string[];
  /** Makes the MCP server of one new session; `token` is the session's own service token, if it sent one. */
  createSessionServer: (session: { token?: string }) => Server;
  log?: Logger;
  /** Idle time after which a session is closed (default 30 minutes). */
  sessionIdleMs?: number;
  /** Time a session may stay silent after initialize before it is closed (default 30 s). */
  handshakeMs?: number;
  /** Live sessions at most (default 1,000, FORGEOPS_MAX_SESSIONS). */
  maxSessions?: number;
  /**
   * Live sessions one caller may hold (default a quarter of maxSessions, at least 10; FORGEOPS_MAX_SESSIONS_PER_CALLER).
   * All callers of one address together hold at most half the table (see maxSessionsPerAddress).
   */
  maxSessionsPerCaller?: number;
  /**
   * Asks the service whether an initialize's own X-Codehost-Token is valid before its session is made: a valid one
   * is a caller of its own (its own share), a refused one gets 401, and one that cannot be checked 503. Without it,
   * every session counts as its address, token or not.
   */
  tokenChecker?: ServiceTokenChecker;
  /**
   * Addresses (or CIDR ranges) of proxies in front, whose X-Forwarded-For names the client (FORGEOPS_TRUSTED_PROXIES).
   * Without them every client behind a balancer is the balancer's address: one caller for the caps and bindings.
   */
  trustedProxies?: readonly string[];
  /** Largest request body in bytes (default 16 MiB, FORGEOPS_MAX_MESSAGE_BYTES). */
  maxMessageBytes?: number;
  /** Bytes of resumable-stream events all sessions hold together (default 32 MiB). */
  eventBudgetBytes?: number;
  /**
   * Other endpoints by path, served before the MCP checks: Slack's /slack/events is reached through the operator's
   * public host name, so the Host/Origin/bearer rules of /mcp do not fit it; its own signature check guards it.
   * A path ending in '/' serves everything under it (the approval page's /approvals/<id>), with checks of its own.
   */
  mounts?: Readonly<Record<string, (req: IncomingMessage, res: ServerResponse) => void>>;
  /** What /readyz checks (the service, the shared state); without it /readyz says ready while the process runs. */
  readiness?: ReadinessProbe;
  /**
   * This replica's name (FORGEOPS_REPLICA_ID): session ids start with it and a dot, `r1.<uuid>`, so any balancer can
   * send a session's requests back to the replica that holds it (the SDK keeps sessions in process memory).
   */
  replicaId?: string;
  /**
   * The stateless 2026-07-28 revision beside the sessions (see stateless.ts), made on the first request that names
   * no session and is not an initialize: the 2025 path never loads it.
   */
  stateless?: () => Promise<StatelessEndpoint>;
}

export interface McpHttpServer {
  url: string;
  close(): Promise<void>;
  /**
   * Shutting down without dropping work: no new sessions (503, so the client opens one on another replica), the
   * requests in flight finish for up to `graceMs`, then every session is closed (its client reconnects elsewhere)
   * and the port too. Resolves once closed; says how many requests were still running when time ran out.
   */
  drain(graceMs: number): Promise<{ unfinished: number }>;
  sessionCount(): number;
}

interface Session {
  transport: StreamableHTTPServerTransport;
  /** The address that opened it (see callerAddress): its requests must come from there; it counts against its ceiling. */
  address: string;
  /** Whose share it takes: its service token's once the service accepted it, else its address's (see callerIdentity). */
  caller: string;
  /** SHA-256 of the service token the session was opened with: a later request must carry the same one (or none). */
  tokenHash?: Buffer;
  lastActive: number;
  /** False until the client sends anything after initialize; such half-open sessions expire after the handshake time. */
  established: boolean;
  /** Requests of this session being answered now: a session waiting on a long call is not idle, whatever lastActive says. */
  busy: number;
}

function findMount(mounts: McpHttpOptions['mounts'], path: string) {
  if (!mounts) return undefined;
  if (Object.hasOwn(mounts, path)) return mounts[path];
  const prefix = Object.keys(mounts).find((key) => key.endsWith('/') && path.startsWith(key));
  return prefix ? mounts[prefix] : undefined;
}

export async function startMcpHttpServer(options: McpHttpOptions): Promise<McpHttpServer> {
  const log = options.log ?? silentLogger;
  assertGuarded(options.host, options.mcpToken);
  const idleMs = options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
  const handshakeMs = options.handshakeMs ?? DEFAULT_HANDSHAKE_MS;
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const maxPerCaller = Math.min(maxSessions, options.maxSessionsPerCaller ?? defaultMaxSessionsPerCaller(maxSessions));
  const limits: SessionLimits = {
    maxSessions,
    handshakeMs,
    maxPerCaller,
    maxPerAddress: maxSessionsPerAddress(maxSessions, maxPerCaller),
  };
  if (!(maxSessions >= 1) || !(maxMessageBytes >= 1) || !(limits.maxPerCaller >= 1)) {
    throw new Error('maxSessions, maxSessionsPerCaller and maxMessageBytes must be at least 1');
  }
  const proxies = options.trustedProxies?.length ? trustedProxyList(options.trustedProxies) : undefined;
  /** Insertion order is opening order: the first half-open entry is the oldest. */
  const sessions = new Map<string, Session>();
  /** Whether the server is shutting down (see drain). */
  let draining = false;
  const limitedLog = rateLimitedLog(log, LOG_INTERVAL_MS);
  const { readJson } = bodyReader(maxMessageBytes);
  let port = options.port;
  const checkCaller = requestGuard({
    host: options.host,
    port: () => port,
    allowedHosts: options.allowedHosts,
    allowedOrigins: options.allowedOrigins,
    mcpToken: options.mcpToken,
  });
  let statelessLoading: Promise<StatelessEndpoint> | undefined;
  /** What all sessions' resumable streams hold together. */
  const eventBudget = new EventBudget(options.eventBudgetBytes);

  function closeSession(id: string): void {
    const session = sessions.get(id);
    if (!session) return;
    sessions.delete(id);
    session.transport.close().catch(() => undefined);
  }

  const sweeper = setInterval(
    () => {
      const now = Date.now();
      for (const [id, session] of sessions) {
        if (!session.established && now - session.lastActive > handshakeMs) {
          closeSession(id);
          limitedLog.note(
            'half-open',
            `mcp http: closed sessions that sent nothing after initialize within ${Math.round(handshakeMs / 1000)} s`,
          );
        } else if (now - session.lastActive > idleMs) {
          closeSession(id);
          limitedLog.note(
            'idle',
            `mcp session ${id.slice(0, 8)} closed after ${Math.round(idleMs / 1000)} s idle`,
            'info',
            SESSION_LOG_BURST,
          );
        }
      }
      limitedLog.flush();
    },
    Math.max(10, Math.min(idleMs / 2, handshakeMs / 2, 60_000)),
  );
  sweeper.unref();

  /**
   * The session a request names, checked against who opened it: from another address it is as unknown as a made-up
   * id (so a leaked id alone is worth nothing, and ids cannot be probed); from the same one, with another service
   * token, the refusal says why.
   */
  function findSession(req: IncomingMessage, address: string): { id: string; session: Session } | undefined {
    const id = req.headers['mcp-session-id'];
    if (id === undefined) return undefined;
    const found = typeof id === 'string' ? sessions.get(id) : undefined;
    const session = found?.address === address ? found : undefined;
    if (!session)
      throw new Refusal(404, -32001, 'Session not found: start a new session with initialize', 'unknown session');
    const given = hashToken(sessionToken(req));
    const same = session.tokenHash && given ? timingSafeEqual(session.tokenHash, given) : session.tokenHash === given;
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

  function touch(id: string, session: Session): void {
    session.lastActive = Date.now();
    if (session.established) return;
    session.established = true;
    limitedLog.note(
      'opened',
      `mcp session ${id.slice(0, 8)} opened${session.tokenHash ? ` with its own ${SESSION_TOKEN_HEADER}` : ''}`,
      'info',
      SESSION_LOG_BURST,
    );
  }

  /**
   * Makes room for a new session of `who` (see chooseSlot): a session is closed for it only once idle past the
   * handshake time with no request running, so a client between its initialize and its next request is never cut
   * off; a caller at its own cap only ever gives up its own, an address at its ceiling one of its own callers'.
   */
  function reserveSlot(who: CallerIdentity): void {
    const decision = chooseSlot(sessions, who, limits, Date.now());
    if (decision.kind === 'refuse') {
      throw new Refusal(decision.status, -32000, decision.message, decision.logKind, {
        'retry-after': String(decision.retryAfterSeconds),
      });
    }
    if (decision.kind !== 'evict') return;
    closeSession(decision.id);
    const idle = `idle longest (over ${Math.round(handshakeMs / 1000)} s)`;
    if (decision.whose === 'own') {
      limitedLog.note(
        'evicted own',
        `mcp http: a caller at its cap of ${limits.maxPerCaller} sessions (${MAX_SESSIONS_PER_CALLER_VARIABLE}) opened another: closed its own session ${idle}`,
      );
    } else if (decision.whose === 'address') {
      limitedLog.note(
        'evicted address',
        `mcp http: an address at its ceiling of ${limits.maxPerAddress} sessions opened another: closed its session ${idle}`,
      );
    } else {
      limitedLog.note('evicted', `mcp http: session cap ${maxSessions} reached: closed the sessions ${idle}`);
    }
  }

  async function openSession(req: IncomingMessage, res: ServerResponse, body: unknown, address: string): Promise<void> {
    const token = sessionToken(req);
    const who = await identifyCaller(options.tokenChecker, token, address);
    // The replica may have begun to shut down while the service was asked.
    if (draining) throw shuttingDown();
    // Nothing awaited from here to the table's entry: the decision holds for the slot it reserves.
    reserveSlot(who);
    const id = options.replicaId ? `${options.replicaId}.${randomUUID()}` : randomUUID();
    // An event store makes streams resumable: a client whose SSE stream dropped reconnects with Last-Event-ID.
    const eventStore = new BoundedEventStore({}, Date.now, eventBudget);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      eventStore,
      retryInterval: SSE_RETRY_MS,
    });
    // Held before connect, so that concurrent initializes count against the cap at once.
    sessions.set(id, {
      transport,
      address,
      caller: who.caller,
      tokenHash: hashToken(token),
      lastActive: Date.now(),
      established: false,
      busy: 0,
    });
    transport.onclose = () => {
      sessions.delete(id);
      eventStore.release();
    };
    try {
      await options.createSessionServer({ token }).connect(transport);
      await transport.handleRequest(req, res, body);
    } finally {
      // The SDK refused the initialize (bad params): nothing will ever use this session.
      if (!transport.sessionId) closeSession(id);
    }
  }

  function shuttingDown(): Refusal {
    return new Refusal(
      503,
      -32000,
      'Service Unavailable: this replica is shutting down; connect again to reach another',
      'draining',
      { 'retry-after': '1' },
    );
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    // A balancer's probes come without the MCP client's Host, Origin or bearer token.
    if (await answerHealth(req, res, options.readiness)) return;
    if (await answerMetrics(req, res)) return;
    const mounted = findMount(options.mounts, path);
    if (mounted) return mounted(req, res);
    if (path !== MCP_PATH) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`Not found. The MCP endpoint is ${MCP_PATH}\n`);
      return;
    }
    checkCaller(req);
    const address = callerAddress(req, proxies);
    const found = findSession(req, address);
    if (req.method === 'POST') {
      const body = await readJson(req);
      if (found) {
        touch(found.id, found.session);
        const { session } = found;
        session.busy += 1;
        res.once('close', () => {
          session.busy -= 1;
          session.lastActive = Date.now();
        });
        return session.transport.handleRequest(req, res, body);
      }
      if (draining) throw shuttingDown();
      if (isInitializeRequest(body)) return openSession(req, res, body, address);
      // No session and no initialize: a 2026-07-28 request (every request stands alone), or a 2025 client's mistake.
      const stateless =
        options.stateless &&
        (await (statelessLoading ??= options.stateless().catch((error: Error) => {
          statelessLoading = undefined;
          throw error;
        })));
      if (stateless && (await stateless.serveIfModern(req, res, body, address))) return;
      throw new Refusal(400, -32000, 'Bad Request: no session; the first request must be initialize', 'no session');
    }
    if (req.method === 'GET' || req.method === 'DELETE') {
      if (!found) throw new Refusal(400, -32001, 'Bad Request: mcp-session-id header is required', 'no session');
      touch(found.id, found.session);
      return found.session.transport.handleRequest(req, res);
    }
    res.writeHead(405, { allow: 'GET, POST, DELETE' }).end();
  }

  const http = createServer((req, res) => {
    handle(req, res).catch((error) => answerFailure(req, res, error, log, limitedLog));
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, options.host, () => resolve());
  });
  port = (http.address() as AddressInfo).port;
  const shownHost = options.host.includes(':') ? `[${options.host}]` : options.host;
  async function close(): Promise<void> {
    clearInterval(sweeper);
    await (await statelessLoading?.catch(() => undefined))?.close().catch(() => undefined);
    const open = [...sessions.values()];
    sessions.clear();
    for (const session of open) await session.transport.close().catch(() => undefined);
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  }

  return {
    url: `http://${shownHost}:${port}${MCP_PATH}`,
    sessionCount: () => sessions.size,
    close,
    async drain(graceMs) {
      // Still listening, so that a newcomer is told 503 (and its balancer or client goes elsewhere) rather than
      // finding the port shut; the sessions here go on until their calls are done or the grace is over.
      draining = true;
      const deadline = Date.now() + graceMs;
      while (callsInFlight() > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
      const unfinished = callsInFlight();
      await close();
      return { unfinished };
    },
  };
}
