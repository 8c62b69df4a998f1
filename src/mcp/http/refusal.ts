// How the MCP HTTP endpoint says no: a Refusal carries the status, JSON-RPC code, words and headers of one answer.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../../log.js';
import type { RateLimitedLog } from './limited-log.js';

export class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    /** What the log groups it under, so that a flood of one kind is one line. */
    readonly kind: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function sendJsonRpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/** Answers a request whose handling threw: a Refusal in its own words, anything else as an internal error. */
export function answerFailure(
  req: IncomingMessage,
  res: ServerResponse,
  error: unknown,
  log: Logger,
  limitedLog: RateLimitedLog,
): void {
  if (error instanceof Refusal) {
    limitedLog.note(error.kind, `mcp http: refused with ${error.status}: ${error.message}`);
    // A body we stopped reading cannot be followed by another request on this connection.
    const headers = req.complete ? error.headers : { ...error.headers, connection: 'close' };
    if (!res.headersSent) sendJsonRpcError(res, error.status, error.code, error.message, headers);
    return;
  }
  log.error(`mcp http: ${(error as Error).message}`);
  if (!res.headersSent) sendJsonRpcError(res, 500, -32603, 'Internal error');
  else res.end();
}
