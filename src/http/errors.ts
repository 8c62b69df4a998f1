// ApiError, the one error every failed service call becomes, and the reading of every error body shape the service sends.
import { STATUS_CODES } from 'node:http';

/**
 * http: the service answered with status >= 400. network: the connection failed or broke.
 * timeout: no complete answer in time. aborted: the caller cancelled. refused: forgeops would not send it.
 */
/** too_large: the answer exceeded the client's maxResponseBytes and was not read to the end. */
export type ApiErrorKind = 'http' | 'network' | 'timeout' | 'aborted' | 'refused' | 'too_large';

interface ApiErrorInit {
  kind: ApiErrorKind;
  /** HTTP status; 0 (the default) when no response came. */
  status?: number;
  method: string;
  path: string;
  /** The service's own words; for a failure without a response, what went wrong. */
  serviceMessage: string;
  errorCode?: string;
  fieldErrors?: Record<string, string[]>;
  retryAfterSeconds?: number;
  code?: string;
  /** The error body was JSON, as the service's own errors are; an HTML or plain-text page came from something else. */
  jsonBody?: boolean;
  /** Texts (tokens) that must never appear in the error; each occurrence becomes '[redacted]'. */
  secrets?: readonly string[];
}

const MAX_MESSAGE_CHARS = 500;

/** Codes of a TLS failure: the service's certificate chain could not be checked (a private CA fixes that). */
const TLS_CODES = /^(CERT_|UNABLE_TO_|SELF_SIGNED_|DEPTH_ZERO_|ERR_TLS_|ERR_SSL_)/;

export function isTlsFailure(error: Pick<ApiError, 'kind' | 'code'>): boolean {
  return error.kind === 'network' && error.code !== undefined && TLS_CODES.test(error.code);
}

/** ApiError.code of a timeout caused by the call's overall deadline rather than the per-request timeout. */
export const DEADLINE_CODE = 'DEADLINE';

