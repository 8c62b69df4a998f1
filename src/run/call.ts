// One call, the same way for every front end: validate → policy → (the front end asks its human) → execute → outcome.
// The run path sits above both the engine (how an operation is declared and executed) and the policy (whether it may
// run, or must be asked about): neither of those imports it.
import { decide, type Answers, type PolicyOptions } from '../policy/policy.js';
import type { ShownText } from '../text/visible.js';
import type { Operation, OperationResult, RunContext } from '../operations/engine/define.js';
import { executeOperation } from '../operations/engine/execute.js';
import { explainFailure, type ExplainOptions } from '../operations/engine/failures.js';
import {
  commitAfterWrite,
  outcomeSentence,
  targetsBeforeWrite,
  type WriteOutcome,
} from '../operations/engine/outcome.js';
import { readFacts, type FactsReading } from '../operations/engine/effect-facts.js';
import { describeTargets, resolvePeople, type Targets } from '../operations/engine/people.js';
import { redactSecrets } from '../operations/engine/secrets.js';
import { validateInput } from '../operations/engine/validate.js';

/** What may happen to a call before anything is sent. */
type PreparedCall =
  | { kind: 'run'; operation: Operation; input: Record<string, unknown>; targets?: Targets }
  /**
   * A human must approve exactly `prompt` with one of `answers`; the front end asks in its own way (showing the
   * ShownText as it is, adding only its own markup's escaping), then calls executeCall.
   */
  | {
      kind: 'approve';
      operation: Operation;
      input: Record<string, unknown>;
      prompt: ShownText;
      reason: ShownText;
      answers: Answers;
      targets?: Targets;
    }
  /** Invalid input, or not allowed here: `message` says which, and nothing was sent. */
  | { kind: 'refused'; operation: Operation; message: string };

export type CallOutcome =
  /** outcome: for a write, what it did to what, in words (see outcome.ts). */
  | { ok: true; operation: Operation; input: Record<string, unknown>; result: OperationResult; outcome?: WriteOutcome }
  | { ok: false; operation: Operation; input: Record<string, unknown>; message: string; error: unknown };

/** Validates raw arguments with the operation's schema and asks the policy; sends nothing. */
export function prepareCall(
  operation: Operation,
  args: unknown,
  policy: PolicyOptions,
  explain: ExplainOptions,
): PreparedCall {
  let input: Record<string, unknown>;
  try {
    input = validateInput(operation, args) as Record<string, unknown>;
  } catch (error) {
    return { kind: 'refused', operation, message: explainFailure(operation, error, explain) };
  }
  const decision = decide(operation, input, policy);
  if (decision.kind === 'deny') return { kind: 'refused', operation, message: decision.reason };
  if (decision.kind === 'approve')
    return {
      kind: 'approve',
      operation,
      input,
      prompt: decision.prompt,
      reason: decision.reason,
      answers: decision.answers,
    };
  return { kind: 'run', operation, input };
}

/**
 * The policy's decision on validated input, judged with the facts its effect depends on (op.facts), read now from the
 * service, and the input pinned to them where the operation pins (an approval to the head it was shown with). Reads
 * only. A call needing facts that could not be read is asked about (or, when it would be pinned to them, refused).
 */
export async function decideWithFacts(
  operation: Operation,
  input: Record<string, unknown>,
  policy: PolicyOptions,
  explain: ExplainOptions,
  ctx: RunContext,
): Promise<PreparedCall & { facts?: FactsReading }> {
  const facts = await readFacts(operation, input, ctx);
  const pin = facts !== undefined && operation.facts?.pin !== undefined;
  if (pin && !facts.read) {
    return {
      kind: 'refused',
      operation,
      message: `${operation.name} is pinned to ${operation.facts!.what}, which ${facts.why}; nothing was sent.`,
    };
  }
  let judged = input;
  if (pin && facts.read) {
    try {
      judged = validateInput(operation, { ...input, ...operation.facts!.pin!(input, facts.facts) }) as Record<
        string,
        unknown
      >;
    } catch (error) {
      return { kind: 'refused', operation, message: explainFailure(operation, error, explain) };
    }
  }
  const decision = decide(operation, judged, policy, undefined, facts);
  if (decision.kind === 'deny') return { kind: 'refused', operation, message: decision.reason };
  if (decision.kind === 'run') return { kind: 'run', operation, input: judged, facts };
  return {
    kind: 'approve',
    operation,
    input: judged,
    prompt: decision.prompt,
    reason: decision.reason,
    answers: decision.answers,
    facts,
  };
}

