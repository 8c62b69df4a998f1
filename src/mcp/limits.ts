// Limits both MCP transports enforce, and how a refusal names them (their defaults are in ../defaults.ts).

const MAX_MESSAGE_BYTES_VARIABLE = 'FORGEOPS_MAX_MESSAGE_BYTES';
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
