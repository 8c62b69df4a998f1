// Clients that connect from another loopback address (127.0.0.2, …): another caller, as the server sees it, without
// leaving the machine. The whole 127.0.0.0/8 is loopback on Linux, so no setup is needed.
import { Agent, fetch as undiciFetch } from 'undici';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { manualClient } from './mcp-v2.js';
import { afterAll, expect } from 'vitest';
import { initializeBody, sessionMessage } from '../safety/mcp-harness.js';

/** One connection pool per source address, closed after the test file. */
const agents = new Map<string, Agent>();
afterAll(async () => {
  const open = [...agents.values()];
  agents.clear();
  await Promise.all(open.map((agent) => agent.close()));
});

/** A fetch whose connections leave from `address`, for an SDK client transport's `fetch` option. */
export function fetchFrom(address: string): typeof fetch {
  let agent = agents.get(address);
  if (!agent) agents.set(address, (agent = new Agent({ localAddress: address })));
  const dispatcher = agent;
  return ((input: string | URL | Request, init?: RequestInit) =>
    undiciFetch(input as never, { ...(init as object), dispatcher } as never)) as unknown as typeof fetch;
}

export interface Answer {
  status: number;
  headers: Headers;
  body: string;
  sessionId?: string;
}

/** One raw POST (or GET, DELETE) to /mcp from `address`, with exactly these headers. */
export async function requestFrom(
  address: string,
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Answer> {
  const response = await fetchFrom(address)(url, {
    method,
    body,
    headers: { accept: 'application/json, text/event-stream', ...headers },
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text,
    sessionId: response.headers.get('mcp-session-id') ?? undefined,
  };
}

/** A raw initialize from `address`; `sessionId` when the server opened a session. */
export function initializeFrom(address: string, url: string, headers: Record<string, string> = {}): Promise<Answer> {
  return requestFrom(address, url, 'POST', { 'content-type': 'application/json', ...headers }, initializeBody());
}

/** A raw JSON-RPC message on a session, from `address` (the rest as sessionMessage takes it: session id, message, headers). */
export function sessionPostFrom(
  address: string,
  url: string,
  ...onSession: Parameters<typeof sessionMessage>
): Promise<Answer> {
  const sent = sessionMessage(...onSession);
  return requestFrom(address, url, 'POST', sent.headers, sent.body);
}

/** The SDK's own client over Streamable HTTP, connecting from `address`. */
export async function connectFrom(address: string, url: string, headers: Record<string, string> = {}) {
  const mcp = new Client({ name: 'from-address-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers },
    fetch: fetchFrom(address),
  });
  await mcp.connect(transport);
  return { mcp, transport };
}

/** An SDK v2 client on the 2026-07-28 revision from `address`, each round sent by the test (as manualClient in mcp-v2.ts). */
export function manualClientFrom(address: string, url: string, headers: Record<string, string> = {}) {
  return manualClient(url, headers, fetchFrom(address));
}

/** Opens sessions from `address` and completes each handshake, as a flood that keeps its sessions does. */
export async function floodFrom(url: string, address: string, times: number, headers: Record<string, string> = {}) {
  const opened: string[] = [];
  const refused: Answer[] = [];
  for (let i = 0; i < times; i++) {
    const answer = await initializeFrom(address, url, headers);
    if (answer.sessionId) {
      expect(
        (await sessionPostFrom(address, url, answer.sessionId, { method: 'notifications/initialized' }, headers))
          .status,
      ).toBe(202);
      opened.push(answer.sessionId);
    } else refused.push(answer);
  }
  return { opened, refused };
}
