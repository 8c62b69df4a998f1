// One call, the same way for every front end: validate → policy → (the front end asks its human) → execute → outcome.
import { decide, type PolicyOptions } from '../policy/policy.js';
import type { Operation, OperationResult, RunContext } from './define.js';
import { executeOperation } from './execute.js';
import { explainFailure, type ExplainOptions } from './failures.js';
import { redactSecrets } from './secrets.js';
import { validateInput } from './validate.js';

/** What may happen to a call before anything is sent. */
export type PreparedCall =
  | { kind: 'run'; operation: Operation; input: Record<string, unknown> }
  /** A human must approve exactly `prompt`; the front end asks in its own way, then calls executeCall. */
  | { kind: 'confirm'; operation: Operation; input: Record<string, unknown>; prompt: string; reason: string }
  /** Invalid input, or not allowed here: `message` says which, and nothing was sent. */
  | { kind: 'refused'; operation: Operation; message: string };

export type CallOutcome =
  | { ok: true; operation: Operation; input: Record<string, unknown>; result: OperationResult }
  | { ok: false; operation: Operation; input: Record<string, unknown>; message: string; error: unknown };

/** Validates raw arguments with the operation's schema and asks the policy; sends nothing. */
export function prepareCall(operation: Operation, args: unknown, policy: PolicyOptions, explain: ExplainOptions): PreparedCall {
  let input: Record<string, unknown>;
  try {
    input = validateInput(operation, args) as Record<string, unknown>;
  } catch (error) {
    return { kind: 'refused', operation, message: explainFailure(operation, error, explain) };
  }
  const decision = decide(operation, input, policy);
  if (decision.kind === 'deny') return { kind: 'refused', operation, message: decision.reason };
  if (decision.kind === 'confirm') return { kind: 'confirm', operation, input, prompt: decision.prompt, reason: decision.reason };
  return { kind: 'run', operation, input };
}

/**
 * Runs a prepared (and, where needed, confirmed) call; a failure becomes words that name what to do about it.
 * Credentials in an answer (a project's runners_token, an integration's password) are redacted here, on the one
 * path to every front end: a tool result reaches a model, a chat reply may reach a whole channel.
 */
export async function executeCall(operation: Operation, input: Record<string, unknown>, ctx: RunContext, explain: ExplainOptions): Promise<CallOutcome> {
  try {
    const result = await executeOperation(operation, input, ctx);
    const raw = operation.response === 'bytes' || operation.response === 'text';
    return { ok: true, operation, input, result: raw ? result : { ...result, data: redactSecrets(result.data) } };
  } catch (error) {
    return { ok: false, operation, input, message: explainFailure(operation, error, explain), error };
  }
}
