// Dry runs: what a call would send and change, built by the executor's own code through a transport that sends nothing.
import { servicePath } from '../http/route.js';
import type { ApiRequest, ApiResponse, ApiTransport } from '../http/types.js';
import { isLongFreeText, secretSummary, summarise } from '../policy/policy.js';
import type { PolicyOptions } from '../policy/policy.js';
import { decideWithFacts, prepareCall } from './call.js';
import type { Effect, Operation, RunContext } from '../operations/engine/define.js';
import { executeOperation } from '../operations/engine/execute.js';
import { explainFailure, type ExplainOptions } from '../operations/engine/failures.js';
import { isSecretName } from '../operations/engine/secrets.js';

/** The argument that asks for a preview instead of the call; only operations that change something take it. */
export const DRY_RUN_KEY = 'dry_run';

/** The request as it would leave: path encoded as sent, credentials and long free text summarised. */
interface RequestPreview {
  method: string;
  /** Relative to the service address, e.g. /api/v4/projects/acme%2Fweb/pipeline. */
  path: string;
  query?: Record<string, unknown>;
  body?: unknown;
  /** How the body is encoded (absent without a body). */
  body_encoding?: 'json' | 'form' | 'multipart';
}

export interface CallPreview {
  dry_run: 'nothing was sent';
  operation: string;
  effect: Effect;
  /** The first request the call sends (an operation of several steps sends more after it). */
  request: RequestPreview;
  /** A composed change's steps, in order (the first request is only the first of them). */
  steps?: string[];
  /** What the call leaves behind and how it is undone (the registry's `undo`). */
  changes?: string;
  /**
   * Whether a real run would first ask a human to approve, and why (left out when the reason is `changes` itself).
   * The fields keep their names: clients read them.
   */
  needs_confirmation: boolean;
  confirm_reason?: string;
}

type DryRunOutcome =
  | { kind: 'preview'; operation: Operation; input: Record<string, unknown>; preview: CallPreview }
  | { kind: 'refused'; operation: Operation; message: string };

/** dry_run read off a tool's arguments: the remaining arguments, or why dry_run itself is wrong. */
type DryRunRequest = { dryRun: boolean; args: unknown } | { error: string };

/**
 * Splits dry_run from a call's arguments (the tools and run_operation pass it there). Only an operation that changes
 * something has a dry run; asking one of a read is answered in words rather than as an unknown parameter.
 */
export function takeDryRun(op: Operation, args: unknown): DryRunRequest {
  if (!args || typeof args !== 'object' || Array.isArray(args) || !(DRY_RUN_KEY in args))
    return { dryRun: false, args };
  const { [DRY_RUN_KEY]: flag, ...rest } = args as Record<string, unknown>;
  if (typeof flag !== 'boolean')
    return { error: `Invalid input for ${op.name}: ${DRY_RUN_KEY}: must be true or false` };
  if (flag && op.effect === 'read') {
    return {
      error: `${op.name} only reads, so there is nothing to preview; call it without ${DRY_RUN_KEY}. Nothing was sent.`,
    };
  }
  return { dryRun: flag, args: rest };
}

/** Thrown by the capturing transport so the operation's code stops at its first request, having sent nothing. */
class NothingSent extends Error {
  constructor() {
    super('dry run: nothing is sent');
  }
}

/** Records the requests an operation makes and answers each by stopping it: no request ever reaches a network. */
function capturingTransport(captured: ApiRequest[]): ApiTransport {
  return {
    async request<T>(req: ApiRequest): Promise<ApiResponse<T>> {
      captured.push(req);
      throw new NothingSent();
    },
  };
}

/**
 * The first request the operation would send for this (validated) input. Built by the executor itself (its route
 * split, or the operation's own run handler), so a preview cannot drift from what a real run sends.
 */
