// The chat dispatcher every chat front end shares (terminal now, Slack too): a typed line → parse → policy → run →
// a ChatMessage, or a question for the front end's human; the front end only renders and asks.
import { recordCall } from '../metrics.js';
import { executeCall, prepareCall, prepareCallResolved, type CallOutcome } from '../run/call.js';
import type { Operation, RunContext } from '../operations/engine/define.js';
import { dryRunCall } from '../run/dry-run.js';
import type { ExplainOptions } from '../operations/engine/failures.js';
import { resolvePeople, unresolvedPeople, type Targets } from '../operations/engine/people.js';
import type { Answers, PolicyOptions } from '../policy/policy.js';
import type { ShownText } from '../text/visible.js';
import { errorText, parse, type ParsedCommand } from './grammar.js';
import { chatMessage, type ChatMessage } from './message.js';
import { presentApproval, presentDryRun, presentFailure, presentOutcome, type PresentOptions } from './present.js';
import { triage, type ReadOutcome } from './triage.js';

export interface DispatchContext {
  operations: readonly Operation[];
  /** Which front end this is, for /metrics (default chat: the terminal). */
  front?: 'slack' | 'chat';
  policy: PolicyOptions;
  /**
   * The run context of one call: the client, the asker's own token, a deadline. Given the operation, so reads may use
   * another token. `{ refused }` when this asker may not run it here (not linked, say): a refusal, nothing sent.
   */
  runContext(operation: Operation): RunContextOrRefusal | Promise<RunContextOrRefusal>;
  explain: ExplainOptions;
  /** The conversation's default project (`use`): kept by the front end (in memory, or its store). */
  defaultProject: {
    get(): string | undefined | Promise<string | undefined>;
    set(project: string): void | Promise<void>;
  };
  /** What commands are typed after ("/forge " in Slack, "" in the terminal), for help and usage lines. */
  prefix?: string;
  /** The service's web address, so pasted links are read as references. */
  baseUrl?: string;
  present?: PresentOptions;
  /** Every call that changes something is previewed, never run (`forgeops chat --dry-run`); reads still run. */
  dryRun?: boolean;
}

type RunContextOrRefusal = RunContext | { refused: string };

export type ChatReply =
  /** ok is false for anything that did not do what was asked: a mistake, a refusal, a failed call. */
  | { kind: 'message'; ok: boolean; message: ChatMessage; outcome?: CallOutcome }
  /**
   * The call waits for its human: show `message` (the exact prompt), or the prompt and its two answers in the front
   * end's own widgets, then call `approved(operation, input)` on yes.
   */
  | {
      kind: 'approve';
      operation: Operation;
      input: Record<string, unknown>;
      prompt: ShownText;
      answers: Answers;
      message: ChatMessage;
    };

export interface ChatDispatcher {
  /** One typed line. */
  dispatch(line: string): Promise<ChatReply>;
  /** A call by operation name and raw arguments (a follow-up button): validated and judged like a typed one. */
  call(operation: string, args: Record<string, unknown>): Promise<ChatReply>;
  /** Runs a call its human approved. The policy is asked again (read-only may have been switched on since); nothing else is. */
  approved(operation: Operation | string, input: Record<string, unknown>): Promise<ChatReply>;
  /**
   * This dispatcher, with every call it runs stopped when `signal` aborts (Ctrl+C in the terminal): its requests and
   * waits end, and the reply says what was stopped.
   */
  stoppedBy(signal: AbortSignal): ChatDispatcher;
}

/** A run context whose calls also stop when `signal` aborts. */
function stoppable(run: RunContextOrRefusal, signal: AbortSignal): RunContextOrRefusal {
  if ('refused' in run) return run;
  return { ...run, signal: run.signal ? AbortSignal.any([run.signal, signal]) : signal };
}

