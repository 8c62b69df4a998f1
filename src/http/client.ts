// HttpClient: sends ApiRequests to the service over a keep-alive undici dispatcher (auth, bodies, timeouts, retries, proxy, private CA).
import type { Dispatcher } from 'undici';
import { Agent, EnvHttpProxyAgent, loadFormData, type FormData as UndiciFormData } from './undici-parts.js';
import { ApiError, apiErrorFromResponse, DEADLINE_CODE, type ApiErrorKind } from './errors.js';
import { recordServiceRetry } from '../metrics.js';
import { resolveRetryOptions, retryDelayMs, type ResolvedRetryOptions, type RetryOptions } from './retry.js';
import { API_PREFIX, encodeForm, SCIM_PREFIX, serializeQuery, servicePath } from './route.js';
import { readCaFile } from './ca.js';
import { quotedUrl } from '../text/shown-url.js';
import { DEFAULT_MAX_RESPONSE_BYTES, type ApiRequest, type ApiResponse, type TokenSource } from './types.js';

export interface HttpClientOptions {
  /** The service address, e.g. 'https://code.example.com' or 'https://example.com/code' (API under {baseUrl}/api/v4). */
  baseUrl: string;
  /** Sent as PRIVATE-TOKEN; without one, only public content can be read. */
  token?: string;
  /** Sent as a bearer token on /api/scim/ paths. */
  scimToken?: string;
  /**
   * Without a token: asked for an OAuth access token for each request, sent as `Authorization: Bearer`, and told of a
   * 401 so that it can refresh; the request is then sent once more with the new token.
   */
  tokenSource?: TokenSource;
  /** Per attempt, from sending to the end of the body. Default 30000. */
  timeoutMs?: number;
  /** PEM file of a private CA, trusted in addition to the public ones. */
  caFile?: string;
  retry?: RetryOptions;
  userAgent?: string;
  /** Most sockets per origin. Default: no limit. */
  connections?: number;
  /** Largest response body read into memory (an archive of a big repository can be huge). Default 64 MiB. */
  maxResponseBytes?: number;
  /** The proxy to use; {} for none. Default: HTTP(S)_PROXY and NO_PROXY of the process environment. */
  proxy?: ProxySettings;
}

interface ProxySettings {
  httpProxy?: string;
  httpsProxy?: string;
  noProxy?: string;
}

// Kept in types.ts, so that code which needs the number does not load undici with the client.
export { DEFAULT_MAX_RESPONSE_BYTES } from './types.js';

/** Everything about a request that stays the same across its attempts. */
interface Target {
  url: URL;
  scim: boolean;
  headers: Record<string, string>;
  body?: string | UndiciFormData;
  secrets: string[];
  timeoutMs: number;
  /** The token the tokenSource gave for this request, if it gave one. */
  sourced?: string;
}

export class HttpClient {
  /** The normalised service address: no trailing slash, no '/api/v4'. */
  readonly baseUrl: string;
  private readonly base: URL;
  private readonly token?: string;
  private readonly scimToken?: string;
  private readonly tokenSource?: TokenSource;
  private readonly timeoutMs: number;
  private readonly userAgent: string;
  private readonly retry: ResolvedRetryOptions;
  private readonly dispatcher: Dispatcher;
  private readonly maxResponseBytes: number;
  /** When the service last answered (any status); the readiness check takes it as proof the service is reachable. */
  lastAnswerAt?: number;

  constructor(options: HttpClientOptions) {
    this.base = parseBaseUrl(options.baseUrl);
    this.baseUrl = this.base.href.replace(/\/$/, '');
    this.token = options.token || undefined;
    this.scimToken = options.scimToken || undefined;
    // A configured token wins: the source is the fallback for when there is none.
    this.tokenSource = this.token ? undefined : options.tokenSource;
    this.timeoutMs = positive('timeoutMs', options.timeoutMs ?? 30_000);
    this.userAgent = options.userAgent ?? 'forgeops';
    this.retry = resolveRetryOptions(options.retry);
    this.maxResponseBytes = positive('maxResponseBytes', options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES);
    const connections = options.connections === undefined ? undefined : positive('connections', options.connections);
    this.dispatcher = createDispatcher(
      options.caFile === undefined ? undefined : readCaFile(options.caFile),
      connections,
      options.proxy ?? proxyFromEnvironment(),
    );
  }

