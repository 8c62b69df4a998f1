// SSE streams over real HTTP against serve's handler: a tool call's stream drops mid-call and the client, reconnecting
// with Last-Event-ID, receives the result it missed; a stream read to its end is not kept; a call's log lines travel on
// its own stream.
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpHttpServer } from '../../src/mcp/http/server.js';
import { SSE_RETRY_MS } from '../../src/mcp/event-store.js';
import { useSandbox, startMcpHttpOn } from '../helpers/mcp.js';

const env = useSandbox();
/** Priming events (and so resumption) are for clients of this revision on. */
const PROTOCOL = '2025-11-25';

interface SseEvent {
  id?: string;
  retry?: number;
  data: string;
}

/** One open HTTP request whose answer is read as server-sent events, one at a time. */
interface SseConnection {
  status: number;
  headers: IncomingMessage['headers'];
  next(): Promise<SseEvent>;
  /** Drops the connection, as a network failure would. */
  drop(): void;
}

function parseEvent(block: string): SseEvent {
  const event: SseEvent = { data: '' };
  for (const line of block.split('\n')) {
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') event.id = value;
    else if (field === 'retry') event.retry = Number(value);
    else if (field === 'data') event.data += value;
  }
  return event;
}

function openSse(
  url: string,
  method: 'GET' | 'POST',
  headers: Record<string, string>,
  body?: object,
): Promise<SseConnection> {
  return new Promise((resolve, reject) => {
    const req: ClientRequest = httpRequest(
      url,
      {
        method,
        headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', ...headers },
      },
      (res) => {
        let buffer = '';
        const waiting: Array<(event: SseEvent) => void> = [];
        const ready: SseEvent[] = [];
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            // Comment lines (keep-alives) are not events.
            if (block.split('\n').every((line) => line.startsWith(':'))) continue;
            const event = parseEvent(block);
            const taker = waiting.shift();
            if (taker) taker(event);
            else ready.push(event);
          }
        });
        res.on('error', () => undefined);
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          next: () =>
            new Promise((take) => {
              const event = ready.shift();
              if (event) take(event);
              else waiting.push(take);
            }),
          drop: () => req.destroy(),
        });
      },
    );
    req.on('error', (error) => {
      if (!req.destroyed) reject(error);
    });
    req.end(body ? JSON.stringify(body) : undefined);
  });
}

/** A JSON-RPC message (not a priming event) read from the stream, within a bounded number of events. */
async function nextMessage(connection: SseConnection): Promise<{ event: SseEvent; message: Record<string, unknown> }> {
  for (let i = 0; i < 20; i++) {
    const event = await connection.next();
    if (event.data.trim() !== '') return { event, message: JSON.parse(event.data) as Record<string, unknown> };
  }
  throw new Error('no message in 20 events');
}

async function post(url: string, headers: Record<string, string>, body: object): Promise<number> {
  const answer = await fetch(url, {
    method: 'POST',
    headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  await answer.text();
  return answer.status;
}

let server: McpHttpServer;
beforeAll(async () => {
  server = await startMcpHttpOn(env.client, { session: { toolsets: ['all'] } });
});
afterAll(async () => {
  await server?.close();
});

/** An initialized session of a client that can answer elicitation in forms. */
async function openSession(): Promise<Record<string, string>> {
  const init = await openSse(
    server.url,
    'POST',
    {},
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: PROTOCOL,
        capabilities: { elicitation: { form: {} } },
        clientInfo: { name: 'resume-test', version: '1' },
      },
    },
  );
  const { message } = await nextMessage(init);
  init.drop();
  expect(message).toMatchObject({ id: 0, result: { protocolVersion: PROTOCOL } });
  const session = { 'mcp-session-id': String(init.headers['mcp-session-id']), 'mcp-protocol-version': PROTOCOL };
  expect(await post(server.url, session, { jsonrpc: '2.0', method: 'notifications/initialized' })).toBe(202);
  return session;
}

