// Every HTTP listener forgeops starts is made here, so that none holds a connection for a client that sends its
// headers or body slowly (Node's defaults wait 60 s for headers and 300 s for a request, checked every 30 s).
import { createServer, type RequestListener, type Server } from 'node:http';

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