  /** Sends the request (retrying per retry.ts); any status >= 400 or failure rejects with an ApiError. */
  async request<T = unknown>(req: ApiRequest): Promise<ApiResponse<T>> {
    const secrets = [this.token, this.scimToken, req.token].filter((s): s is string => !!s);
    let target = await this.target(req, secrets);
    const started = this.retry.now();
    let tokenRenewed = false;
    for (let retriesDone = 0; ; retriesDone++) {
      try {
        return (await this.send(req, target)) as ApiResponse<T>;
      } catch (error) {
        // A refused OAuth token may have expired early or been refreshed by another process: one more try with the
        // source's next token, outside the retry budget (it is not the service failing).
        if (error instanceof ApiError && error.status === 401 && target.sourced !== undefined && !tokenRenewed) {
          tokenRenewed = true;
          if (await this.renewed(req, target)) {
            target = await this.target(req, secrets);
            retriesDone--;
            continue;
          }
        }
        let wait =
          error instanceof ApiError
            ? retryDelayMs(error, req.idempotent, { retriesDone, elapsedMs: this.retry.now() - started }, this.retry)
            : undefined;
        // A retry that could not even start before the call's deadline would only hide this failure.
        if (wait !== undefined && req.deadline !== undefined && Date.now() + wait >= req.deadline) wait = undefined;
        if (wait === undefined) throw error;
        req.onProgress?.({ kind: 'retry', retry: retriesDone + 1, waitMs: wait, reason: (error as ApiError).message });
        recordServiceRetry((error as ApiError).kind === 'http' ? (error as ApiError).status : undefined);
        await this.pause(wait, req, target);
      }
    }
  }

  close(): Promise<void> {
    return this.dispatcher.close();
  }

  private async target(req: ApiRequest, secrets: string[]): Promise<Target> {
    let url: URL;
    if (req.url !== undefined) {
      url = this.checkedUrl(req, secrets);
    } else {
      if (!req.path.startsWith('/')) throw new Error(`request path must start with '/', got '${req.path}'`);
      // URL parsing would resolve them and quietly aim the request at another endpoint.
      if (/\/(\.|%2e){1,2}(\/|\?|$)/i.test(req.path))
        throw new Error(`request path must not contain '.' or '..' segments: '${req.path}'`);
      url = new URL(`${this.basePath()}${servicePath(req.path)}`, this.base.origin);
    }
    const query = req.query ? serializeQuery(req.query) : '';
    if (query) url.search = url.search ? `${url.search}&${query}` : `?${query}`;
    const scim = url.pathname.slice(this.basePath().length).startsWith(SCIM_PREFIX);
    const { body, type } = await encodeBody(req, scim);
    const headers: Record<string, string> = {
      'user-agent': this.userAgent,
      accept:
        (req.responseType ?? 'json') !== 'json'
          ? '*/*'
          : scim
            ? 'application/scim+json, application/json'
            : 'application/json',
    };
    if (type) headers['content-type'] = type;
    const token = req.token ?? (scim ? this.scimToken : this.token);
    if (token && (scim || (req.token && req.tokenScheme === 'bearer'))) headers.authorization = `Bearer ${token}`;
    else if (token) headers['private-token'] = token;
    let sourced: string | undefined;
    if (!token && !scim && this.tokenSource) {
      sourced = await this.sourcedToken(req, url, secrets);
      if (sourced) {
        secrets.push(sourced);
        headers.authorization = `Bearer ${sourced}`;
      }
    }
    if (req.tailBytes !== undefined) headers.range = `bytes=-${positive('tailBytes', req.tailBytes)}`;
    const timeoutMs = req.timeoutMs === undefined ? this.timeoutMs : positive('timeoutMs', req.timeoutMs);
    return { url, scim, headers, body, secrets, timeoutMs, sourced };
  }

