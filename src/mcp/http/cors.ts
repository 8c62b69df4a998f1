// CORS for /mcp, so that an MCP client running in a browser page (the MCP Inspector's web client, a web host) can
// read what forgeops answers: only for the origins the guard lets in (loopback pages and FORGEOPS_ALLOWED_ORIGINS),
// with the headers such a client must read (the session id, the sign-in challenge) exposed.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { originAllowed, SESSION_TOKEN_HEADER } from './guard.js';

/** What a browser client sends beyond the simple headers (the MCP transport's own and the sign-in's). */
const ALLOWED_HEADERS = [
  'authorization',
  'content-type',
  'accept',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
  SESSION_TOKEN_HEADER,
].join(', ');
/** What it must read: the session to send back, the revision, and where to sign in (WWW-Authenticate of a 401). */
const EXPOSED_HEADERS = 'mcp-session-id, mcp-protocol-version, www-authenticate';
/** A day: the answer to a preflight changes only with the settings. */
const PREFLIGHT_MAX_AGE_S = 86_400;

/**
 * Marks the response of an allowed origin readable by its page (headers set now are kept by every later writeHead,
 * the refusals' and the transport's alike) and answers a preflight; true when it answered the request.
 */
export function mcpCors(allowedOrigins: readonly string[]) {
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const origin = req.headers.origin;
    const allowed = origin !== undefined && originAllowed(origin, allowedOrigins);
    // The answer differs by Origin: a cache in between must not hand one page's answer to another.
    res.setHeader('vary', 'Origin');
    if (allowed) {
      res.setHeader('access-control-allow-origin', origin);
      res.setHeader('access-control-expose-headers', EXPOSED_HEADERS);
    }
    if (req.method !== 'OPTIONS') return false;
    if (!allowed) {
      res.writeHead(403, { 'content-type': 'text/plain' }).end(`Origin not allowed (FORGEOPS_ALLOWED_ORIGINS)\n`);
      return true;
    }
    res
      .writeHead(204, {
        'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
        'access-control-allow-headers': ALLOWED_HEADERS,
        'access-control-max-age': String(PREFLIGHT_MAX_AGE_S),
      })
      .end();
    return true;
  };
}
