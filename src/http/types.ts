// The request and response shapes the HTTP client speaks; the executor builds ApiRequests from operations.

/** A query value: arrays go as key[]=a&key[]=b, plain objects as key[sub]=v; undefined is left out. */
type QueryValue = string | number | boolean | null | undefined | QueryValue[] | { [key: string]: QueryValue };
export type QueryParams = Record<string, QueryValue>;

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** offset: page/per_page with X-* headers; keyset: only Link rel="next". */
export type Pagination = 'offset' | 'keyset';

/** Where a paginated result stands: what was read, and whether more exists. */
export interface PageInfo {
  page?: number;
  per_page?: number;
  next_page?: number;
  total?: number;
  total_pages?: number;
  /** True when more results exist than were fetched (a next page, or the all-pages cap was hit). */
  has_more: boolean;
  /** Keyset pagination: the next link's cursor URL (relative to nothing the user needs to type). */
  next_url?: string;
  /** How many pages were fetched for this result. */
  pages_fetched: number;
}

export interface ApiRequest {
  method: HttpMethod;
  /**
   * Already-encoded path relative to {base_url}/api/v4 (e.g. '/projects/group%2Fapp/pipelines'),
   * or, when it starts with '/api/scim/', relative to {base_url} (SCIM: bearer token, application/scim+json).
   */
  path: string;
  query?: QueryParams;
  body?: unknown;
  /** Default json. multipart: body is a FormData (file uploads such as a group import). */
  bodyType?: 'json' | 'form' | 'multipart';
  /** json (default; an empty body reads as null), text, bytes (Buffer), none (body discarded). */
  responseType?: 'json' | 'text' | 'bytes' | 'none';
  /** May the client send this twice (retry after a 429/5xx/connection error)? Required: callers must decide. */
  idempotent: boolean;
  /** Overrides the configured token for this call (e.g. an MCP session's own token). */
  token?: string;
  /**
   * How `token` is sent: a personal access token as PRIVATE-TOKEN (the default), an OAuth access token (a person's
   * sign-in through the code host) as Authorization: Bearer, the only header the code host takes it in.
   */
  tokenScheme?: 'private-token' | 'bearer';
  signal?: AbortSignal;
  /** Overrides the configured per-request timeout. */
  timeoutMs?: number;
  /**
   * When the whole call must be over (epoch ms), across attempts, retry waits and pages: an attempt is cut
   * short there, and no retry starts that would end past it.
   */
  deadline?: number;
  /** Told of retries and pages as they happen, so a front end can show progress on long work. */
  onProgress?: (event: ProgressEvent) => void;
  /**
   * An absolute URL to fetch instead of path+query (a keyset Link rel="next"). Must be on the configured
   * service origin; the client refuses anything else so the token never leaves for another host.
   */
  url?: string;
  /**
   * Only the end of a large text body is wanted (a job log's tail): asked for with a `Range: bytes=-N` header, and,
   * should the service send the whole body anyway, read as a stream of which only the last N bytes are kept.
   */
  tailBytes?: number;
}

/** Something a long call is doing: waiting before a retry, having read one more page, or having checked on what it waits for. */
export type ProgressEvent =
  | { kind: 'retry'; retry: number; waitMs: number; reason: string }
  | { kind: 'page'; pages: number; items: number }
  /** `message` says what was seen, for a person ("pipeline #42 is running"). */
  | { kind: 'poll'; polls: number; message: string };

/**
 * A bearer token that changes over time (a sign-in whose access token is refreshed), asked for at each request in
 * place of a fixed token.
 */
export interface TokenSource {
  /**
   * The token to send now; undefined to send none (no sign-in: public data only); rejects when the request must not
   * go without one (the message says what to do).
   */
  token(): Promise<string | undefined>;
  /** The service answered 401 to `token`: true when there is now another token to try once. */
  rejected(token: string): Promise<boolean>;
}

export interface ApiResponse<T = unknown> {
  status: number;
  /** Lower-case header names; repeated headers joined with ', '. */
  headers: Record<string, string>;
  data: T;
  /** With tailBytes: how many bytes at the start of the body were not kept (0 when all of it was). */
  droppedBytes?: number;
}

/** What the executor needs of a client: HttpClient is one; the runtime's lazily started sandbox client is another. */
export interface ApiTransport {
  request<T = unknown>(req: ApiRequest): Promise<ApiResponse<T>>;
  /** When the service last answered anything (epoch ms): proof it is reachable, without asking again. */
  lastAnswerAt?: number;
  /** Loads what the first request needs (the HTTP client's modules) ahead of it, where the transport loads it lazily. */
  warmUp?(): Promise<void>;
}

/** Largest response body the client reads into memory by default (an archive of a big repository can be huge). */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