  /** The source's token, or the request refused in the source's words (e.g. "not signed in: run forgeops login"). */
  private async sourcedToken(req: ApiRequest, url: URL, secrets: string[]): Promise<string | undefined> {
    try {
      return await (this.tokenSource as TokenSource).token();
    } catch (error) {
      const serviceMessage = error instanceof Error ? error.message : String(error);
      throw new ApiError({ kind: 'refused', method: req.method, path: url.pathname, serviceMessage, secrets });
    }
  }

  /** Whether the source has another token after a 401; a source that cannot renew refuses in its own words. */
  private async renewed(req: ApiRequest, target: Target): Promise<boolean> {
    try {
      return await (this.tokenSource as TokenSource).rejected(target.sourced as string);
    } catch (error) {
      const serviceMessage = error instanceof Error ? error.message : String(error);
      throw new ApiError({
        kind: 'refused',
        method: req.method,
        path: target.url.pathname,
        serviceMessage,
        secrets: target.secrets,
      });
    }
  }

  /** The base URL's path without a trailing slash ('' at the root). */
  private basePath(): string {
    return this.base.pathname.replace(/\/$/, '');
  }

  /** A next-page URL is followed only inside this service's API: the token must never go to another host. */
  private checkedUrl(req: ApiRequest, secrets: string[]): URL {
    const refuse = (why: string) =>
      new ApiError({ kind: 'refused', method: req.method, path: req.path, serviceMessage: why, secrets });
    let url: URL;
    try {
      url = new URL(req.url as string, this.base);
    } catch {
      throw refuse('the next-page URL is not a valid URL');
    }
    const insideApi = [`${this.basePath()}${API_PREFIX}/`, `${this.basePath()}${SCIM_PREFIX}`].some((p) =>
      url.pathname.startsWith(p),
    );
    if (url.origin !== this.base.origin || !insideApi || url.username || url.password) {
      throw refuse(
        `will not send the request to ${url.origin}${url.pathname}: it is outside the service at ${this.baseUrl}`,
      );
    }
    url.hash = '';
    return url;
  }

