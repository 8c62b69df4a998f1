// Streamable HTTP transport for the MCP server: wires the request guard, the body reader, the session table, the
// routes and the drain (each in its own file here) into one listening server.
import { createListener } from '../../http/listener.js';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { ReadinessProbe } from '../../health.js';
import type { Logger } from '../../log.js';
import { silentLogger } from '../../log.js';
import { EventBudget } from '../event-store.js';
import { DEFAULT_MAX_MESSAGE_BYTES, DEFAULT_MAX_SESSIONS } from '../../defaults.js';
import { trustedProxyList } from '../../http/addresses.js';
import { callerAddress } from '../session-caps.js';
import type { StatelessEndpoint } from '../stateless.js';
import type { ServiceTokenChecker } from '../token-check.js';
import { bodyReader } from './body.js';
import { createDrain } from './drain.js';
import { assertGuarded, identifyCaller, requestGuard, sessionToken } from './guard.js';
import { rateLimitedLog } from './limited-log.js';
import { mcpCors } from './cors.js';
import { answerFailure } from './refusal.js';
import { MCP_PATH, type Mounts, router, type SignInCheck, statelessLoader } from './routes.js';
import { openSession, type SessionOwner, SessionTable, sessionLimits } from './sessions.js';

/** Sessions whose client vanished without DELETE are closed after this long without a request. */
const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;
/** A real client follows initialize with notifications/initialized at once; a session silent this long is a probe or a flood. */
const DEFAULT_HANDSHAKE_MS = 30_000;
/** Each kind of refusal is logged once per interval (session openings and closings a few times); the rest are summed up. */
const LOG_INTERVAL_MS = 60_000;

export interface McpHttpOptions {
  host: string;
  port: number;
  /** Bearer token clients must present; required when not bound to loopback. */
  mcpToken?: string;
  /** Browser origins allowed besides loopback ones. */
  allowedOrigins: readonly string[];
  /** Host headers accepted on loopback besides this server's own address (a proxy on this machine in front). */
  allowedHosts?: readonly string[];
  /**
   * Makes the MCP server of one new session: `token` is the session's own service token, if it sent one; `person`
   * and `scopes` the signed-in person's (OAuth mode).
   */
  createSessionServer: (session: SessionOwner) => Server;
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
  mounts?: Mounts;
  /** What /readyz checks (the service, the shared state); without it /readyz says ready while the process runs. */
  readiness?: ReadinessProbe;
  /**
   * This replica's name (FORGEOPS_REPLICA_ID): session ids start with it and a dot, `r1.<uuid>`, so any balancer can
   * send a session's requests back to the replica that holds it (the SDK keeps sessions in process memory).
   */
  replicaId?: string;
  /**
   * The stateless 2026-07-28 revision beside the sessions (see ../stateless.ts), made on the first request that names
   * no session and is not an initialize: the 2025 path never loads it.
   */
  stateless?: () => Promise<StatelessEndpoint>;
  /**
   * OAuth mode (FORGEOPS_MCP_AUTH=oauth, see ../../identity/mcp-sign-in.ts): the authorization server's and the
   * resource metadata's paths are served beside /mcp, and every /mcp request must carry forgeops's bearer token.
   */
  signIn?: McpSignIn;
}

/** OAuth mode's parts, as the HTTP server uses them. */
export interface McpSignIn extends SignInCheck {
  /** The authorization server's and metadata paths ('/oauth/', '/.well-known/'). */
  mounts: Mounts;
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

export async function startMcpHttpServer(options: McpHttpOptions): Promise<McpHttpServer> {
  const log = options.log ?? silentLogger;
  assertGuarded(options.host, options.mcpToken, options.signIn !== undefined);
  const idleMs = options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
  const handshakeMs = options.handshakeMs ?? DEFAULT_HANDSHAKE_MS;
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const limits = sessionLimits(maxSessions, handshakeMs, options.maxSessionsPerCaller);
  if (!(maxSessions >= 1) || !(maxMessageBytes >= 1) || !(limits.maxPerCaller >= 1)) {
    throw new Error('maxSessions, maxSessionsPerCaller and maxMessageBytes must be at least 1');
  }
  const proxies = options.trustedProxies?.length ? trustedProxyList(options.trustedProxies) : undefined;
  const limitedLog = rateLimitedLog(log, LOG_INTERVAL_MS);
  const sessions = new SessionTable(limits, idleMs, limitedLog);
  const drain = createDrain();
  const stateless = statelessLoader(options.stateless);
  let port = options.port;
  const factory = {
    createSessionServer: options.createSessionServer,
    replicaId: options.replicaId,
    eventBudget: new EventBudget(options.eventBudgetBytes),
  };

  const handle = router({
    readiness: options.readiness,
    mounts: { ...options.signIn?.mounts, ...options.mounts },
    mcp: {
      signIn: options.signIn,
      cors: mcpCors(options.allowedOrigins),
      guard: requestGuard({
        host: options.host,
        port: () => port,
        allowedHosts: options.allowedHosts,
        allowedOrigins: options.allowedOrigins,
        mcpToken: options.mcpToken,
      }),
      address: (req) => callerAddress(req, proxies),
      sessions,
      readJson: bodyReader(maxMessageBytes).readJson,
      refuseIfDraining: drain.refuseIfDraining,
      async open(req, res, body, address, signedIn) {
        const who = await identifyCaller(options.tokenChecker, sessionToken(req), address, signedIn?.person);
        // The replica may have begun to shut down while the service was asked.
        drain.refuseIfDraining();
        await openSession(sessions, factory, who, req, res, body, signedIn?.scopes);
      },
      stateless: stateless.get,
    },
  });

  const http = createListener((req, res) => {
    handle(req, res).catch((error) => answerFailure(req, res, error, log, limitedLog));
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, options.host, () => resolve());
  });
  port = (http.address() as AddressInfo).port;
  const shownHost = options.host.includes(':') ? `[${options.host}]` : options.host;
  async function close(): Promise<void> {
    sessions.stopSweeping();
    await stateless.close();
    await sessions.closeAll();
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  }

  return {
    url: `http://${shownHost}:${port}${MCP_PATH}`,
    sessionCount: () => sessions.size,
    close,
    drain: (graceMs) => drain.drain(graceMs, close),
  };
}
