// One tool call of an operation as a chain of small steps: dry run or not, the preview, people lookup and policy,
// approval, execution and the shaped result. Each step takes where the call stands and returns the next stand or
// how the call ended (see metered.ts); the runner drives them and stops the progress reporter whatever happens.
import type { ApiTransport } from '../../http/types.js';
import type { Logger } from '../../log.js';
import { recordApproval } from '../../metrics.js';
import type { ApprovalAnswer, ApprovalCall } from '../../approval/port.js';
import {
  PREMISE_META,
  PREMISE_OPERATION,
  type PremiseResult,
  premiseUnread,
} from '../../operations/composed/premise-call.js';
import { executeCall, prepareCall, prepareCallResolved } from '../../run/call.js';
import type { Operation } from '../../operations/engine/define.js';
import { dryRunCall, takeDryRun } from '../../run/dry-run.js';
import { resolvePeople } from '../../operations/engine/people.js';
import { jsonResult, successResult, textResult, type ToolResult } from '../results.js';
import type { SessionRegistry } from '../service-reads.js';
import type { CallEnding } from './metered.js';
import { type CallExtra, type Progress, progressReporter } from './progress.js';

/** How often a call that is still waiting tells the client so (progress notifications). */
const PROGRESS_HEARTBEAT_MS = 5_000;

type Prepared = Awaited<ReturnType<typeof prepareCallResolved>>;
type NeedsApproval = Extract<Prepared, { kind: 'approve' }>;
type Executed = Extract<Awaited<ReturnType<typeof executeCall>>, { ok: true }>;

/** A human's answer, or (stateless revision) the question to put in the result for the client to answer. */
type AnswerOrQuestion = ApprovalAnswer | { ask: Record<string, unknown> };

/** Asks a human (through the session's or the request's approval channel) about the exact call. */
export type AskApproval = (
  call: ApprovalCall,
  extra: CallExtra,
  onPhase: (text: string) => void,
) => Promise<AnswerOrQuestion>;