  private async send(req: ApiRequest, target: Target): Promise<ApiResponse> {
    const path = target.url.pathname;
    const { secrets, timeoutMs } = target;
    const fail = (kind: ApiErrorKind, serviceMessage: string, code?: string) =>
      new ApiError({ kind, method: req.method, path, serviceMessage, code, secrets });
    if (req.signal?.aborted) throw fail('aborted', 'the request was cancelled');
    // The call's deadline cuts this attempt short when it comes before the per-request timeout.
    const untilDeadline = req.deadline === undefined ? Infinity : req.deadline - Date.now();
    const deadlineFirst = untilDeadline < timeoutMs;
    const deadlineMessage = () => `no answer from the service at ${this.baseUrl} before the call's deadline`;
    if (untilDeadline <= 0) throw fail('timeout', deadlineMessage(), DEADLINE_CODE);
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(
      () => {
        timedOut = true;
        controller.abort();
      },
      Math.min(timeoutMs, untilDeadline),
    );
    const onAbort = () => controller.abort();
    req.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const response = await this.dispatcher.request({
        origin: target.url.origin,
        path: `${target.url.pathname}${target.url.search}`,
        method: req.method,
        headers: target.headers,
        body: target.body,
        signal: controller.signal,
        // Our own timer bounds the whole exchange; undici's (300 s by default) must not fire first.
        headersTimeout: timeoutMs + 1_000,
        bodyTimeout: timeoutMs + 1_000,
      });
      this.lastAnswerAt = Date.now();
      const headers = flattenHeaders(response.headers);
      if (response.statusCode >= 400) {
        const body = await response.body.text();
        throw apiErrorFromResponse(
          { status: response.statusCode, statusText: response.statusText, method: req.method, path, headers, body },
          secrets,
        );
      }
      const tooLarge = () =>
        fail(
          'too_large',
          `the answer is larger than ${this.maxResponseBytes} bytes (maxResponseBytes); nothing was kept`,
        );
      if (Number(headers['content-length']) > this.maxResponseBytes) {
        discard(response.body);
        throw tooLarge();
      }
      if (req.tailBytes !== undefined && req.method !== 'HEAD') {
        const tail = await readTail(response.body, Math.min(req.tailBytes, this.maxResponseBytes));
        // A 206 answered the Range: what came before it is the rest of "bytes start-end/total".
        const start =
          response.statusCode === 206 ? Number(/bytes (\d+)-/.exec(headers['content-range'] ?? '')?.[1] ?? 0) : 0;
        return {
          status: response.statusCode,
          headers,
          data: decodeBody(req, tail.bytes),
          droppedBytes: start + tail.dropped,
        };
      }
      const bytes = req.method === 'HEAD' ? Buffer.alloc(0) : await readLimited(response.body, this.maxResponseBytes);
      if (bytes === undefined) throw tooLarge();
      return { status: response.statusCode, headers, data: decodeBody(req, bytes) };
    } catch (error) {
      if (error instanceof ApiError) throw error;
      if (timedOut && deadlineFirst) throw fail('timeout', deadlineMessage(), DEADLINE_CODE);
      if (timedOut) throw fail('timeout', `no answer from the service at ${this.baseUrl} within ${timeoutMs} ms`);
      if (req.signal?.aborted) throw fail('aborted', 'the request was cancelled');
      const code = (error as { code?: unknown }).code;
      const isTimeout = code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT';
      const message = error instanceof Error ? error.message : String(error);
      // Name the service: a bare "connect ECONNREFUSED 127.0.0.1:1" does not say which setting points there.
      throw fail(
        isTimeout ? 'timeout' : 'network',
        `${message} (service at ${this.baseUrl})`,
        typeof code === 'string' ? code : undefined,
      );
    } finally {
      clearTimeout(timer);
      req.signal?.removeEventListener('abort', onAbort);
    }
  }

  private async pause(ms: number, req: ApiRequest, target: Target): Promise<void> {
    const aborted = () =>
      new ApiError({
        kind: 'aborted',
        method: req.method,
        path: target.url.pathname,
        serviceMessage: 'the request was cancelled',
        secrets: target.secrets,
      });
    try {
      await this.retry.sleep(ms, req.signal);
    } catch {
      throw aborted();
    }
    if (req.signal?.aborted) throw aborted();
  }
}

