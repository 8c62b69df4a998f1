// Starts the sandbox: a node:http server on loopback that answers /api/v4 and /api/scim/v2 from the route
// table, and the OAuth provider's pages and endpoints (/oauth/…) from the web routes, with authentication,
// parameters read as the service reads them, fault injection and a request log.
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Clock, realClock } from '../clock.js';
import { createContext } from './core/context.js';
import { bearerToken, checkScopes, resolveCredential } from './core/credentials.js';
import { HttpError, paramError, scimError, unauthorized, forbidden } from './core/errors.js';
import { FaultInjector, RequestLog } from './faults.js';
import { decodeBracketParams, decodeQueryString, parseParams } from './core/params.js';
import { Reply, Router, type Method, type Route, type SandboxRequest } from './core/router.js';
import { AREAS } from './areas/index.js';
import { type Application, type ApplicationInput, registerApplication } from './areas/oauth/index.js';

export type { Application, ApplicationInput };
import { DEMO_TOKENS } from './core/demo-accounts.js';
import { removeOrphanTempDirs } from './core/seed.js';
import { seed } from './seed.js';
import { Store, type User } from './core/store.js';

export interface SandboxOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /**
   * Ports a picked port must not be (with port 0): the one the process that embeds the sandbox is about to listen
   * on, which the system may hand out until that process binds it.
   */
  avoidPorts?: readonly number[];
  /** Default 127.0.0.1. */
  host?: string;
  /** Where repositories live; default a fresh temporary directory, removed on close. */
  dataDir?: string;
  /** Create the demo users, groups, projects and history (default true). */
  seed?: boolean;
  /**
   * Receives one line per request ("GET /api/v4/projects 200") and one per handler failure. Without it,
   * failures go to stderr and requests are not logged.
   */
  log?: (line: string) => void;
  /**
   * Refuse what the service ignores, with 400: unknown parameters ({"error": "x is not a known parameter"}) and a
   * path parameter repeated in the query or body with another value ("x does not match the path"), for tests
   * that want the refusal. Default false: like the service, the sandbox ignores them and names them in the
   * request log (RequestRecord.unknownParams) and in the log line instead.
   */
  strictParams?: boolean;
  /** The clock the runner and the jobs read; default the real one (tests pass a ManualClock and advance it). */
  clock?: Clock;
  /**
   * Multiplies how long the simulated jobs take (default FORGEOPS_SANDBOX_JOB_TIME_SCALE, else 1: a few seconds
   * a job, a pipeline within a minute; 0.1 is ten times faster).
   */
  jobTimeScale?: number;
  /**
   * OAuth applications to register at start (after the seed), e.g. a client with a fixed, documented client id;
   * their secrets are generated and given back in Sandbox.applications. An invalid one fails the start.
   */
  applications?: readonly ApplicationInput[];
}

/** The job time scale from the environment: a positive number, else 1. */
export function jobTimeScaleFromEnv(value = process.env.FORGEOPS_SANDBOX_JOB_TIME_SCALE): number {
  const scale = Number(value);
  return value !== undefined && value.trim() !== '' && Number.isFinite(scale) && scale > 0 ? scale : 1;
}

export interface Sandbox {
  /** The base_url, e.g. http://127.0.0.1:41234; the API is under /api/v4. */
  url: string;
  tokens: typeof DEMO_TOKENS;
  store: Store;
  faults: FaultInjector;
  requests: RequestLog;
  /** The applications of SandboxOptions.applications, in order, with their client ids and secrets (in-process only). */
  applications: readonly Application[];
  /** Registers one more OAuth application (trusted ones too, which the admin API cannot make). */
  registerApplication(input: ApplicationInput): Application;
  close(): Promise<void>;
}

