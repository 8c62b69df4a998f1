// Every HTTP listener forgeops starts is made here, so that none holds a connection for a client that sends its
// headers or body slowly (Node's defaults wait 60 s for headers and 300 s for a request, checked every 30 s).
import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';

export interface ListenerTimeouts {
  /** Headers not all received this long after the connection's request began: 408 and closed. */
  headersMs: number;
  /** The whole request (headers and body) not received in this time: 408 and closed. Answers may take longer. */
  requestMs: number;
}

export const DEFAULT_LISTENER_TIMEOUTS: ListenerTimeouts = { headersMs: 10_000, requestMs: 30_000 };

/**
 * FORGEOPS_HTTP_HEADERS_TIMEOUT_MS and FORGEOPS_HTTP_REQUEST_TIMEOUT_MS, read where each listener is made: the
 * listeners are started from places (serve, slack, mcp's approval page) that share no options object.
 */
export function listenerTimeoutsFrom(env: NodeJS.ProcessEnv = process.env): ListenerTimeouts {
  const read = (name: string, fallback: number) => {
    const value = Number(env[name]);
    return Number.isInteger(value) && value > 0 ? value : fallback;
  };
  const requestMs = read('FORGEOPS_HTTP_REQUEST_TIMEOUT_MS', DEFAULT_LISTENER_TIMEOUTS.requestMs);
  // Node wants the headers' limit no longer than the request's.
  const headersMs = Math.min(read('FORGEOPS_HTTP_HEADERS_TIMEOUT_MS', DEFAULT_LISTENER_TIMEOUTS.headersMs), requestMs);
  return { headersMs, requestMs };
}

/** An HTTP server with the request and header timeouts set, checked often enough for them to hold. */
export function createListener(handler: RequestListener, timeouts = listenerTimeoutsFrom()): Server {
  return createServer(
    {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      // Node looks for expired requests only this often: a quarter of the shorter limit, at most each second.
      connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(timeouts.headersMs / 4))),
    },
    handler,
  );
}

/**
 * The headers of a page a person answers in a browser (the approval page, Slack's Connect pages): never cached,
 * never framed, no scripts, no Referer (a page's id is in its address); forms may go only to `formTargets`.
 */
export function personPageHeaders(formTargets: string): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store, max-age=0',
    pragma: 'no-cache',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'content-security-policy': `default-src 'none'; style-src 'unsafe-inline'; form-action ${formTargets}; frame-ancestors 'none'; base-uri 'none'`,
  };
}

/** A request's whole body, or undefined as soon as it passes `maxBytes` (the rest is not read). */
export function readBoundedBody(req: IncomingMessage, maxBytes: number): Promise<Buffer | undefined> {
  if (Number(req.headers['content-length'] ?? 0) > maxBytes) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        req.pause();
        resolve(undefined);
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