function parseBaseUrl(baseUrl: string): URL {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new Error(`baseUrl '${quotedUrl(baseUrl)}' is not a valid URL (expected e.g. https://code.example.com)`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new Error(`baseUrl '${quotedUrl(baseUrl)}' must start with https:// or http://`);
  }
  if (url.search || url.hash || url.username || url.password) {
    throw new Error(`baseUrl '${url.origin}${url.pathname}' must not carry credentials, a query or a fragment`);
  }
  // A copied API address ('…/api/v4') means the service above it.
  url.pathname = url.pathname.replace(/\/+$/, '').replace(/\/api\/v4$/, '') || '/';
  return url;
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got ${value}`);
  return value;
}

/** Read once, when a client is made, so a later change of the environment cannot redirect requests mid-run. */
function proxyFromEnvironment(): ProxySettings {
  const env = process.env;
  return {
    httpProxy: env.http_proxy || env.HTTP_PROXY || undefined,
    httpsProxy: env.https_proxy || env.HTTPS_PROXY || undefined,
    noProxy: env.no_proxy ?? env.NO_PROXY,
  };
}

/**
 * A connection pool to the code host as the API client makes it (the environment's proxy, the CA file), for what is
 * sent beside the API: the sign-in's OAuth requests (see code-host-fetch.ts).
 */
export function codeHostDispatcher(caFile: string | undefined): Dispatcher {
  return createDispatcher(caFile === undefined ? undefined : readCaFile(caFile), undefined, proxyFromEnvironment());
}

function createDispatcher(ca: string[] | undefined, connections: number | undefined, proxy: ProxySettings): Dispatcher {
  const tls = ca ? { ca } : undefined;
  const common = { connections, connect: tls };
  const { httpProxy, httpsProxy } = proxy;
  if (!httpProxy && !httpsProxy) return new Agent(common);
  return new EnvHttpProxyAgent({
    ...common,
    httpProxy,
    httpsProxy,
    noProxy: proxy.noProxy ?? '',
    requestTls: tls,
    // Plain-http targets are forwarded with an absolute URI, as curl does; many proxies refuse CONNECT to port 80.
    proxyTunnel: false,
  });
}

async function encodeBody(req: ApiRequest, scim: boolean): Promise<{ body?: string | UndiciFormData; type?: string }> {
  if (req.body === undefined) return {};
  if (req.method === 'GET' || req.method === 'HEAD') throw new Error(`a ${req.method} request cannot carry a body`);
  switch (req.bodyType ?? 'json') {
    case 'json':
      return { body: JSON.stringify(req.body), type: scim ? 'application/scim+json' : 'application/json' };
    case 'form':
      return { body: encodeForm(req.body as Record<string, unknown>), type: 'application/x-www-form-urlencoded' };
    case 'multipart': {
      if (Object.prototype.toString.call(req.body) !== '[object FormData]') {
        throw new Error(`bodyType 'multipart' needs a FormData body`);
      }
      // undici 7 encodes only its own FormData, not the one Node's globals come from; it writes the boundary into the type.
      const FormData = await loadFormData();
      if (req.body instanceof FormData) return { body: req.body };
      const form = new FormData();
      for (const [name, value] of (req.body as globalThis.FormData).entries()) form.append(name, value);
      return { body: form };
    }
  }
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

/** Stops reading a body we will not use; undici reports that as an 'error' nobody needs to hear. */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}

/** Reads a body up to `limit` bytes; undefined (and the stream destroyed) when it is larger. */
async function readLimited(body: Dispatcher.ResponseData['body'], limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      discard(body);
      return undefined;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, size);
}

/**
 * Reads a whole body but keeps only its last `limit` bytes: memory stays bounded however large the body is (a log of
 * many megabytes from a service that ignores Range).
 */
async function readTail(
  body: Dispatcher.ResponseData['body'],
  limit: number,
): Promise<{ bytes: Buffer; dropped: number }> {
  const chunks: Buffer[] = [];
  let kept = 0;
  let dropped = 0;
  for await (const chunk of body) {
    chunks.push(chunk as Buffer);
    kept += (chunk as Buffer).length;
    while (kept - chunks[0].length >= limit) {
      const first = chunks.shift() as Buffer;
      kept -= first.length;
      dropped += first.length;
    }
  }
  const whole = Buffer.concat(chunks, kept);
  const extra = Math.max(0, kept - limit);
  return { bytes: whole.subarray(extra), dropped: dropped + extra };
}

function decodeBody(req: ApiRequest, bytes: Buffer): unknown {
  if (req.method === 'HEAD') return null;
  switch (req.responseType ?? 'json') {
    case 'none':
      return null;
    case 'bytes':
      return bytes;
    case 'text':
      return bytes.toString('utf8');
    case 'json': {
      const text = bytes.toString('utf8');
      // Blank answers are null; tested without copying the body as trim() would.
      if (!/\S/.test(text)) return null;
      try {
        return JSON.parse(text);
      } catch {
        // Some 2xx answers are not JSON despite the API's promise; the text is still the answer.
        return text;
      }
    }
  }
}
