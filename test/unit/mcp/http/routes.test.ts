// The routes alone, on a tiny server on 127.0.0.1 with a fake endpoint behind them: probes and mounts before the MCP
// checks, /mcp by method to a session, a new session or the stateless revision, and refusals where none fits.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../../../src/log.js';
import { rateLimitedLog } from '../../../../src/mcp/http/limited-log.js';
import { answerFailure, Refusal } from '../../../../src/mcp/http/refusal.js';
import { findMount, type McpEndpoint, router, statelessLoader } from '../../../../src/mcp/http/routes.js';
import type { FoundSession, Session } from '../../../../src/mcp/http/sessions.js';
import type { StatelessEndpoint } from '../../../../src/mcp/stateless.js';

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};

function answer(text: string) {
  return async (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/plain' }).end(text);
  };
}

/** A fake endpoint whose every part says what it was asked to do; `over` replaces parts. */
function endpoint(over: Partial<McpEndpoint> = {}) {
  const transport = { close: vi.fn(async () => undefined), handleRequest: vi.fn(answer('session')) };
  const held: FoundSession = { id: 's1', session: { transport } as unknown as Session };
  const mcp: McpEndpoint = {
    cors: () => false,
    guard: vi.fn(),
    address: () => '127.0.0.1',
    sessions: {
      find: vi.fn((req: IncomingMessage) => (req.headers['mcp-session-id'] === 's1' ? held : undefined)),
      serve: vi.fn((_found, req, res) => answer('served')(req, res)),
      touch: vi.fn(),
    },
    readJson: async (req) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const text = Buffer.concat(chunks).toString();
      return text ? JSON.parse(text) : undefined;
    },
    refuseIfDraining: vi.fn(),
    open: vi.fn((req, res) => answer('opened')(req, res)),
    stateless: async () => undefined,
    ...over,
  };
  return { mcp, transport };
}

let server: Server | undefined;
afterEach(async () => {
  const running = server;
  server = undefined;
  if (!running) return;
  running.closeAllConnections();
  await new Promise((resolve) => running.close(resolve));
});

async function serve(mcp: McpEndpoint, mounts?: Record<string, (req: IncomingMessage, res: ServerResponse) => void>) {
  const handle = router({ mcp, mounts });
  const limited = rateLimitedLog(silentLogger, 60_000);
  server = createServer((req, res) => {
    handle(req, res).catch((error) => answerFailure(req, res, error, silentLogger, limited));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
  return async (path: string, init: RequestInit = {}) => {
    const res = await fetch(base + path, init);
    return { status: res.status, text: await res.text(), headers: res.headers };
  };
}

const post = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

describe('router', () => {
  it('answers the probes and mounted paths without the MCP checks, and 404 elsewhere', async () => {
    const { mcp } = endpoint({
      guard: vi.fn(() => {
        throw new Refusal(403, -32000, 'no', 'host');
      }),
    });
    const get = await serve(mcp, { '/slack/events': answer('slack'), '/approvals/': answer('page') });
    expect((await get('/healthz')).status).toBe(200);
    expect((await get('/readyz')).status).toBe(200);
    expect((await get('/slack/events')).text).toBe('slack');
    expect((await get('/approvals/abc?x=1')).text).toBe('page');
    const missing = await get('/elsewhere');
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('/mcp');
    expect(mcp.guard).not.toHaveBeenCalled();
    expect((await get('/mcp', post(initialize))).status).toBe(403);
  });

  it('hands a POST naming a session to that session, and an initialize to a new one', async () => {
    const { mcp } = endpoint();
    const get = await serve(mcp);
    expect((await get('/mcp', post({ jsonrpc: '2.0', id: 2, method: 'ping' }, { 'mcp-session-id': 's1' }))).text).toBe(
      'served',
    );
    expect((await get('/mcp', post(initialize))).text).toBe('opened');
    expect(mcp.open).toHaveBeenCalledTimes(1);
  });

  it('refuses a new session while draining, but still serves the sessions it has', async () => {
    const { mcp } = endpoint({
      refuseIfDraining: () => {
        throw new Refusal(503, -32000, 'shutting down', 'draining');
      },
    });
    const get = await serve(mcp);
    expect((await get('/mcp', post(initialize))).status).toBe(503);
    expect(mcp.open).not.toHaveBeenCalled();
    expect((await get('/mcp', post({ jsonrpc: '2.0', id: 2, method: 'ping' }, { 'mcp-session-id': 's1' }))).text).toBe(
      'served',
    );
  });

  it('gives a POST with no session and no initialize to the stateless revision, else answers 400', async () => {
    const serveIfModern = vi.fn(async (_req: IncomingMessage, res: ServerResponse, body: unknown) => {
      if ((body as { method?: string }).method !== 'tools/list') return false;
      res.writeHead(200).end('stateless');
      return true;
    });
    const { mcp } = endpoint({ stateless: async () => ({ serveIfModern }) as unknown as StatelessEndpoint });
    const get = await serve(mcp);
    expect((await get('/mcp', post({ jsonrpc: '2.0', id: 3, method: 'tools/list' }))).text).toBe('stateless');
    const legacy = await get('/mcp', post({ jsonrpc: '2.0', id: 4, method: 'ping' }));
    expect(legacy.status).toBe(400);
    expect(legacy.text).toContain('the first request must be initialize');
  });

  it('sends GET and DELETE to the named session, asks for one without it, and answers 405 to other methods', async () => {
    const { mcp, transport } = endpoint();
    const get = await serve(mcp);
    expect((await get('/mcp', { headers: { 'mcp-session-id': 's1' } })).text).toBe('session');
    expect((await get('/mcp', { method: 'DELETE', headers: { 'mcp-session-id': 's1' } })).text).toBe('session');
    expect(transport.handleRequest).toHaveBeenCalledTimes(2);
    expect(mcp.sessions.touch).toHaveBeenCalledTimes(2);
    expect((await get('/mcp')).status).toBe(400);
    const put = await get('/mcp', { method: 'PUT' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, POST, DELETE');
  });
});

describe('findMount', () => {
  it('takes an exact path, or a prefix ending in a slash, and nothing else', () => {
    const exact = answer('exact');
    const prefix = answer('prefix');
    const mounts = { '/hooks/pipeline': exact, '/approvals/': prefix };
    expect(findMount(mounts, '/hooks/pipeline')).toBe(exact);
    expect(findMount(mounts, '/approvals/a1')).toBe(prefix);
    expect(findMount(mounts, '/hooks/pipeline/more')).toBeUndefined();
    expect(findMount(mounts, '/approvals')).toBeUndefined();
    expect(findMount(undefined, '/mcp')).toBeUndefined();
  });
});

describe('statelessLoader', () => {
  it('loads the revision once, tries again after a failed load, and closes it if loaded', async () => {
    const close = vi.fn(async () => undefined);
    const load = vi
      .fn<() => Promise<StatelessEndpoint>>()
      .mockRejectedValueOnce(new Error('not yet'))
      .mockResolvedValue({ close } as unknown as StatelessEndpoint);
    const loader = statelessLoader(load);
    await expect(loader.get()).rejects.toThrow('not yet');
    const first = await loader.get();
    expect(await loader.get()).toBe(first);
    expect(load).toHaveBeenCalledTimes(2);
    await loader.close();
    expect(close).toHaveBeenCalledTimes(1);
    expect(await statelessLoader(undefined).get()).toBeUndefined();
  });
});