/**
 * prepareCall for a front end that can ask the service: people named by username (`@erin`) become their ids first
 * (an unknown or ambiguous name is refused, naming the field and the candidates), the facts a call's effect depends
 * on are read (decideWithFacts), and an approval request names the people, the project or group, the job and the
 * pipeline behind every number it shows. Only reads are sent; nothing when refused.
 */
export async function prepareCallResolved(
  operation: Operation,
  args: unknown,
  policy: PolicyOptions,
  explain: ExplainOptions,
  ctx: RunContext,
): Promise<PreparedCall> {
  const resolved = await resolvePeople(operation, args, ctx);
  if (!resolved.ok) return { kind: 'refused', operation, message: resolved.message };
  // Invalid input and read-only mode are refused before anything else is looked up.
  const checked = prepareCall(operation, resolved.input, policy, explain);
  if (checked.kind === 'refused') return checked;
  const judged = await decideWithFacts(operation, checked.input, policy, explain, ctx);
  if (judged.kind === 'refused') return judged;
  const { facts, ...prepared } = judged;
  if (prepared.kind === 'run') return { ...prepared, targets: resolved.targets };
  const targets = await describeTargets(operation, prepared.input, ctx, resolved.targets, { forQuestion: true });
  // The same decision, now with the names the question shows.
  const decision = decide(operation, prepared.input, policy, targets, facts);
  return decision.kind === 'approve' ? { ...prepared, prompt: decision.prompt, targets } : { ...prepared, targets };
}

/** The operation's reads before its write (answerReads.before); undefined when it has none or they failed. */
async function readBeforeWrite(
  operation: Operation,
  input: Record<string, unknown>,
  ctx: RunContext,
): Promise<unknown> {
  if (operation.effect === 'read' || !operation.answerReads?.before) return undefined;
  try {
    return await operation.answerReads.before(ctx, input);
  } catch {
    return undefined;
  }
}

/** The write's answer completed by its reads after it (answerReads.after); as the service gave it when they fail. */
async function readAfterWrite(
  operation: Operation,
  input: Record<string, unknown>,
  data: unknown,
  before: unknown,
  ctx: RunContext,
): Promise<unknown> {
  if (operation.effect === 'read' || !operation.answerReads) return data;
  try {
    return await operation.answerReads.after(ctx, input, data, before);
  } catch {
    return data;
  }
}

/**
 * Runs a prepared (and, where needed, approved) call; a failure becomes words that name what to do about it.
 * Credentials in an answer (a project's runners_token, an integration's password) are redacted here, on the one
 * path to every front end: a tool result reaches a model, a chat reply may reach a whole channel.
 */
export async function executeCall(
  operation: Operation,
  input: Record<string, unknown>,
  ctx: RunContext,
  explain: ExplainOptions,
  known?: Targets,
): Promise<CallOutcome> {
  // A write's outcome names people and places: looked up (reads, only for numbers) before the write may remove them.
  const targets = operation.effect === 'read' ? undefined : await targetsBeforeWrite(operation, input, ctx, known);
  try {
    const before = await readBeforeWrite(operation, input, ctx);
    const result = await executeOperation(operation, input, ctx);
    const raw = operation.response === 'bytes' || operation.response === 'text';
    const written = await readAfterWrite(operation, input, result.data, before, ctx);
    const data = raw ? result.data : redactSecrets(await commitAfterWrite(operation, input, written, ctx));
    const outcome = targets ? outcomeSentence(operation, input, data, targets) : undefined;
    return { ok: true, operation, input, result: { ...result, data }, ...(outcome ? { outcome } : {}) };
  } catch (error) {
    return { ok: false, operation, input, message: explainFailure(operation, error, explain), error };
  }
}
