// The Operation type and defineOperation(): one API action, declared once, from which every front end derives.
import { z } from 'zod';
import type { ApiTransport, HttpMethod, PageInfo, Pagination, ProgressEvent } from '../../http/types.js';
import type { Area } from './area-names.js';

// Request-level types belong to the generic client; the registry speaks them too.
export type { HttpMethod, PageInfo, Pagination } from '../../http/types.js';

export type Effect = 'read' | 'write' | 'destructive';

export { AREAS, type Area } from './area-names.js';

/**
 * How the service's answer is read:
 * json (default), headers (HEAD: the X-Svc-* metadata), text (raw file content), bytes (archives, raw blobs),
 * none (no body worth reading, e.g. a 204).
 */
type ResponseKind = 'json' | 'headers' | 'text' | 'bytes' | 'none';

/** What running an operation gives every front end. */
export interface OperationResult {
  /** The service's data, passed through (never reshaped beyond what `response` says). */
  data: unknown;
  status: number;
  /** Credentials shown unmasked because the caller asked (reveal) and a human approved: for the asker's eyes only. */
  revealed?: boolean;
  /** Present for paginated lists. */
  page?: PageInfo;
  /** For text and bytes responses: what the service said the content is. */
  contentType?: string;
  fileName?: string;
}

export interface RunContext {
  client: ApiTransport;
  signal?: AbortSignal;
  /** A per-caller service token (e.g. an MCP session's own) overriding the configured one. */
  token?: string;
  /** When the whole call must be over (epoch ms), retries and pages included. */
  deadline?: number;
  /** Told of retries and pages as they happen. */
  onProgress?: (event: ProgressEvent) => void;
}

/** A suggested next step shown under a result in chat (e.g. Retry on a failed pipeline). */
export interface FollowUp {
  label: string;
  operation: string;
  input: Record<string, unknown>;
  style?: 'primary' | 'danger';
  /** The list row (its field's label) this step is about: Slack puts its button on that row. */
  row?: string;
}

export interface Presentation {
  title: string;
  fields?: Array<[string, string]>;
  /** Longer text under the fields, e.g. a job log's lines (code: shown as a block, never re-flowed). */
  sections?: Array<{ title?: string; text: string; code?: boolean; tail?: boolean }>;
  actions?: FollowUp[];
}

/**
 * A rule the spec states in prose about several inputs together, checked after the schema (a JSON Schema per key
 * cannot say it) and recorded in the spec audit table (test/data/spec-rules.tsv):
 * - one_of: at least one of the keys is given (a boolean flag counts only when true);
 * - at_most_one: no two of the keys are given together;
 * - requires: the first key, when given, needs every other key too.
 */
export interface InputRule {
  kind: 'one_of' | 'at_most_one' | 'requires';
  keys: readonly string[];
}

/**
 * What the service holds now that decides a call's effect, where the input alone cannot (the rules a new branch
 * protection joins, whether the job a retry starts is a manual gate, whether an issue is confidential now). Read
 * before the policy decides — reads only — and given to `needsApproval` and `refuse`. When they were needed and could not
 * be read (a lookup failed, or a path that asks the service nothing), the policy asks a human: it never runs unasked.
 */
export interface EffectFacts<I, F> {
  /** What is read, in words, for the question asked when it could not be: 'the project\'s protected branches'. */
  what: string;
  /** Whether this input's effect depends on the facts at all (default: always); when not, nothing is read. */
  needed?(input: I): boolean;
  read(ctx: RunContext, input: I): Promise<F>;
  /** Why the call cannot do what it asks, said before anyone is asked (access inherited from a group). */
  refuse?(input: I, facts: F): string | undefined;
  /**
   * Input keys set from the facts (validated again with the schema), so that what runs is what was shown: an approval
   * pinned to the head sha it was shown with. Without the facts such a call is refused: it would act on whatever the
   * service holds by then.
   */
  pin?(input: I, facts: F): Record<string, unknown>;
}

