// The sandbox's route table: spec-style patterns matched on raw path segments, declared per-route parameters,
// and the request/reply types handlers work with.
import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import { paramError, recordNotFound } from './errors.js';
import { param } from './params.js';
import type { TokenScope } from './scopes.js';
import type { User } from './store.js';

export type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

interface RouteOptions<S extends z.ZodObject> {
  /**
   * Query and body parameters, merged (body wins). Unknown keys are ignored as by the service but recorded in
   * the request log (refused with strictParams), so declare every parameter the spec lists; use z.strictObject
   * for nested objects so that their unknown keys are found too. Path parameters are not part of it (a client
   * repeating one in the body is served the path's value).
   */
  params?: S;
  /** 'offset' accepts page (≥1, default 1) and per_page (≥1, default 20, capped at 100). */
  pagination?: 'offset';
  /**
   * 'optional' (default): a token (PRIVATE-TOKEN, or a personal or OAuth token as `Authorization: Bearer`) is
   * checked when sent; 'user': a token is required (401 otherwise); 'scim' (the default, and the only choice, for
   * /api/scim/ patterns): an `Authorization: Bearer` SCIM token is required (sets req.scimGroupId); 'admin': an
   * administrator's token (401 without a token, 403 for anyone else), checked before the parameters; 'none': the
   * server reads no credential (the web routes: the OAuth provider reads its own).
   */
  auth?: 'optional' | 'user' | 'admin' | 'scim' | 'none';
  /**
   * Scopes besides api and read_api that let a token read this route (GET and HEAD only), as the service grants
   * them per API: read_user on the users API, read_repository on the repository files API.
   */
  readScopes?: readonly TokenScope[];
  /** The body is the handler's business (req.body); it is not parsed into params. */
  rawBody?: boolean;
}

export interface SandboxRequest<P = Record<string, unknown>> {
  method: Method;
  /** The absolute request URL as the client addressed it (used for Link headers). */
  url: URL;
  /** Decoded path parameters: ':id' of 'group%2Fapp' is 'group/app'; '[.format]' is '' when absent. */
  pathParams: Record<string, string>;
  /** Validated query and body parameters. */
  params: P;
  headers: IncomingHttpHeaders;
  /** The authenticated user, or null for an anonymous request. */
  user: User | null;
  /** On SCIM routes, the group the bearer token provisions. */
  scimGroupId: number | null;
  /** The raw body. */
  body: Buffer;
  /** On routes with pagination: the requested page (1-based) and page size. */
  pagination: { page: number; per_page: number };
}

/** A response being built by a handler; the server writes it once the handler returns. */
export class Reply {
  status = 200;
  readonly headers: Record<string, string> = {};
  body: Buffer = Buffer.alloc(0);
  sent = false;

  header(name: string, value: string): this {
    this.headers[name.toLowerCase()] = value;
    return this;
  }

  json(body: unknown, status = 200): void {
    this.send(status, JSON.stringify(body), this.headers['content-type'] ?? 'application/json');
  }

  send(status: number, body: Buffer | string, contentType: string): void {
    this.status = status;
    this.body = typeof body === 'string' ? Buffer.from(body) : body;
    this.header('content-type', contentType);
    this.sent = true;
  }

  /** A response without a body (204 by default; HEAD answers use 200 with headers). */
  empty(status = 204): void {
    this.status = status;
    this.body = Buffer.alloc(0);
    this.sent = true;
  }
}

export type Handler<P> = (req: SandboxRequest<P>, reply: Reply) => void | Promise<void>;

type Segment =
  | { kind: 'literal'; text: string }
  | { kind: 'param'; name: string }
  /** 'archive[.format]': the literal, optionally followed by '.' and a value captured as the param. */
  | { kind: 'suffix'; text: string; name: string };

const SEGMENT_RANK = { literal: 2, suffix: 1, param: 0 } as const;

export interface Route {
  method: Method;
  pattern: string;
  segments: Segment[];
  schema: z.ZodObject;
  options: RouteOptions<z.ZodObject>;
  handler: Handler<unknown>;
}

type RouteMatch =
  | { kind: 'found'; route: Route; pathParams: Record<string, string> }
  | { kind: 'method_not_allowed'; allowed: Method[] }
  | { kind: 'not_found' };

const paginationShape = {
  page: param
    .integer()
    .refine((n) => n >= 1)
    .optional(),
  per_page: param
    .integer()
    .refine((n) => n >= 1)
    .optional(),
};

