// A tiny scripted HTTP server on 127.0.0.1 for the HTTP client's tests: records every request, answers from a per-test script.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** The request target as sent: a path, or an absolute URI when it came through a proxy. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * One answer. body: a string or Buffer is sent as is, anything else as JSON.
 * destroy: close the socket without answering. hang: never answer (until the server closes).
 */
export type Reply =
  | { status?: number; headers?: Record<string, string>; body?: unknown }
  | { destroy: true }
  | { hang: true };

export type Script = Reply | ((req: RecordedRequest) => Reply);

export interface ScriptedServer {
  /** http://127.0.0.1:port */
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Targets of CONNECT requests (as a proxy sees them); each is refused with 403. */
  connects: string[];
  /** Queues answers, used in order; once the queue is empty every request gets a 500 saying so. */
  reply(...replies: Script[]): void;
  close(): Promise<void>;
}

export async function startScriptedServer(port = 0): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  const connects: string[] = [];
  const queue: Script[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(recorded);
      const script = queue.shift() ?? { status: 500, body: { message: 'no scripted reply left' } };
      const reply = typeof script === 'function' ? script(recorded) : script;
      if ('destroy' in reply) {
        req.socket.destroy();
        return;
      }
      if ('hang' in reply) return;
      const { status = 200, headers = {}, body } = reply;
      const raw =
        typeof body === 'string' || Buffer.isBuffer(body) ? body : body === undefined ? '' : JSON.stringify(body);
      const contentType = typeof body === 'string' || Buffer.isBuffer(body) ? 'text/plain' : 'application/json';
      res.writeHead(status, { 'content-type': contentType, ...headers });
      res.end(raw);
    });
  });
  server.on('connect', (req, socket) => {
    connects.push(req.url ?? '');
    socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const actualPort = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${actualPort}`,
    port: actualPort,
    requests,
    connects,
    reply: (...replies) => queue.push(...replies),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