interface OperationSpec<S extends z.ZodObject, F = never> {
  /** MCP tool name: snake_case verb_noun. */
  name: string;
  /** Words typed in chat: "pipeline retry". */
  chat: string;
  /**
   * Input keys the chat takes as values without a key after the path parameters, for an operation whose route does
   * not name its target (a composed one's route is only its first request): `environment rollback acme/web production`.
   */
  chatValues?: readonly string[];
  area: Area;
  title: string;
  description: string;
  /** Method and path template as written in endpoints.tsv, e.g. 'POST /projects/:id/pipelines/:pipeline_id/retry'. */
  route: string;
  /**
   * For an operation beyond the spec's endpoints: where the same service's public REST docs (v4) describe it,
   * e.g. 'Jobs API: Get a log file'. Such an operation is marked outside the spec in `forgeops ops` and the README,
   * and follows those docs with the same care (sandbox route, contract test, policy decision).
   */
  outsideSpec?: string;
  input: S;
  effect: Effect;
  /**
   * Only an administrator of the service may call it (its docs say "Administrators only", and so does its
   * description): a 403 then says it needs an administrator, not a higher role in a project.
   */
  adminOnly?: boolean;
  /**
   * Safe to send twice. Defaults to true for reads, false otherwise (a repeated PUT here can make a second commit).
   * Never true for a call a human may have to approve: what they approved runs once, or not at all.
   */
  idempotent?: boolean;
  /**
   * The safety decision for every change, and for a read that may ask a human: what the call leaves behind and how,
   * if at all, it is undone, e.g. "The file stays in the branch's history; a revert brings it back.". For a
   * destructive operation it is the reason shown to the human who approves; for a write, the record of why
   * no approval is needed.
   */
  undo?: string;
  /**
   * For writes that are dangerous only for some inputs (a commit that deletes files, a forced commit): the reason
   * a human must approve this input, or undefined when it can run at once. The approval request also shows every
   * argument of the call, so the reason need not repeat them.
   */
  needsApproval?(input: z.infer<S>, facts?: F): string | undefined;
  /**
   * needsApproval gives a reason for every input and every facts (a rollback, an approval of a deployment): help and
   * docs then say the call always asks, not that it may.
   */
  alwaysAsks?: boolean;
  /**
   * What to read from the service before deciding, for a call whose effect depends on more than its input; needsApproval
   * then gets the facts (undefined when not needed, or not read: the policy then asks, saying so).
   */
  facts?: EffectFacts<z.infer<S>, F>;
  /**
   * Input keys whose values are credentials whatever their name says (a CI variable's `value`): an approval request
   * shows only their length, and the chat audit log records them redacted. Names secrets.ts knows need no entry.
   */
  secretInputs?: readonly string[];
  /**
   * An open object input whose keys are sent as top-level parameters, as the service reads them (`webhook`, not
   * `settings[webhook]`): one declared key instead of a hundred keeps the tool small.
   */
  spreadInput?: string;
  /**
   * How credentials are hidden in this operation's answers before anyone sees them, the executor's own callers
   * included (integration settings, CI variables). Every front end also redacts credential-named fields generally.
   */
  redact?: (data: unknown, input: Record<string, unknown>) => unknown;
  /** Cross-field rules the spec states in prose; validateInput enforces them, naming the fields. */
  rules?: readonly InputRule[];
  /** Lists: adds page/per_page (and the all-pages controls) to the input. */
  pagination?: Pagination;
  response?: ResponseKind;
  /** Non-path input keys that go in the query string even on POST/PUT/DELETE. */
  queryKeys?: readonly string[];
  /** How the body is encoded on POST/PUT/PATCH/DELETE. */
  body?: 'json' | 'form';
  present?: (data: unknown, input: z.infer<S>) => Presentation;
  /**
   * Lists: the next steps for one item of the list (Retry beside a failed pipeline), shown beside its row where the
   * front end can (a button on the row in Slack).
   */
  rowActions?: (item: Record<string, unknown>, input: z.infer<S>) => FollowUp[];
  /**
   * A composed operation (waiting for a pipeline) has no endpoint of its own: the operations whose requests it
   * repeats or combines. Its `route` is the one of them it sends, and its `run` does the composing.
   */
  composedOf?: readonly string[];
  /**
   * A composed change's steps in words, from its (pinned) input: a dry run shows them beside the first request, which
   * alone would not name everything the call makes.
   */
  steps?: (input: z.infer<S>) => string[];
  /**
   * Waits on the service (for a pipeline to finish) for longer than a call should hold a request open: MCP offers
   * it as a task where the client supports tasks.
   */
  longRunning?: boolean;
  /**
   * Reads around a write that complete its readable answer (the jobs a retry re-queued, the pipeline a revert
   * started): `before` just before the write is sent, `after` once it succeeded, with what `before` read. The write
   * itself is sent once, as its route says; a read that fails leaves the answer as the service gave it. Run on the one
   * path every front end takes (executeCall), not by executeOperation.
   */
  answerReads?: {
    before?(ctx: RunContext, input: z.infer<S>): Promise<unknown>;
    after(ctx: RunContext, input: z.infer<S>, data: unknown, before: unknown): Promise<unknown>;
  };
  /**
   * Reads: the input a person would give on the sandbox's demo data, for the richest answer the read gives (stats,
   * details). test/contract/readable-answers.test.ts runs each through the chat and wants words back, not JSON; a read
   * without one fails there. Plain data, never sent anywhere by forgeops itself; a value only known once the sandbox
   * runs (an id it hands out) is a `demoLookup`.
   */
  examples?: readonly OperationExample[];
  /**
   * Changes: inputs that run at once and inputs a human must approve, proven by test/safety/change-decisions.test.ts
   * against the policy. Every change declares them (a destructive or always-asking one has no `runs`).
   */
  decisions?: Decisions;
  /** Escape hatch for operations that need more than one request or a special response. */
  run?: (ctx: RunContext, input: z.infer<S>) => Promise<OperationResult>;
}