/** Own data directories are `forgeops-sandbox-<pid>-…`, so that those of a process that died can be found. */
const DATA_DIR_PREFIX = 'forgeops-sandbox-';
const API_PREFIX = '/api/v4';
const SCIM_PREFIX = '/api/scim/v2/';
const MAX_BODY_BYTES = 25 * 1024 * 1024;
const METHODS = new Set<string>(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']);

/** The path a route sees: after /api/v4 for the REST API, the full path for SCIM; null when neither. */
function apiPathOf(rawPath: string): string | null {
  if (rawPath.startsWith(SCIM_PREFIX)) return rawPath;
  if (rawPath !== API_PREFIX && !rawPath.startsWith(`${API_PREFIX}/`)) return null;
  const path = rawPath.slice(API_PREFIX.length) || '/';
  // SCIM routes are written with their full path; /api/v4/api/scim/… must not reach them.
  return path.startsWith('/api/') ? null : path;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, { message: '413 Request Entity Too Large' });
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * Takes the route's own path parameters out of the query and body parameters (clients such as python-gitlab
 * repeat `file_path` in the body of PUT …/files/:file_path): the service reads the path's value, so the repeat
 * is dropped. One with another value than the path's is named in `unknown` (our own operations must not send
 * it), and refused in strict mode. A name the route's schema declares itself is left to the schema.
 */
function dropPathParams(
  input: Record<string, unknown>,
  pathParams: Record<string, string>,
  route: Route,
  strict: boolean,
  unknown: string[],
): Record<string, unknown> {
  const rest = { ...input };
  for (const [name, value] of Object.entries(pathParams)) {
    if (!Object.hasOwn(rest, name) || Object.hasOwn(route.schema.shape, name)) continue;
    const repeated = rest[name];
    delete rest[name];
    if (repeated === null || String(repeated) === value) continue;
    unknown.push(name);
    if (strict) throw paramError(`${name} does not match the path`);
  }
  return rest;
}

/** Body parameters by content type: JSON (also application/scim+json), urlencoded form or multipart form. */
async function bodyParams(req: IncomingMessage, body: Buffer): Promise<Record<string, unknown>> {
  if (body.length === 0) return {};
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type === 'application/json' || type.endsWith('+json')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      throw paramError('body is not valid JSON');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw paramError('body must be a JSON object');
    return parsed as Record<string, unknown>;
  }
  if (type === 'application/x-www-form-urlencoded') return decodeQueryString(body.toString('utf8'));
  if (type === 'multipart/form-data') {
    // undici's Request parses multipart for us; files become { filename, content_type, content }.
    // A body it cannot parse (no boundary, bad framing) is the client's mistake: 400, not a crash.
    const form = await new Request('http://sandbox.invalid/', {
      method: 'POST',
      headers: { 'content-type': req.headers['content-type'] ?? '' },
      body,
    })
      .formData()
      .catch(() => {
        throw paramError('body is not valid multipart/form-data');
      });
    const pairs: Array<[string, unknown]> = [];
    for (const [key, value] of form.entries()) {
      pairs.push([
        key,
        typeof value === 'string'
          ? value
          : { filename: value.name, content_type: value.type, content: Buffer.from(await value.arrayBuffer()) },
      ]);
    }
    return decodeBracketParams(pairs);
  }
  throw new HttpError(415, { error: `content type ${type || '(none)'} is not supported` });
}

function authenticate(
  store: Store,
  req: IncomingMessage,
  route: Route,
): { user: User | null; scimGroupId: number | null } {
  if (route.options.auth === 'none') return { user: null, scimGroupId: null };
  if (route.options.auth === 'scim') {
    const token = bearerToken(req.headers);
    const groupId = token === undefined ? undefined : store.scimTokens.get(token);
    if (groupId === undefined) throw scimError(401, 'Unauthorized');
    return { user: null, scimGroupId: groupId };
  }
  const credential = resolveCredential(store, req.headers);
  if (!credential) {
    if (route.options.auth === 'user' || route.options.auth === 'admin') throw unauthorized();
    return { user: null, scimGroupId: null };
  }
  // As on the service, the token's scopes are checked as it is read, before the account's state.
  checkScopes(credential, route.method, route.options.readScopes);
  const { user } = credential;
  if (user.state === 'blocked') throw forbidden('Your account has been blocked');
  // Before the parameters are read, as on the service: a non-administrator learns nothing of what the route checks.
  if (route.options.auth === 'admin' && !user.is_admin) throw forbidden();
  return { user, scimGroupId: null };
}

