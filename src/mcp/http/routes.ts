// Which handler answers a request: probes (/healthz, /readyz) and /metrics first, then mounted endpoints (Slack's
// events, webhooks, the approval page), then /mcp by method, to a session, a new session or the stateless revision.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { answerHealth, type ReadinessProbe } from '../../health.js';
import { answerMetrics } from '../../metrics.js';
import type { StatelessEndpoint } from '../stateless.js';
import { Refusal } from './refusal.js';
import type { FoundSession, SessionTable } from './sessions.js';
import type { SignedIn } from './guard.js';

export const MCP_PATH = '/mcp';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
export type Mounts = Readonly<Record<string, Handler>>;

/** The handler mounted on a path: its exact entry, else an entry ending in '/' that the path starts with. */
export function findMount(mounts: Mounts | undefined, path: string): Handler | undefined {
  if (!mounts) return undefined;
  if (Object.hasOwn(mounts, path)) return mounts[path];
  const prefix = Object.keys(mounts).find((key) => key.endsWith('/') && path.startsWith(key));
  return prefix ? mounts[prefix] : undefined;
}

/** The stateless revision, loaded by the first request that needs it; a load that failed is tried again next time. */
export function statelessLoader(load: (() => Promise<StatelessEndpoint>) | undefined) {
  let loading: Promise<StatelessEndpoint> | undefined;
  return {
    async get(): Promise<StatelessEndpoint | undefined> {
      if (!load) return undefined;
      return (loading ??= load().catch((error: Error) => {
        loading = undefined;
        throw error;
      }));
    },
    /** Closes it if it was loaded. */
    async close(): Promise<void> {
      await (await loading?.catch(() => undefined))?.close().catch(() => undefined);
    },
  };
}

/** What /mcp is answered with: each part on its own (see guard.ts, body.ts, sessions.ts, drain.ts). */
export interface McpEndpoint {
  /** CORS for browser clients of allowed origins (see cors.ts); true when it answered (a preflight). */
  cors(req: IncomingMessage, res: ServerResponse): boolean;
  /** Host, Origin and bearer checks; throws a Refusal. */
  guard(req: IncomingMessage): void;
  /** Who the request comes from (see callerAddress). */
  address(req: IncomingMessage): string;
  sessions: Pick<SessionTable, 'find' | 'serve' | 'touch'>;
  readJson(req: IncomingMessage): Promise<unknown>;
  refuseIfDraining(): void;
  /** Opens a session for an initialize (of a signed-in person: `who`). */
  open(req: IncomingMessage, res: ServerResponse, body: unknown, address: string, who?: SignedIn): Promise<void>;
  /** The stateless revision, if served. */
  stateless(): Promise<StatelessEndpoint | undefined>;
  /** OAuth mode (see ../../identity/): who signed in, and whether their sign-in allows what a body calls. */
  signIn?: SignInCheck;
}

export interface SignInCheck {
  /** The request's person, marked on it (see markSignedIn); throws a Refusal 401 with WWW-Authenticate. */
  authenticate(req: IncomingMessage): Promise<SignedIn>;
  /** Throws a Refusal 403 insufficient_scope when the body calls what the sign-in does not allow. */
  checkScopes(body: unknown, who: SignedIn): void;
}

export interface Routes {
  readiness?: ReadinessProbe;
  mounts?: Mounts;
  mcp: McpEndpoint;
}

/** Answers one request; a Refusal thrown on the way is the caller's to answer (see answerFailure). */
export function router(routes: Routes): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const { mcp } = routes;

  async function post(
    req: IncomingMessage,
    res: ServerResponse,
    found: FoundSession | undefined,
    address: string,
    who: SignedIn | undefined,
  ) {
    const body = await mcp.readJson(req);
    // Before any session or revision sees it: a read-only sign-in runs reads only, whatever it connected with.
    if (who) mcp.signIn?.checkScopes(body, who);
    if (found) return mcp.sessions.serve(found, req, res, body);
    mcp.refuseIfDraining();
    if (isInitializeRequest(body)) return mcp.open(req, res, body, address, who);
    // No session and no initialize: a 2026-07-28 request (every request stands alone), or a 2025 client's mistake.
    const stateless = await mcp.stateless();
    if (stateless && (await stateless.serveIfModern(req, res, body, address, who))) return;
    throw new Refusal(400, -32000, 'Bad Request: no session; the first request must be initialize', 'no session');
  }

  return async (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    // A balancer's probes come without the MCP client's Host, Origin or bearer token.
    if (await answerHealth(req, res, routes.readiness)) return;
    if (await answerMetrics(req, res)) return;
    const mounted = findMount(routes.mounts, path);
    if (mounted) return mounted(req, res);
    if (path !== MCP_PATH) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`Not found. The MCP endpoint is ${MCP_PATH}\n`);
      return;
    }
    // Before the guard: a preflight carries no token, and a refusal must be readable by the page that asked.
    if (mcp.cors(req, res)) return;
    mcp.guard(req);
    const who = mcp.signIn ? await mcp.signIn.authenticate(req) : undefined;
    const address = mcp.address(req);
    const found = mcp.sessions.find(req, address);
    if (req.method === 'POST') return post(req, res, found, address, who);
    if (req.method === 'GET' || req.method === 'DELETE') {
      if (!found) throw new Refusal(400, -32001, 'Bad Request: mcp-session-id header is required', 'no session');
      mcp.sessions.touch(found);
      return found.session.transport.handleRequest(req, res);
    }
    res.writeHead(405, { allow: 'GET, POST, DELETE' }).end();
  };
}