/** One demo input of a read: see OperationSpec.examples. */
export interface OperationExample {
  input: Record<string, unknown>;
}

/** The recorded safety decision of a change: see OperationSpec.decisions. */
export interface Decisions {
  runs: readonly Record<string, unknown>[];
  asks: readonly Record<string, unknown>[];
}

/**
 * Decisions whose cases all act on one item: `base` (its ids, e.g. `{ id: 'acme/web', merge_request_iid: 1 }`) is
 * spread into every case, so each case names only what it changes and the recorded inputs stay exactly as written out.
 */
export function casesOn(base: Record<string, unknown>, cases: Decisions): Decisions {
  const onBase = (changes: Record<string, unknown>) => ({ ...base, ...changes });
  return { runs: cases.runs.map(onBase), asks: cases.asks.map(onBase) };
}

/**
 * A demo input's value only known once the sandbox runs: the `field` (default `id`) of the first item a GET of `path`
 * lists. `:key` in the path is the example's own (already resolved) input value, URL-encoded; `items` names the key
 * holding the list when the answer is an object (SCIM's `Resources`); `where` keeps only items with these values.
 * Plain data: the tests resolve it (test/helpers/demo-input.ts).
 */
export interface DemoLookup {
  demoLookup: {
    path: string;
    field?: string;
    query?: Record<string, string>;
    items?: string;
    where?: Record<string, unknown>;
  };
}

export function demoLookup(path: string, options: Omit<DemoLookup['demoLookup'], 'path'> = {}): DemoLookup {
  return { demoLookup: { path, ...options } };
}

/**
 * An operation's route without its schemas: enough to relate operations to each other (the read that checks a
 * change, the read of one item of a list), and small enough for the tool catalog built into the bundle.
 */
export type OperationRoute = Pick<Operation, 'name' | 'method' | 'path' | 'pathParams' | 'response' | 'composedOf'>;

/** F: the facts the operation reads before the policy decides (any in the registry: each operation's are its own). */
export interface Operation<S extends z.ZodObject = z.ZodObject, F = any> extends OperationSpec<S, F> {
  method: HttpMethod;
  path: string;
  idempotent: boolean;
  response: ResponseKind;
  /** Names of the path parameters in `path`, in order (e.g. ['id', 'pipeline_id']). */
  pathParams: readonly string[];
}