function parsePattern(pattern: string): Segment[] {
  return pattern
    .split('/')
    .slice(1)
    .map((part): Segment => {
      if (part.startsWith(':')) return { kind: 'param', name: part.slice(1) };
      const suffix = /^([^[]+)\[\.([a-z_]+)\]$/.exec(part);
      if (suffix) return { kind: 'suffix', text: suffix[1], name: suffix[2] };
      return { kind: 'literal', text: part };
    });
}

function decodeSegment(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

function matchSegments(segments: Segment[], raw: string[]): Record<string, string> | undefined {
  if (segments.length !== raw.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i];
    const value = decodeSegment(raw[i]);
    if (value === undefined) return undefined;
    if (segment.kind === 'literal') {
      if (value !== segment.text) return undefined;
    } else if (segment.kind === 'param') {
      if (value === '') return undefined;
      params[segment.name] = value;
    } else if (value === segment.text) {
      params[segment.name] = '';
    } else if (value.startsWith(`${segment.text}.`) && value.length > segment.text.length + 1) {
      params[segment.name] = value.slice(segment.text.length + 1);
    } else {
      return undefined;
    }
  }
  return params;
}

function compareRank(a: Route, b: Route): number {
  for (let i = 0; i < a.segments.length; i++) {
    const diff = SEGMENT_RANK[b.segments[i].kind] - SEGMENT_RANK[a.segments[i].kind];
    if (diff !== 0) return diff;
  }
  return 0;
}

export class Router {
  private readonly routes: Route[] = [];

  /**
   * 'api' (default): patterns relative to /api/v4, or SCIM's in full. 'web': the paths outside /api (the OAuth
   * provider's pages and endpoints), written in full ('/oauth/token'); their routes read no credential (auth 'none').
   */
  constructor(readonly kind: 'api' | 'web' = 'api') {}

  /**
   * Declares a route. `pattern` is written as in the spec, relative to /api/v4 ('/projects/:id/pipelines'),
   * or absolute for SCIM ('/api/scim/v2/groups/:group_path/Users'). HEAD is never implied by GET.
   */
  // biome-ignore lint/complexity/noBannedTypes: `{}` is the shape of z.object({}), a route that takes no parameters.
  route<S extends z.ZodObject = z.ZodObject<{}>>(
    method: Method,
    pattern: string,
    options: RouteOptions<S>,
    handler: Handler<z.output<S>>,
  ): void {
    if (this.routes.some((r) => r.method === method && r.pattern === pattern)) {
      throw new Error(`route declared twice: ${method} ${pattern}`);
    }
    const scim = pattern.startsWith('/api/scim/');
    if (scim !== (options.auth === 'scim') && options.auth !== undefined) {
      throw new Error(`route ${method} ${pattern}: SCIM routes, and only they, use auth 'scim'`);
    }
    const none = options.auth === 'none' || (this.kind === 'web' && options.auth === undefined);
    if ((this.kind === 'web') !== none) {
      throw new Error(`route ${method} ${pattern}: web routes, and only they, use auth 'none'`);
    }
    const base: z.ZodObject = options.params ?? z.object({});
    // Strict so that zod names unknown keys; parseParams decides whether they are ignored or refused.
    const schema = (options.pagination === 'offset' ? base.extend(paginationShape) : base).strict();
    this.routes.push({
      method,
      pattern,
      segments: parsePattern(pattern),
      schema,
      options: {
        ...(options as RouteOptions<z.ZodObject>),
        auth: options.auth ?? (this.kind === 'web' ? 'none' : scim ? 'scim' : 'optional'),
      },
      handler: handler as Handler<unknown>,
    });
  }

  /** Every declared route, e.g. for a coverage check against the endpoint list. */
  list(): Array<{ method: Method; pattern: string }> {
    return this.routes.map(({ method, pattern }) => ({ method, pattern }));
  }

  /** Finds the route for a raw (percent-encoded) path; literal segments win over parameters. */
  match(method: string, rawPath: string): RouteMatch {
    const raw = rawPath.split('/').slice(1);
    const candidates: Array<{ route: Route; pathParams: Record<string, string> }> = [];
    for (const route of this.routes) {
      const pathParams = matchSegments(route.segments, raw);
      if (pathParams) candidates.push({ route, pathParams });
    }
    if (candidates.length === 0) return { kind: 'not_found' };
    const sameMethod = candidates
      .filter((c) => c.route.method === method)
      .sort((a, b) => compareRank(a.route, b.route));
    if (sameMethod.length === 0) {
      return { kind: 'method_not_allowed', allowed: [...new Set(candidates.map((c) => c.route.method))] };
    }
    return { kind: 'found', ...sameMethod[0] };
  }
}

/** The options of an offset-paged list that needs a token: `router.route('GET', pattern, signedInList(params), …)`. */
export function signedInList<S extends z.ZodObject>(params: S): RouteOptions<S> {
  return { params, pagination: 'offset', auth: 'user' };
}

/** A path parameter that must be a positive integer (':pipeline_id'); otherwise 400 naming it. */
export function integerPathParam(req: SandboxRequest<unknown>, name: string): number {
  const value = req.pathParams[name];
  if (value === undefined || !/^\d+$/.test(value)) throw paramError(`${name} does not have a valid value`);
  return Number(value);
}

/**
 * The record of `records` whose id is the path parameter `name` (and that `belongs`, e.g. to the path's project),
 * or the service's 404: a record of another project is as unknown as one that never was.
 */
export function pathRecord<T extends { id: number }>(
  req: SandboxRequest<unknown>,
  name: string,
  records: readonly T[],
  belongs: (record: T) => boolean = () => true,
): T {
  const id = integerPathParam(req, name);
  const record = records.find((candidate) => candidate.id === id && belongs(candidate));
  if (!record) throw recordNotFound();
  return record;
}

/** One area's route registrations in order, as the single `register` its index calls. */
export function registerAll<Context>(
  ...parts: Array<(router: Router, ctx: Context) => void>
): (router: Router, ctx: Context) => void {
  return (router, ctx) => {
    for (const part of parts) part(router, ctx);
  };
}