/** A tools/call of `session` whose answer is read as its SSE stream. */
function callTool(session: Record<string, string>, id: number, name: string, args: Record<string, unknown>) {
  return openSse(server.url, 'POST', session, {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args },
  });
}

/** The status of a GET that resumes after `lastEventId`; its stream is not waited for (a 200 would be endless). */
async function resumeStatus(session: Record<string, string>, lastEventId: string): Promise<number> {
  const answer = await fetch(server.url, {
    headers: { ...session, accept: 'text/event-stream', 'last-event-id': lastEventId },
  });
  await answer.body?.cancel();
  return answer.status;
}

describe('resumable Streamable HTTP streams', () => {
  it('primes each call stream with an event id and a retry interval', async () => {
    const session = await openSession();
    const call = await openSse(server.url, 'POST', session, { jsonrpc: '2.0', id: 1, method: 'ping' });
    const priming = await call.next();
    call.drop();
    expect(priming).toMatchObject({ id: expect.any(String), retry: SSE_RETRY_MS, data: '' });
  });

  it('replays what a dropped tool call stream missed to a client reconnecting with Last-Event-ID', async () => {
    const session = await openSession();
    // A destructive call waits for the human: its stream carries the question, then the result.
    const call = await callTool(session, 7, 'delete_pipeline', { id: 'acme/web', pipeline_id: 999999 });
    expect(call.headers['content-type']).toMatch(/text\/event-stream/);
    const { event: questionEvent, message: question } = await nextMessage(call);
    expect(question).toMatchObject({ method: 'elicitation/create' });
    expect(questionEvent.id).toBeTruthy();
    call.drop();

    // The human answers while the call's stream is down: the result goes out to nobody, and is kept.
    expect(
      await post(server.url, session, {
        jsonrpc: '2.0',
        id: question.id,
        result: { action: 'accept', content: { confirm: true } },
      }),
    ).toBe(202);

    const resumed = await openSse(server.url, 'GET', { ...session, 'last-event-id': questionEvent.id! });
    expect(resumed.status).toBe(200);
    const { event, message } = await nextMessage(resumed);
    resumed.drop();
    expect(message).toMatchObject({ id: 7, result: { isError: true } });
    expect(JSON.stringify(message)).toMatch(/404/);
    expect(event.id).not.toBe(questionEvent.id);
  });

  it('keeps nothing of a stream written to its end: its client has it all, and resuming it is refused', async () => {
    const session = await openSession();
    const call = await callTool(session, 3, 'list_pipelines', { id: 'acme/web', per_page: 2 });
    const priming = await call.next();
    const { message } = await nextMessage(call);
    expect(message).toMatchObject({ id: 3, result: { structuredContent: { items: expect.any(Array) } } });
    // The server ends the stream after the answer; by the time a client asks again, nothing of it is held.
    expect(await resumeStatus(session, priming.id!)).toBe(400);
  });

  it("sends a call's log lines on the call's own stream, once the client set a level", async () => {
    const session = await openSession();
    expect(
      await post(server.url, session, { jsonrpc: '2.0', id: 1, method: 'logging/setLevel', params: { level: 'info' } }),
    ).toBe(200);
    const call = await callTool(session, 2, 'create_pipeline', { id: 'acme/web', ref: 'main' });
    const first = await nextMessage(call);
    const second = await nextMessage(call);
    call.drop();
    expect(first.message).toMatchObject({
      method: 'notifications/message',
      params: { level: 'info', logger: 'forgeops' },
    });
    expect(JSON.stringify(first.message)).toMatch(/mcp create_pipeline: 201/);
    expect(second.message).toMatchObject({ id: 2, result: { structuredContent: { ref: 'main' } } });
  });

  it('refuses to resume from an id it does not hold, rather than pretend nothing was missed', async () => {
    const session = await openSession();
    expect(await resumeStatus(session, 'no-such-stream_3')).toBe(400);
  });
});