/** Whether input the schema refuses names a person by username, which the service may turn into the id it wants. */
function resolvePeopleMayHelp(op: Operation, args: Record<string, unknown>): boolean {
  return unresolvedPeople(op, args).length > 0;
}

function unknownOperation(name: string): ChatReply {
  return reply(presentFailure(`Unknown operation ${name}; nothing was run.`), false);
}

function reply(message: ChatMessage, ok: boolean): ChatReply {
  return { kind: 'message', ok, message };
}

/** The chat's own words (triage, whoami, and what only Slack does), answered through the dispatcher's calls. */
async function answerMeta(
  ctx: DispatchContext,
  parsed: Extract<ParsedCommand, { kind: 'meta' }>,
  via: {
    call: (op: Operation, args: Record<string, unknown>) => Promise<ChatReply>;
    read: (name: string, args: Record<string, unknown>) => Promise<ReadOutcome>;
    byName: ReadonlyMap<string, Operation>;
  },
): Promise<ChatReply> {
  if (parsed.name === 'triage') {
    if (parsed.project === undefined) {
      return reply(
        presentFailure(
          `triage needs a project, e.g. ${ctx.prefix ?? ''}triage acme/web (or set one with ${ctx.prefix ?? ''}use).`,
        ),
        false,
      );
    }
    return {
      kind: 'message',
      ...(await triage(parsed.project, { operations: ctx.operations, read: via.read, present: ctx.present })),
    };
  }
  if (parsed.name === 'whoami') {
    const me = via.byName.get('get_current_user');
    return me ? via.call(me, {}) : unknownOperation('get_current_user');
  }
  if (parsed.name === 'watch' || parsed.name === 'unwatch' || parsed.name === 'watching') {
    return reply(
      chatMessage(`${parsed.name} keeps a Slack channel's watches; it works in Slack only.`, {
        status: 'info',
        notes: ['In the terminal chat, watch <project> follows a branch until Ctrl+C.'],
      }),
      false,
    );
  }
  return reply(
    chatMessage(`${parsed.name} links a Slack account to its own service token; it works in Slack only.`, {
      status: 'info',
      notes: ['Here commands run as the configured token; whoami shows which account that is.'],
    }),
    false,
  );
}