/** Answers the sandbox's HTTP requests: a fault when one is set, else the matching route of an area, logged. */
class SandboxHttp {
  /** The listening address, once known: links point there when a request has no Host header. */
  baseUrl = '';

  constructor(
    private readonly store: Store,
    private readonly router: Router,
    private readonly webRouter: Router,
    private readonly faults: FaultInjector,
    private readonly requests: RequestLog,
    private readonly options: SandboxOptions,
    private readonly logFailure: (line: string) => void,
    private readonly logRequests: ((line: string) => void) | undefined,
  ) {}

  /** Links point where the client sent the request (the Host header), falling back to the listening address. */
  private baseUrlFor(req: IncomingMessage): string {
    return req.headers.host ? `http://${req.headers.host}` : this.baseUrl;
  }

  async answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = (req.method ?? 'GET').toUpperCase();
    const target = req.url ?? '/';
    const queryAt = target.indexOf('?');
    const rawPath = queryAt === -1 ? target : target.slice(0, queryAt);
    const rawQuery = queryAt === -1 ? '' : target.slice(queryAt + 1);
    const apiPath = apiPathOf(rawPath);
    let reply = new Reply();
    const logPath = apiPath ?? rawPath;
    const unknownParams: string[] = [];

    const fault = this.faults.take(method, logPath);
    if (fault?.resetConnection) {
      this.requests.record({ method, path: logPath, status: 0, unknownParams });
      req.socket.destroy();
      return;
    }
    try {
      if (fault) {
        reply.status = fault.status;
        reply.body = Buffer.from(fault.body);
        for (const [name, value] of Object.entries(fault.headers)) reply.header(name, value);
      } else {
        await this.route(method, apiPath, rawPath, rawQuery, req, reply, unknownParams);
      }
    } catch (error) {
      // Start over: headers a handler set before failing (pagination, say) do not belong to the error.
      reply = new Reply();
      if (error instanceof HttpError) {
        reply.json(error.body, error.status);
        for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
      } else {
        this.logFailure(
          `sandbox: ${method} ${rawPath} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
        );
        reply.json({ message: '500 Internal Server Error' }, 500);
      }
    }
    this.requests.record({ method, path: logPath, status: reply.status, unknownParams });
    // Someone driving `forgeops sandbox` with their own client sees what was ignored, as the service never says.
    const unknownNote = unknownParams.length > 0 ? ` (unknown parameters: ${unknownParams.join(', ')})` : '';
    this.logRequests?.(`${method} ${rawPath} ${reply.status}${unknownNote}`);
    // A HEAD answer may announce the length of the body a GET would send.
    const length =
      method === 'HEAD' && reply.headers['content-length'] !== undefined
        ? reply.headers['content-length']
        : String(reply.body.length);
    res.writeHead(reply.status, { ...reply.headers, 'content-length': length });
    res.end(reply.body);
  }

  private async route(
    method: string,
    apiPath: string | null,
    rawPath: string,
    rawQuery: string,
    req: IncomingMessage,
    reply: Reply,
    unknownParams: string[],
  ): Promise<void> {
    // Outside /api/v4 and SCIM: the web routes (the OAuth provider), matched on the full path.
    const match = !METHODS.has(method)
      ? ({ kind: 'not_found' } as const)
      : apiPath === null
        ? this.webRouter.match(method, rawPath)
        : this.router.match(method, apiPath);
    if (match.kind === 'not_found') throw new HttpError(404, { error: '404 Not Found' });
    if (match.kind === 'method_not_allowed') {
      throw new HttpError(405, { error: '405 Method Not Allowed' }, { allow: match.allowed.join(', ') });
    }
    const { route: found, pathParams } = match;
    const body = await readBody(req);
    for (const hook of this.store.beforeRequest) hook();
    await this.store.settled();
    const auth = authenticate(this.store, req, found);
    const strict = this.options.strictParams ?? false;
    const sent = { ...decodeQueryString(rawQuery), ...(found.options.rawBody ? {} : await bodyParams(req, body)) };
    const input = dropPathParams(sent, pathParams, found, strict, unknownParams);
    const params = parseParams(found.schema, input, { strict, unknown: unknownParams }) as Record<string, unknown>;
    const { page, per_page, ...routeParams } = params;
    const request: SandboxRequest<unknown> = {
      method: method as Method,
      url: new URL(req.url ?? '/', this.baseUrlFor(req)),
      pathParams,
      params: found.options.pagination ? routeParams : params,
      headers: req.headers,
      user: auth.user,
      scimGroupId: auth.scimGroupId,
      body,
      pagination: { page: (page as number | undefined) ?? 1, per_page: (per_page as number | undefined) ?? 20 },
    };
    await found.handler(request, reply);
    if (!reply.sent) throw new Error(`handler of ${found.method} ${found.pattern} sent no response`);
  }
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const host = options.host ?? '127.0.0.1';
  const ownDataDir = options.dataDir === undefined;
  if (ownDataDir) await removeOrphanTempDirs(DATA_DIR_PREFIX);
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), `${DATA_DIR_PREFIX}${process.pid}-`)));
  // A host that exits without close() (an MCP client closing stdin, process.exit) must not leave the
  // repositories behind; a killed one is swept by the next sandbox to start (removeOrphanTempDirs).
  const removeOnExit = () => rmSync(dataDir, { recursive: true, force: true });
  if (ownDataDir) process.once('exit', removeOnExit);
  const logFailure = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));

  const store = new Store(dataDir, AREAS);
  store.clock = options.clock ?? realClock;
  store.jobTimeScale = options.jobTimeScale ?? jobTimeScaleFromEnv();
  const faults = new FaultInjector();
  const requests = new RequestLog();
  const router = new Router();
  const webRouter = new Router('web');
  const context = createContext(store, logFailure);
  for (const area of AREAS) {
    area.routes(router, context);
    area.webRoutes?.(webRouter, context);
  }

  const http = new SandboxHttp(store, router, webRouter, faults, requests, options, logFailure, options.log);

  const server = createServer(slowClientLimits(), (req, res) => {
    http.answer(req, res).catch((error: unknown) => {
      logFailure(`sandbox: could not answer ${req.method} ${req.url}: ${String(error)}`);
      res.destroy();
    });
  });
  const port = await listenAvoiding(server, host, options.port ?? 0, options.avoidPorts ?? []);
  const baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  http.baseUrl = baseUrl;
  store.baseUrl = baseUrl;

  async function close(): Promise<void> {
    for (const hook of store.onClose) hook();
    await store.settled();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    if (ownDataDir) {
      process.off('exit', removeOnExit);
      await rm(dataDir, { recursive: true, force: true });
    }
  }

  let applications: Application[];
  try {
    if (options.seed ?? true) await seed(store);
    applications = (options.applications ?? []).map((input) => registerApplication(store, input));
  } catch (error) {
    await close();
    throw error;
  }
  return {
    url: baseUrl,
    tokens: DEMO_TOKENS,
    store,
    faults,
    requests,
    applications,
    registerApplication: (input) => registerApplication(store, input),
    close,
  };
}

/** Listens on `port`, or with 0 on a port the system picks that is none of `avoid` (bounded: 16 picks). */
export async function listenAvoiding(
  server: Server,
  host: string,
  port: number,
  avoid: readonly number[],
): Promise<number> {
  for (let pick = 0; pick < 16; pick++) {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const bound = (server.address() as AddressInfo).port;
    if (port !== 0 || !avoid.includes(bound)) return bound;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  throw new Error(`the system kept picking a port the sandbox must not take (${avoid.join(', ')})`);
}

/**
 * The request and header timeouts of the sandbox's listener, from the same variables as forgeops's own listeners
 * (the sandbox shares no code with them): a client sending slowly holds no connection for Node's 300 s.
 */
function slowClientLimits() {
  const read = (name: string, fallback: number) => {
    const value = Number(process.env[name]);
    return Number.isInteger(value) && value > 0 ? value : fallback;
  };
  const requestTimeout = read('FORGEOPS_HTTP_REQUEST_TIMEOUT_MS', 30_000);
  const headersTimeout = Math.min(read('FORGEOPS_HTTP_HEADERS_TIMEOUT_MS', 10_000), requestTimeout);
  return {
    requestTimeout,
    headersTimeout,
    connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(headersTimeout / 4))),
  };
}