export async function captureRequest(op: Operation, input: Record<string, unknown>): Promise<ApiRequest | undefined> {
  const captured: ApiRequest[] = [];
  try {
    await executeOperation(op, input, { client: capturingTransport(captured) });
  } catch (error) {
    // A handler may catch and rethrow its own way: what matters is whether a request was built. An error before
    // any request (a '..' path value) is the error a real run would end with.
    if (captured.length === 0 && !(error instanceof NothingSent)) throw error;
  }
  return captured[0];
}

/** A value as a preview shows it: credentials by length, long free text by size and hash, the rest as sent. */
function previewValue(key: string, value: unknown, secretKeys: readonly string[]): unknown {
  if (typeof value === 'string') {
    if (value !== '' && (isSecretName(key) || secretKeys.includes(key))) return secretSummary(value);
    return isLongFreeText(key, value) ? summarise(value) : value;
  }
  if (Array.isArray(value)) return value.map((item) => previewValue(key, item, secretKeys));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, previewValue(k, v, secretKeys)]),
    );
  }
  return value;
}

/** A multipart form (an upload) as its fields, each file by name, type and size. */
function previewForm(form: FormData, secretKeys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of form.entries()) {
    out[name] =
      typeof value === 'string'
        ? previewValue(name, value, secretKeys)
        : `<file ${JSON.stringify(value.name)}, ${value.type || 'no type'}, ${value.size} bytes>`;
  }
  return out;
}

function previewBody(req: ApiRequest, secretKeys: readonly string[]): Pick<RequestPreview, 'body' | 'body_encoding'> {
  if (req.body === undefined) return {};
  const encoding = req.bodyType ?? 'json';
  const body =
    req.body instanceof FormData ? previewForm(req.body, secretKeys) : previewValue('', req.body, secretKeys);
  return { body, body_encoding: encoding };
}

function previewRequest(op: Operation, req: ApiRequest): RequestPreview {
  const secretKeys = op.secretInputs ?? [];
  const query = Object.fromEntries(Object.entries(req.query ?? {}).filter(([, value]) => value !== undefined));
  return {
    method: req.method,
    path: req.url ?? servicePath(req.path),
    ...(Object.keys(query).length > 0 ? { query: previewValue('', query, secretKeys) as Record<string, unknown> } : {}),
    ...previewBody(req, secretKeys),
  };
}

/**
 * A dry run of one call, for every front end: the same validation and policy as a real call (bad input and
 * read-only mode are refused alike), then the request it would send and what it would change. Nothing is sent and
 * nobody is asked; whether a real run would ask a human is part of the answer.
 */
export async function dryRunCall(
  op: Operation,
  args: unknown,
  policy: PolicyOptions,
  explain: ExplainOptions,
  lookups?: RunContext,
): Promise<DryRunOutcome> {
  const checked = prepareCall(op, args, policy, explain);
  // Where the service can be read, the facts the decision depends on are read too (and the input pinned), so the
  // preview says what the real call would do; without them it says a human would be asked.
  const prepared =
    lookups && checked.kind !== 'refused'
      ? await decideWithFacts(op, checked.input, policy, explain, lookups)
      : checked;
  if (prepared.kind === 'refused') return prepared;
  const { input } = prepared;
  let req: ApiRequest | undefined;
  try {
    req = await captureRequest(op, input);
  } catch (error) {
    return { kind: 'refused', operation: op, message: explainFailure(op, error, explain) };
  }
  if (!req)
    return {
      kind: 'refused',
      operation: op,
      message: `${op.name} would send no request for this input; nothing was sent.`,
    };
  return {
    kind: 'preview',
    operation: op,
    input,
    preview: {
      dry_run: 'nothing was sent',
      operation: op.name,
      effect: op.effect,
      request: previewRequest(op, req),
      ...(op.steps ? { steps: op.steps(input) } : {}),
      ...(op.undo ? { changes: op.undo } : {}),
      needs_confirmation: prepared.kind === 'approve',
      ...(prepared.kind === 'approve' && prepared.reason !== op.undo ? { confirm_reason: prepared.reason } : {}),
    },
  };
}
