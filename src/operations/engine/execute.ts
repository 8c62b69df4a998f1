// The executor: a validated operation input → route → HTTP request(s) → pages → OperationResult.
import type { Operation, OperationResult, RunContext } from './define.js';
import { CONTROL_KEYS } from './define.js';
import { buildPath } from '../../http/route.js';
import { fetchPages } from '../../http/pages.js';
import type { ApiRequest, QueryParams } from '../../http/types.js';

/** Results gathered by all_pages when the caller sets no max_items. */
export const DEFAULT_MAX_ITEMS = 500;

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Splits an input into the HTTP request the operation's route describes. */
export function buildRequest(op: Operation, input: Record<string, unknown>, ctx: RunContext): ApiRequest {
  const pathValues: Record<string, unknown> = {};
  const query: QueryParams = {};
  const body: Record<string, unknown> = {};
  const control = new Set<string>(CONTROL_KEYS);
  const queryKeys = new Set(op.queryKeys ?? []);
  const spread = op.spreadInput;
  const entries = Object.entries(input).flatMap(([key, value]) =>
    key === spread && value && typeof value === 'object'
      ? Object.entries(value as Record<string, unknown>)
      : [[key, value] as const],
  );
  for (const [key, value] of entries) {
    if (value === undefined || control.has(key)) continue;
    if (op.pathParams.includes(key)) pathValues[key] = value;
    else if (BODY_METHODS.has(op.method) && !queryKeys.has(key)) body[key] = value;
    else query[key] = value as QueryParams[string];
  }
  // The service pages by keyset only when asked to; otherwise it falls back to offset pages.
  if (op.pagination === 'keyset') query.pagination = 'keyset';
  const hasBody = Object.keys(body).length > 0;
  return {
    method: op.method,
    path: buildPath(op.path, pathValues),
    query,
    body: hasBody ? body : undefined,
    bodyType: op.body ?? 'json',
    responseType: op.response === 'headers' ? 'none' : op.response,
    idempotent: op.idempotent,
    token: ctx.token,
    signal: ctx.signal,
    deadline: ctx.deadline,
    onProgress: ctx.onProgress,
  };
}

/** The X-Svc-* metadata headers of a HEAD answer, as snake_case fields (x-svc-blob-id → blob_id). */
function metadataFromHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name.startsWith('x-svc-')) out[name.slice('x-svc-'.length).replace(/-/g, '_')] = value;
  }
  return out;
}

/** Runs an operation whose input was already validated (see validateInput); its answer redacted as it declares. */
export async function executeOperation(
  op: Operation,
  input: Record<string, unknown>,
  ctx: RunContext,
): Promise<OperationResult> {
  const result = await send(op, input, ctx);
  const shown = op.redact ? { ...result, data: op.redact(result.data, input) } : result;
  return input.reveal === true ? { ...shown, revealed: true } : shown;
}

async function send(op: Operation, input: Record<string, unknown>, ctx: RunContext): Promise<OperationResult> {
  if (op.run) return op.run(ctx, input);
  const req = buildRequest(op, input, ctx);
  if (op.pagination) {
    const all = input.all_pages === true;
    const maxItems = typeof input.max_items === 'number' ? input.max_items : DEFAULT_MAX_ITEMS;
    const { items, status, page } = await fetchPages(ctx.client, req, { mode: op.pagination, all, maxItems });
    return { data: items, status, page };
  }
  const res = await ctx.client.request(req);
  if (op.response === 'headers') return { data: metadataFromHeaders(res.headers), status: res.status };
  if (op.response === 'bytes' || op.response === 'text') {
    return {
      data: res.data,
      status: res.status,
      contentType: res.headers['content-type'],
      fileName: fileNameFromDisposition(res.headers['content-disposition']),
    };
  }
  return { data: res.data, status: res.status };
}

function fileNameFromDisposition(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const star = /filename\*=(?:UTF-8'')?([^;]+)/i.exec(value);
  if (star) return decodeURIComponent(star[1].trim().replace(/^"|"$/g, ''));
  const plain = /filename="?([^";]+)"?/i.exec(value);
  return plain?.[1];
}