export function createDispatcher(ctx: DispatchContext): ChatDispatcher {
  const byName = new Map(ctx.operations.map((op) => [op.name, op]));
  const grammar = { operations: ctx.operations, prefix: ctx.prefix, baseUrl: ctx.baseUrl };

  function refused(op: Operation, message: string): ChatReply {
    recordCall(ctx.front ?? 'chat', op.name, 'refused', 0);
    return reply(presentFailure(message, `${op.title}: not run`), false);
  }

  async function execute(op: Operation, input: Record<string, unknown>, targets?: Targets): Promise<ChatReply> {
    const run = await ctx.runContext(op);
    if ('refused' in run) return refused(op, run.refused);
    const started = performance.now();
    const outcome = await executeCall(op, input, run, ctx.explain, targets);
    recordCall(ctx.front ?? 'chat', op.name, outcome.ok ? 'ok' : 'failed', (performance.now() - started) / 1000);
    if (!outcome.ok)
      return { kind: 'message', ok: false, message: presentFailure(outcome.message, `${op.title} failed`), outcome };
    return {
      kind: 'message',
      ok: true,
      message: presentOutcome(op, input, outcome.result, { ...ctx.present, outcome: outcome.outcome }),
      outcome,
    };
  }

  /** What the call would send and change, judged like the call itself; nothing is sent and nobody is asked. */
  async function preview(op: Operation, args: Record<string, unknown>): Promise<ChatReply> {
    const run = await ctx.runContext(op);
    if ('refused' in run) return refused(op, run.refused);
    // A name (`@erin`) becomes the id the real call would send: a read, so the preview shows the exact call.
    const resolved = await resolvePeople(op, args, run);
    if (!resolved.ok) return refused(op, resolved.message);
    const outcome = await dryRunCall(op, resolved.input, ctx.policy, ctx.explain, run);
    if (outcome.kind === 'refused') return refused(op, outcome.message);
    const { input, preview: data } = outcome;
    // As a result, so `--json` prints the preview itself.
    return {
      kind: 'message',
      ok: true,
      message: presentDryRun(data, op),
      outcome: { ok: true, operation: op, input, result: { data, status: 0 } },
    };
  }

  async function call(op: Operation, args: Record<string, unknown>, dryRun = ctx.dryRun === true): Promise<ChatReply> {
    if (dryRun && op.effect !== 'read') return preview(op, args);
    // Invalid or refused input is said before anything is sent, the lookups of names included.
    const checked = prepareCall(op, args, ctx.policy, ctx.explain);
    const needsService = checked.kind !== 'refused' || resolvePeopleMayHelp(op, args);
    if (!needsService) return refused(op, (checked as { message: string }).message);
    // Nobody is asked to approve what they could not run: the front end's refusal comes before the question.
    const run = await ctx.runContext(op);
    if ('refused' in run) return refused(op, run.refused);
    const prepared = await prepareCallResolved(op, args, ctx.policy, ctx.explain, run);
    if (prepared.kind === 'refused') return refused(op, prepared.message);
    if (prepared.kind === 'approve') {
      const { input, prompt, answers } = prepared;
      return { kind: 'approve', operation: op, input, prompt, answers, message: presentApproval(prompt, op) };
    }
    return execute(op, prepared.input, prepared.targets);
  }

  /** Triage's reads: the same run path, and a call that would need a human is not a read triage makes. */
  async function read(name: string, args: Record<string, unknown>): Promise<ReadOutcome> {
    const op = byName.get(name);
    if (!op) return { ok: false, message: `${name} is not offered here` };
    const prepared = prepareCall(op, args, ctx.policy, ctx.explain);
    if (prepared.kind === 'refused') return { ok: false, message: prepared.message };
    if (prepared.kind === 'approve') return { ok: false, message: `${name} needs approval` };
    const run = await ctx.runContext(op);
    if ('refused' in run) return { ok: false, message: run.refused };
    const outcome = await executeCall(op, prepared.input, run, ctx.explain);
    return outcome.ok
      ? { ok: true, operation: op, input: prepared.input, result: outcome.result }
      : { ok: false, message: outcome.message };
  }

  async function dispatch(line: string): Promise<ChatReply> {
    const parsed = parse(line, { ...grammar, defaultProject: await ctx.defaultProject.get() });
    switch (parsed.kind) {
      case 'call':
        return call(parsed.operation, parsed.input, parsed.dryRun ?? ctx.dryRun === true);
      case 'help':
        return reply(chatMessage('Help', { status: 'info', sections: [{ text: parsed.text, code: true }] }), true);
      case 'error':
        return reply(presentFailure(errorText(parsed)), false);
      case 'use':
        await ctx.defaultProject.set(parsed.project);
        return reply(
          chatMessage(`Default project: ${parsed.project}`, {
            status: 'info',
            notes: [`Commands that name no project now act on ${parsed.project}.`],
          }),
          true,
        );
      case 'meta':
        return answerMeta(ctx, parsed, { call, read, byName });
    }
  }

  return {
    dispatch,
    async call(name, args) {
      const op = byName.get(name);
      return op ? call(op, args) : unknownOperation(name);
    },
    async approved(operation, input) {
      const op = typeof operation === 'string' ? byName.get(operation) : operation;
      if (!op) return unknownOperation(String(operation));
      const prepared = prepareCall(op, input, ctx.policy, ctx.explain);
      if (prepared.kind === 'refused') return refused(op, prepared.message);
      return execute(op, prepared.input);
    },
    stoppedBy(signal) {
      return createDispatcher({ ...ctx, runContext: async (op) => stoppable(await ctx.runContext(op), signal) });
    },
  };
}