/** How one call runs when it is not the plain request-bound call: a task has its own signal, limit and status line. */
export interface CallLimits {
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Told every progress message too (a task's status line). */
  status?: (message: string) => void;
}

/** What the steps need of the server's options. */
export interface CallSettings {
  client: ApiTransport;
  /** This session's own service token, overriding the configured one. */
  token?: string;
  readOnly: boolean;
  callTimeoutMs: number;
  maxResultChars: number;
  downloadDir?: string;
  progressIntervalMs?: number;
}

/** What stays the same through one call's steps. */
export interface CallContext {
  settings: CallSettings;
  op: Operation;
  explain: SessionRegistry['explain'];
  extra: CallExtra;
  limits: CallLimits;
  askApproval: AskApproval;
  log: Logger;
  /** Another operation of this session by name (loading it if need be): the premise check after an approval. */
  operation(name: string): Promise<Operation | undefined>;
}

/** Where a call stands between two steps. */
type CallState =
  | { at: 'requested'; args: unknown }
  | { at: 'previewing'; args: unknown }
  | { at: 'preparing'; args: unknown }
  | { at: 'awaiting_approval'; prepared: NeedsApproval; progress: Progress }
  | { at: 'approved'; prepared: Exclude<Prepared, { kind: 'refused' }>; progress: Progress }
  | { at: 'executed'; executed: Executed; sentAt: number; progress: Progress };

type StateAt<K extends CallState['at']> = Extract<CallState, { at: K }>;
type Step<K extends CallState['at']> = (state: StateAt<K>, call: CallContext) => Promise<CallState | CallEnding>;

/** The reads that name a call's people and places: this session's token, the call's signal, a short deadline. */
function lookupContext({ settings, extra }: CallContext) {
  return {
    client: settings.client,
    token: settings.token,
    signal: extra.signal,
    deadline: Date.now() + settings.callTimeoutMs,
  };
}

const refused = (message: string): CallEnding => ({ kind: 'refused', result: textResult(message, true) });

/** dry_run=true previews the call; a dry_run that is not a boolean, or on a read, is refused. */
export const takeDryRunStep: Step<'requested'> = async ({ args }, { op }) => {
  const requested = takeDryRun(op, args);
  if ('error' in requested) return refused(requested.error);
  return { at: requested.dryRun ? 'previewing' : 'preparing', args: requested.args };
};

/** A dry run: validated and judged like the call, answered with what it would send; nothing is sent, nobody asked. */
export const previewStep: Step<'previewing'> = async ({ args }, call) => {
  const { op, settings, explain } = call;
  // A username (`@erin`) becomes the id the real call would send: a read, so the preview shows the exact call.
  const resolved = await resolvePeople(op, args, lookupContext(call));
  if (!resolved.ok) return refused(resolved.message);
  const outcome = await dryRunCall(op, resolved.input, { readOnly: settings.readOnly }, explain, lookupContext(call));
  if (outcome.kind === 'refused') return refused(outcome.message);
  call.log.debug(`mcp ${op.name}: dry run`);
  return { kind: 'previewed', result: jsonResult({ ...outcome.preview }, settings.maxResultChars) };
};

/** Input, people and policy: refused, run at once, or asked about first. Progress is reported from here on. */
export const prepareStep: Step<'preparing'> = async ({ args }, call) => {
  const { op, settings, explain, extra, limits } = call;
  // The published schema takes ids; a username (`@erin`) is resolved by the service first, as in chat.
  const prepared = await prepareCallResolved(op, args, { readOnly: settings.readOnly }, explain, lookupContext(call));
  if (prepared.kind === 'refused') return refused(prepared.message);
  const progress = progressReporter(extra, settings.progressIntervalMs ?? PROGRESS_HEARTBEAT_MS, limits.status);
  return prepared.kind === 'approve'
    ? { at: 'awaiting_approval', prepared, progress }
    : { at: 'approved', prepared, progress };
};

/** Asks a human about the exact call; a question that times out or loses its client is a no, and nothing is sent. */
export const approvalStep: Step<'awaiting_approval'> = async ({ prepared, progress }, call) => {
  const { op, extra } = call;
  let answer: AnswerOrQuestion;
  try {
    answer = await call.askApproval(
      { operation: op.name, input: prepared.input, prompt: prepared.prompt, answers: prepared.answers },
      extra,
      (text) => progress.phase(text),
    );
  } catch (error) {
    answer = {
      approved: false,
      reason: `No answer came to the approval question (${(error as Error).message}); nothing was changed.`,
      expired: true,
    };
  }
  // A stateless client is asked in the result itself; the call runs when it calls again with the answer.
  if ('ask' in answer) return { kind: 'asked', result: answer.ask as ToolResult };
  recordApproval('mcp', answer.approved ? 'approved' : answer.expired ? 'expired' : 'declined');
  if (!answer.approved) {
    call.log.info(`mcp ${op.name}: not approved`);
    return { kind: 'declined', result: textResult(answer.reason, true) };
  }
  const changed = await premiseChanged(call);
  if (changed !== undefined) {
    call.log.info(`mcp ${op.name}: approved, but what its button stood on changed; not run`);
    return refused(changed);
  }
  progress.phase('waiting for the service');
  return { at: 'approved', prepared, progress };
};

/**
 * A view's button sends what it stood on beside its call (_meta, see PREMISE_META), checked by the view just before
 * the call; a call that waited for a human is checked again once approved, as the caller, since the answer may come
 * minutes later, when the branch is green again. Undefined: nothing was sent, or it still holds; else why nothing runs.
 */
async function premiseChanged(call: CallContext): Promise<string | undefined> {
  const sent = call.extra._meta?.[PREMISE_META];
  if (sent === undefined) return undefined;
  const unread = (why: string) => premiseUnread(new Error(why));
  const check = await call.operation(PREMISE_OPERATION);
  if (!check) return unread(`${PREMISE_OPERATION} is not offered here`);
  const prepared = prepareCall(check, sent, { readOnly: call.settings.readOnly }, call.explain);
  if (prepared.kind !== 'run') return unread(prepared.kind === 'refused' ? prepared.message : 'it needs approval');
  const outcome = await executeCall(check, prepared.input, lookupContext(call), call.explain);
  if (!outcome.ok) return unread(outcome.message);
  const answer = outcome.result.data as PremiseResult;
  return answer.holds ? undefined : answer.said;
}

/** Sends the call, within the call's (or the task's) deadline and signal; a failure is said in words. */
export const executeStep: Step<'approved'> = async ({ prepared, progress }, call) => {
  const { op, settings, extra, limits, explain } = call;
  const sentAt = Date.now();
  const outcome = await executeCall(
    op,
    prepared.input,
    {
      client: settings.client,
      token: settings.token,
      signal: limits.signal ?? extra.signal,
      deadline: sentAt + (limits.timeoutMs ?? settings.callTimeoutMs),
      onProgress: (event) => progress.event(event),
    },
    explain,
    prepared.targets,
  );
  if (!outcome.ok) {
    call.log.info(`mcp ${op.name}: ${outcome.message}`);
    return { kind: 'failed', result: textResult(outcome.message, true) };
  }
  return { at: 'executed', executed: outcome, sentAt, progress };
};

/** The service's answer as the tool result the model reads (sized, saved to a file where it is binary). */
export const shapeResultStep: Step<'executed'> = async ({ executed, sentAt }, call) => {
  const { op, settings, explain } = call;
  // Changes are the operator's audit trail; reads are only worth a line when debugging.
  const line = `mcp ${op.name}: ${executed.result.status} in ${Date.now() - sentAt} ms`;
  if (op.effect === 'read') call.log.debug(line);
  else call.log.info(line);
  const result = await successResult(op, executed.input, executed.result, {
    maxChars: settings.maxResultChars,
    downloadDir: settings.downloadDir,
    operations: explain.operations,
    outcome: executed.outcome,
  });
  return { kind: 'done', result };
};

const STEPS: { [K in CallState['at']]: Step<K> } = {
  requested: takeDryRunStep,
  previewing: previewStep,
  preparing: prepareStep,
  awaiting_approval: approvalStep,
  approved: executeStep,
  executed: shapeResultStep,
};

/** Stands from which a step that throws may already have sent the request. */
const SENDING: ReadonlySet<CallState['at']> = new Set(['approved', 'executed']);

/** Runs one call's steps from its arguments to how it ended. */
export async function runCall(call: CallContext, args: unknown): Promise<CallEnding> {
  let state: CallState = { at: 'requested', args };
  try {
    for (;;) {
      const step = STEPS[state.at] as Step<CallState['at']>;
      const next = await step(state, call);
      if ('kind' in next) return next;
      state = next;
    }
  } catch (error) {
    return { kind: 'threw', error, sent: SENDING.has(state.at) };
  } finally {
    if ('progress' in state) state.progress.stop();
  }
}