const METHODS: readonly HttpMethod[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
const NAME_PATTERN = /^[a-z][a-z0-9]*(_[a-z0-9]+)+$/;

/** Input keys forgeops itself understands for lists; never sent to the service as such. */
export const PAGINATION_CONTROL_KEYS = ['all_pages', 'max_items'] as const;

/**
 * Input keys forgeops itself understands and never sends: the paging controls, and `reveal`, which asks for a
 * masked credential (a CI variable's value) unmasked, after a human approves.
 */
export const CONTROL_KEYS = [...PAGINATION_CONTROL_KEYS, 'reveal'] as const;

/** The paging inputs of a list; described once, in the MCP server's instructions, not on every list tool. */
export const PAGE_INPUT_KEYS = ['page', 'per_page', ...PAGINATION_CONTROL_KEYS] as const;

const offsetPageShape = {
  page: z.number().int().min(1).optional().describe('Page, from 1.'),
  // The spec states no maximum (conventions: default 20; page and per_page restrict); a service may return fewer.
  per_page: z.number().int().min(1).optional().describe('Default 20.'),
  all_pages: z.boolean().optional().describe('Read on through the pages, up to max_items.'),
  max_items: z.number().int().min(1).max(10_000).optional().describe('Default 500.'),
};

const keysetPageShape = {
  per_page: offsetPageShape.per_page,
  all_pages: offsetPageShape.all_pages,
  max_items: offsetPageShape.max_items,
};

/** Path parameters of a template: ':name' segments and an optional '[.name]' suffix. */
export function pathParamNames(path: string): string[] {
  const names = [...path.matchAll(/:([a-z_]+)/g)].map((m) => m[1]);
  const suffix = /\[\.([a-z_]+)\]$/.exec(path);
  if (suffix) names.push(suffix[1]);
  return names;
}

/**
 * Longest value forgeops puts in a URL (a path segment or a query value). Nothing the service stores has a longer
 * name, and a longer URL breaks proxies and servers (8 KiB request lines are common) with errors that name nothing.
 */
export const MAX_URL_VALUE_CHARS = 2048;

const BODY_METHODS: readonly HttpMethod[] = ['POST', 'PUT', 'PATCH', 'DELETE'];

/** The input keys that travel in the URL: path parameters, and every other key too unless the method has a body. */
function urlKeys(
  method: HttpMethod,
  pathParams: readonly string[],
  spec: { input: z.ZodObject; queryKeys?: readonly string[] },
): Set<string> {
  if (!BODY_METHODS.includes(method)) return new Set(Object.keys(spec.input.shape));
  return new Set([...pathParams, ...(spec.queryKeys ?? [])]);
}

/** The same schema with MAX_URL_VALUE_CHARS on its strings (also inside unions, optionals and arrays), so the JSON Schema says so too. */
function capString(schema: z.ZodType): z.ZodType {
  const description = schema.description;
  let capped: z.ZodType = schema;
  // clone() keeps each wrapper's own checks (an array's minimum length); only the strings inside change.
  if (schema instanceof z.ZodString) capped = schema.max(MAX_URL_VALUE_CHARS);
  else if (schema instanceof z.ZodOptional)
    capped = schema.clone({ ...schema.def, innerType: capString(schema.unwrap() as z.ZodType) });
  else if (schema instanceof z.ZodUnion)
    capped = schema.clone({ ...schema.def, options: (schema.options as z.ZodType[]).map(capString) });
  else if (schema instanceof z.ZodArray)
    capped = schema.clone({ ...schema.def, element: capString(schema.element as z.ZodType) });
  return description !== undefined && capped.description !== description ? capped.describe(description) : capped;
}

function capUrlValues(input: z.ZodObject, keys: Set<string>): z.ZodObject {
  const shape = input.shape as Record<string, z.ZodType>;
  const capped = Object.fromEntries(
    Object.entries(shape).map(([key, schema]) => [key, keys.has(key) ? capString(schema) : schema]),
  );
  return input.extend(capped);
}

export function defineOperation<S extends z.ZodObject, F = never>(spec: OperationSpec<S, F>): Operation<S, F> {
  const [method, path, ...rest] = spec.route.trim().split(/\s+/);
  if (!METHODS.includes(method as HttpMethod) || !path?.startsWith('/') || rest.length > 0) {
    throw new Error(`operation ${spec.name}: route must be 'METHOD /path', got '${spec.route}'`);
  }
  if (!NAME_PATTERN.test(spec.name)) throw new Error(`operation ${spec.name}: name must be snake_case verb_noun`);
  if (spec.effect !== 'read' && !spec.undo?.trim()) {
    throw new Error(
      `operation ${spec.name}: a ${spec.effect} operation must say in 'undo' what it leaves behind and how it is undone`,
    );
  }
  if (spec.effect === 'read' && spec.needsApproval && !spec.undo?.trim()) {
    throw new Error(`operation ${spec.name}: a read that may ask a human must record why in 'undo'`);
  }
  if (spec.composedOf && !spec.run)
    throw new Error(`operation ${spec.name}: a composed operation needs a run that composes it`);
  if (spec.longRunning && spec.effect !== 'read') {
    // It may run as an MCP task, in the background: there no human can be asked to approve a change.
    throw new Error(`operation ${spec.name}: only a read may be long-running`);
  }
  if (spec.facts && spec.effect === 'read')
    throw new Error(`operation ${spec.name}: a read runs at once; it has no effect facts to judge`);
  if (spec.idempotent && (spec.effect === 'destructive' || spec.needsApproval || spec.facts)) {
    // A retried approved call could run twice what the human approved once, or report its own success as a 404.
    throw new Error(`operation ${spec.name}: a call that may need a human's approval must not be marked idempotent`);
  }
  const pathParams = pathParamNames(path);
  const shape = spec.input.shape as Record<string, unknown>;
  for (const p of pathParams) {
    if (!(p in shape)) throw new Error(`operation ${spec.name}: input lacks path parameter '${p}'`);
  }
  if (spec.alwaysAsks && !spec.needsApproval)
    throw new Error(`operation ${spec.name}: alwaysAsks needs the needsApproval that words the question`);
  for (const key of spec.chatValues ?? []) {
    if (!(key in shape) || pathParams.includes(key))
      throw new Error(`operation ${spec.name}: chat value '${key}' is not an input key outside the path`);
  }
  for (const rule of spec.rules ?? []) {
    const unknown = rule.keys.filter((key) => !(key in shape));
    if (rule.keys.length < 2 || unknown.length > 0) {
      throw new Error(
        `operation ${spec.name}: rule ${rule.kind} needs two or more of its own input keys (unknown: ${unknown.join(', ') || 'none'})`,
      );
    }
  }
  // The published schema is built when first asked for: a server that runs one operation builds one, not
  // one per operation in the registry.
  let input: S | undefined;
  const buildInput = (): S => {
    let built = capUrlValues(spec.input, urlKeys(method as HttpMethod, pathParams, spec)) as S;
    if (spec.pagination === 'offset') built = built.extend(offsetPageShape) as unknown as S;
    if (spec.pagination === 'keyset') built = built.extend(keysetPageShape) as unknown as S;
    // Strict: an unknown (e.g. misspelt) key is an error, never silently dropped; the JSON Schema says so too.
    return built.strict() as unknown as S;
  };
  return {
    ...spec,
    get input() {
      return (input ??= buildInput());
    },
    method: method as HttpMethod,
    path,
    pathParams,
    idempotent: spec.idempotent ?? spec.effect === 'read',
    response: spec.response ?? (method === 'HEAD' ? 'headers' : 'json'),
  };
}

/**
 * What the python-gitlab and gitbeaker interop suites (test/interop/) do not drive yet, of an area's operations beyond
 * the spec: each such operation must be answered with success there, or be named here; one named here that is driven
 * fails those suites too, so the lists only shrink.
 */
export interface AreaInterop {
  notYetDriven?: { pythonGitlab?: readonly string[]; gitbeaker?: readonly string[] };
}

/** An API area, declared once in its module (src/operations/areas/<file>.ts): its name and every operation of it. */
export interface AreaDefinition {
  name: Area;
  /** In the order tools, help and docs list them. */
  operations: readonly Operation[];
  interop?: AreaInterop;
}

/**
 * The one value an area module exports (`export const area = defineArea({...})`): tools/gen-areas.mjs finds it there
 * and derives the area names, the registry's imports and `forgeops mcp`'s lazy loaders from it.
 */
export function defineArea(definition: AreaDefinition): AreaDefinition {
  const names = new Set(definition.operations.map((op) => op.name));
  for (const op of definition.operations) {
    if (op.area !== definition.name)
      throw new Error(`area ${definition.name}: operation ${op.name} says it belongs to area ${op.area}`);
  }
  const named = Object.values(definition.interop?.notYetDriven ?? {}).flat();
  for (const name of named) {
    if (!names.has(name))
      throw new Error(`area ${definition.name}: interop names ${name}, not an operation of the area`);
  }
  return definition;
}

/** What a project `id` is; the MCP server says it once in its instructions instead of on every tool. */
export const PROJECT_ID_DESCRIPTION = 'Project ID or full path.';

/** Shared input fields, so every operation describes them the same way. */
export const fields = {
  projectId: () => z.union([z.number().int().positive(), z.string().min(1)]).describe(PROJECT_ID_DESCRIPTION),
  groupId: () => z.union([z.number().int().positive(), z.string().min(1)]).describe('Group ID or path.'),
  ref: (what = 'Branch, tag or commit SHA.') => z.string().min(1).describe(what),
  sha: () => z.string().min(1).describe('Commit SHA, branch or tag.'),
  /**
   * ISO 8601 date-time, kept as the string the caller gave. The MCP server's instructions say ISO 8601 once
   * (SHARED_INPUTS_NOTE); a name such as created_after or since needs no text, others say what the time means.
   */
  dateTime: (what?: string) => (what === undefined ? z.string().min(1) : z.string().min(1).describe(`${what}.`)),
};
