// Streamable HTTP transport for the MCP server: stateful sessions, Host/Origin checks, optional bearer auth.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomUUID, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../log.js';
import { silentLogger } from '../log.js';

/** Header a client may send on initialize to act with its own service token in that session. */
export const SESSION_TOKEN_HEADER = 'x-codehost-token';
export const MCP_PATH = '/mcp';
/** Big enough for a whole-file update of a large source file in base64. */
const MAX_BODY_BYTES = 16 * 1024 * 1024;
/** Sessions whose client vanished without DELETE are closed after this long without a request. */
export const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;

export interface McpHttpOptions {
  host: string;
  port: number;
  /** Bearer token clients must present; required when not bound to loopback. */
  mcpToken?: string;
  /** Browser origins allowed besides loopback ones. */
  allowedOrigins: readonly string[];
  /** Makes the MCP server of one new session; `token` is the session's own service token, if it sent one. */
  createSessionServer: (session: { token?: string }) => Server;
  log?: Logger;
  /** Idle time after which a session is closed (default 30 minutes). */
  sessionIdleMs?: number;
}

export interface McpHttpServer {
  url: string;
  close(): Promise<void>;
  sessionCount(): number;
}

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
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

function sendJsonRpcError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error('request body too large');
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}

export async function startMcpHttpServer(options: McpHttpOptions): Promise<McpHttpServer> {
  const log = options.log ?? silentLogger;
  const loopbackOnly = isLoopback(options.host);
  if (!loopbackOnly && !options.mcpToken) {
    throw new Error(`refusing to serve MCP on ${options.host} without FORGEOPS_MCP_TOKEN: anyone who can reach it could act with the service token. Set FORGEOPS_MCP_TOKEN, or bind to 127.0.0.1.`);
  }
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const lastActive = new Map<string, number>();
  const idleMs = options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
  let port = options.port;

  const sweeper = setInterval(() => {
    const cutoff = Date.now() - idleMs;
    for (const [id, at] of lastActive) {
      if (at >= cutoff) continue;
      lastActive.delete(id);
      log.info(`mcp session ${id.slice(0, 8)} closed after ${Math.round(idleMs / 1000)} s idle`);
      transports.get(id)?.close().catch(() => undefined);
      transports.delete(id);
    }
  }, Math.max(10, Math.min(idleMs / 2, 60_000)));
  sweeper.unref();

  /** DNS rebinding: a page on evil.example resolving to 127.0.0.1 still sends its own Host and Origin. */
  function rejectForeign(req: IncomingMessage, res: ServerResponse): boolean {
    if (loopbackOnly) {
      const host = (req.headers.host ?? '').toLowerCase();
      const allowedHosts = [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `${options.host}:${port}`];
      if (!allowedHosts.includes(host)) {
        sendJsonRpcError(res, 403, -32000, `Forbidden: Host '${host}' is not this server`);
        return true;
      }
    }
    const origin = req.headers.origin;
    if (origin && !loopbackOrigin(origin) && !options.allowedOrigins.includes(origin)) {
      sendJsonRpcError(res, 403, -32000, `Forbidden: Origin '${origin}' is not allowed (FORGEOPS_ALLOWED_ORIGINS)`);
      return true;
    }
    if (options.mcpToken) {
      const auth = req.headers.authorization ?? '';
      const given = auth.startsWith('Bearer ') ? auth.slice('Bearer '.length).trim() : '';
      if (!given || !sameSecret(given, options.mcpToken)) {
        sendJsonRpcError(res, 401, -32001, 'Unauthorized: send Authorization: Bearer <FORGEOPS_MCP_TOKEN>', { 'www-authenticate': 'Bearer' });
        return true;
      }
    }
    return false;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz' && req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, sessions: transports.size }));
      return;
    }
    if (path !== MCP_PATH) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`Not found. The MCP endpoint is ${MCP_PATH}\n`);
      return;
    }
    if (rejectForeign(req, res)) return;
    const sessionId = req.headers['mcp-session-id'];
    const existing = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
    if (existing && typeof sessionId === 'string') lastActive.set(sessionId, Date.now());
    if (req.method === 'POST') {
      let body: unknown;
      try {
        body = await readJson(req);
      } catch (error) {
        sendJsonRpcError(res, 400, -32700, `Parse error: ${(error as Error).message}`);
        return;
      }
      if (existing) return existing.handleRequest(req, res, body);
      if (sessionId !== undefined) {
        sendJsonRpcError(res, 404, -32001, 'Session not found: start a new session with initialize');
        return;
      }
      if (!isInitializeRequest(body)) {
        sendJsonRpcError(res, 400, -32000, 'Bad Request: no session; the first request must be initialize');
        return;
      }
      const ownToken = req.headers[SESSION_TOKEN_HEADER];
      const server = options.createSessionServer({ token: typeof ownToken === 'string' && ownToken ? ownToken : undefined });
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          transports.set(id, transport);
          lastActive.set(id, Date.now());
          log.info(`mcp session ${id.slice(0, 8)} opened`);
        },
      });
      transport.onclose = () => {
        if (!transport.sessionId) return;
        transports.delete(transport.sessionId);
        lastActive.delete(transport.sessionId);
      };
      await server.connect(transport);
      return transport.handleRequest(req, res, body);
    }
    if (req.method === 'GET' || req.method === 'DELETE') {
      if (!existing) {
        sendJsonRpcError(res, sessionId ? 404 : 400, -32001, sessionId ? 'Session not found' : 'Bad Request: mcp-session-id header is required');
        return;
      }
      return existing.handleRequest(req, res);
    }
    res.writeHead(405, { allow: 'GET, POST, DELETE' }).end();
  }

  const http = createServer((req, res) => {
    handle(req, res).catch((error) => {
      log.error(`mcp http: ${(error as Error).message}`);
      if (!res.headersSent) sendJsonRpcError(res, 500, -32603, 'Internal error');
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, options.host, () => resolve());
  });
  port = (http.address() as AddressInfo).port;
  const shownHost = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${shownHost}:${port}${MCP_PATH}`,
    sessionCount: () => transports.size,
    async close() {
      clearInterval(sweeper);
      for (const t of transports.values()) await t.close().catch(() => undefined);
      transports.clear();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