export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly kind: ApiErrorKind;
  readonly status: number;
  readonly method: string;
  /** The request path, without query string. */
  readonly path: string;
  readonly serviceMessage: string;
  /** The service's error_code, e.g. 'empty' or 'conflict' on a cherry-pick. */
  readonly errorCode?: string;
  /** Validation errors by field, as the service sent them ('base' holds errors of the whole object). */
  readonly fieldErrors?: Record<string, string[]>;
  readonly retryAfterSeconds?: number;
  /** System or undici code of a failure without a response (ECONNREFUSED, UND_ERR_SOCKET, …). */
  readonly code?: string;
  /** The error body was JSON (the service's own style); false for an HTML or text page from a proxy or another server. */
  readonly jsonBody: boolean;

  constructor(init: ApiErrorInit) {
    // Every text passes through here, so redaction cannot be forgotten by any caller.
    const clean = (text: string) => capText(redact(text, init.secrets ?? []));
    const serviceMessage = clean(init.serviceMessage);
    const status = init.status ?? 0;
    super(formatMessage(init.kind, status, serviceMessage));
    this.kind = init.kind;
    this.status = status;
    this.method = init.method;
    this.path = clean(init.path.split(/[?#]/, 1)[0]);
    this.serviceMessage = serviceMessage;
    if (init.errorCode !== undefined) this.errorCode = clean(init.errorCode);
    if (init.fieldErrors !== undefined) {
      this.fieldErrors = Object.fromEntries(
        Object.entries(init.fieldErrors).map(([field, messages]) => [clean(field), messages.map(clean)]),
      );
    }
    if (init.retryAfterSeconds !== undefined) this.retryAfterSeconds = init.retryAfterSeconds;
    if (init.code !== undefined) this.code = init.code;
    this.jsonBody = init.jsonBody ?? false;
  }
}

function formatMessage(kind: ApiErrorKind, status: number, serviceMessage: string): string {
  if (kind === 'http') {
    // The service often writes the status itself ("404 Project Not Found"): say it once.
    return new RegExp(`^${status}\\b`).test(serviceMessage) ? serviceMessage : `${status} ${serviceMessage}`;
  }
  return `${kind === 'network' ? 'network error' : kind}: ${serviceMessage}`;
}

/** Replaces every occurrence of each secret (raw and URL-encoded) with '[redacted]'. */
export function redact(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) {
    if (!secret) continue;
    for (const form of new Set([secret, encodeURIComponent(secret)])) result = result.split(form).join('[redacted]');
  }
  return result;
}

function capText(text: string): string {
  return text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS - 1)}…` : text;
}

interface ErrorResponse {
  status: number;
  /** The reason phrase; the standard one for the status is used when it is missing. */
  statusText?: string;
  method: string;
  path: string;
  /** Lower-case header names. */
  headers: Record<string, string>;
  body: string;
}

/** The ApiError for a response with status >= 400, reading every body shape the service sends. */
export function apiErrorFromResponse(response: ErrorResponse, secrets: readonly string[] = []): ApiError {
  const read = readErrorBody(response.body);
  const serviceMessage = read.message || response.statusText || STATUS_CODES[response.status] || 'HTTP error';
  return new ApiError({
    kind: 'http',
    status: response.status,
    method: response.method,
    path: response.path,
    serviceMessage,
    errorCode: read.errorCode,
    fieldErrors: read.fieldErrors,
    jsonBody: isJsonObject(response.body),
    retryAfterSeconds: parseRetryAfterSeconds(response.headers['retry-after']),
    secrets,
  });
}

interface ReadBody {
  message: string;
  errorCode?: string;
  fieldErrors?: Record<string, string[]>;
}

function readErrorBody(body: string): ReadBody {
  const text = body.trim();
  if (!text) return { message: '' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { message: plainText(text) };
  }
  if (typeof parsed === 'string') return { message: parsed };
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { message: text };
  const fields = parsed as Record<string, unknown>;
  const errorCode = typeof fields.error_code === 'string' ? fields.error_code : undefined;
  const { message } = fields;
  if (typeof message === 'object' && message !== null && !Array.isArray(message)) {
    // Validation errors: {"message": {"title": ["can't be blank"], "base": ["…"]}}
    const fieldErrors = Object.fromEntries(
      Object.entries(message).map(([field, value]) => [field, (Array.isArray(value) ? value : [value]).map(asText)]),
    );
    const sentences = Object.entries(fieldErrors).flatMap(([field, messages]) =>
      messages.map((m) => (field === 'base' ? m : `${field} ${m}`)),
    );
    return { message: sentences.join('; '), errorCode, fieldErrors };
  }
  if (message !== undefined && message !== null) {
    return { message: Array.isArray(message) ? message.map(asText).join('; ') : asText(message), errorCode };
  }
  if (fields.error !== undefined && fields.error !== null) {
    const description = fields.error_description;
    const error = asText(fields.error);
    return { message: typeof description === 'string' && description ? `${error}: ${description}` : error, errorCode };
  }
  // SCIM errors (RFC 7644) put the words in "detail".
  if (typeof fields.detail === 'string') return { message: fields.detail, errorCode };
  return { message: text, errorCode };
}

function isJsonObject(body: string): boolean {
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
  } catch {
    return false;
  }
}

function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** A plain-text or HTML body as one line: an HTML page is reduced to its title, or else its text. */
function plainText(text: string): string {
  if (!/^<(!doctype|html|head|body)\b/i.test(text)) return text.replace(/\s+/g, ' ');
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(text)?.[1];
  const visible = title ?? text.replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ').replace(/<[^>]*>/g, ' ');
  return visible.replace(/\s+/g, ' ').trim();
}

/** Retry-After in whole seconds (rounded up), from delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfterSeconds(value: string | undefined, nowMs: number = Date.now()): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text));
  // Only an HTTP date (it names a day or month); V8 would read odd strings such as '5x' as dates too.
  const date = /[a-z]{3}/i.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - nowMs) / 1000));
}
