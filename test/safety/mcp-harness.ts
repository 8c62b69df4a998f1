// Shared by the MCP safety tests: our Streamable HTTP server on a sandbox, the SDK's client, and raw HTTP requests.
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ElicitAnswer } from '../helpers/mcp.js';
import type { McpHttpOptions, McpHttpServer } from '../../src/mcp/http/server.js';
import { serviceTokenChecker } from '../../src/mcp/token-check.js';
import type { HttpClient } from '../../src/http/client.js';
import { startMcpHttpOn } from '../helpers/mcp.js';
import { createStatelessEndpoint } from '../../src/mcp/stateless.js';
import { silentLogger } from '../../src/log.js';
import { MemoryStore } from '../../src/state/store.js';

export const PROTOCOL_VERSION = '2025-06-18';

/** Our HTTP MCP server with the real server factory, acting on `client` (a sandbox), which also checks the clients' own tokens as `serve` does. */
export function startHttp(client: HttpClient, options: Partial<McpHttpOptions> = {}): Promise<McpHttpServer> {
  return startMcpHttpOn(client, { http: { tokenChecker: serviceTokenChecker(client), ...options } });
}

type StatelessOptions = Parameters<typeof createStatelessEndpoint>[0];

/**
 * The 2026-07-28 stateless endpoint as the tests start it: 1 MiB messages, a quiet log, approvals in a memory store
 * of its own; `changes` name another store (and whether other replicas share it).
 */
export function statelessEndpoint(
  serverOptions: StatelessOptions['serverOptions'],
  changes: Partial<StatelessOptions> = {},
) {
  return createStatelessEndpoint({
    serverOptions,
    store: new MemoryStore(),
    sharedStore: false,
    maxMessageBytes: 1 << 20,
    log: silentLogger,
    ...changes,
  });
}

/** The SDK's own client over Streamable HTTP, with extra headers on every request; `elicit` answers its forms. */
export async function connectClient(url: string, headers: Record<string, string> = {}, elicit?: ElicitAnswer) {
  const mcp = new Client(
    { name: 'safety-test', version: '1.0.0' },
    { capabilities: elicit ? { elicitation: { form: {} } } : {} },
  );
  if (elicit) mcp.setRequestHandler(ElicitRequestSchema, async (request) => elicit(request.params.message));
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  await mcp.connect(transport);
  return { mcp, transport };
}

export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * One HTTP request with exactly these headers and body; resolves on the answer even if the server stops reading the body.
 * `keepOpen` sends the body but never ends it, so only a server that stops reading early can answer.
 */
export function rawRequest(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: string | Buffer,
  keepOpen = false,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method, headers: { accept: 'application/json, text/event-stream', ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') });
          if (keepOpen) req.destroy();
        });
        res.on('error', reject);
      },
    );
    // A server that answers before reading the whole body closes the connection under our write: the answer still counts.
    req.on('error', (error) => {
      if (!req.writableFinished && !keepOpen) reject(error);
    });
    if (keepOpen) req.write(body ?? '');
    else req.end(body);
  });
}

export function initializeBody(id = 1): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
}

/** A raw initialize; `sessionId` is the new session's id when the server opened one. */
export async function rawInitialize(
  url: string,
  headers: Record<string, string> = {},
): Promise<RawAnswer & { sessionId?: string }> {
  const answer = await rawRequest(url, 'POST', { 'content-type': 'application/json', ...headers }, initializeBody());
  const id = answer.headers['mcp-session-id'];
  return { ...answer, sessionId: typeof id === 'string' ? id : undefined };
}

/** The headers and body of a raw JSON-RPC message on an existing session (`headers` added or overriding). */
export function sessionMessage(sessionId: string, message: object, headers: Record<string, string> = {}) {
  return {
    headers: {
      'content-type': 'application/json',
      'mcp-session-id': sessionId,
      'mcp-protocol-version': PROTOCOL_VERSION,
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', ...message }),
  };
}

/** A raw JSON-RPC message on an existing session. */
export function rawSessionPost(
  url: string,
  sessionId: string,
  message: object,
  headers: Record<string, string> = {},
): Promise<RawAnswer> {
  const sent = sessionMessage(sessionId, message, headers);
  return rawRequest(url, 'POST', sent.headers, sent.body);
}

/** Waits, a bounded number of times, until `done` holds; returns whether it did. */
export async function eventually(done: () => boolean, tries = 200, stepMs = 20): Promise<boolean> {
  for (let i = 0; i < tries && !done(); i++) await new Promise((r) => setTimeout(r, stepMs));
  return done();
}

/** A Logger that keeps its lines, to count what a flood writes. */
export function captureLog() {
  const lines: string[] = [];
  const at = (level: string) => (message: string) => {
    lines.push(`${level} ${message}`);
  };
  return { lines, log: { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') } };
}
