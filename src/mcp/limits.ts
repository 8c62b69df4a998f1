// Limits both MCP transports enforce, and how a refusal names them; no SDK import, so config.ts can read the defaults.

/**
 * One input message, over stdio or HTTP. Big enough for a whole-file update of a large source file in base64
 * (12 MiB of file → 16 MiB of JSON); the SDK's own stdio reader would die at 10 MiB.
 */
export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
const MAX_MESSAGE_BYTES_VARIABLE = 'FORGEOPS_MAX_MESSAGE_BYTES';

/**
 * Live Streamable HTTP sessions per replica. Sized for a team: 1,000 sessions that each made a call held 153 MiB of
 * RSS in all (about 70 KB a session, measured by tools/bench/sessions.mjs), and a flood is held back by closing
 * half-open sessions after the handshake time and idle ones only once the cap is reached.
 */
export const DEFAULT_MAX_SESSIONS = 1000;
export const MAX_SESSIONS_VARIABLE = 'FORGEOPS_MAX_SESSIONS';

/** JSON-RPC error code for an input refused by a limit (the request itself is not valid to run). */
export const LIMIT_ERROR_CODE = -32600;

function size(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  if (mib >= 1) return `${Number.isInteger(mib) ? mib : mib.toFixed(1)} MiB`;
  return `${bytes} bytes`;
}

/** The sentence a client gets for an oversized message; `received` when the whole size is known. */
export function messageTooLargeText(limit: number, received?: number): string {
  const got = received === undefined ? 'more than that' : `${size(received)} (${received} bytes)`;
  return (
    `Message too large: the limit is ${size(limit)} (${limit} bytes, ${MAX_MESSAGE_BYTES_VARIABLE}); got ${got}. ` +
    'Send large content in smaller pieces.'
  );
}
