// The meta tools: find operations by words, describe one, run one — every operation through three small tools,
// with the same validation, policy and approvals as the operation's own tool.
import type { Operation } from '../operations/engine/define.js';
import { findOperations } from '../operations/engine/search.js';
import { readOnlyRefusal } from '../policy/policy.js';
import { closest } from '../text/suggest.js';
import { toolDescriptor } from './tools.js';
import { DEFAULT_FIND_RESULTS, MAX_FIND_RESULTS, META_TOOLS } from './meta-tools.js';
import { textResult, type ToolResult } from './results.js';

export { META_TOOLS };

/** What calling an operation means to the server: validation, policy, approval, execution, result. */
type CallOperation = (op: Operation, args: unknown) => Promise<ToolResult>;

export interface MetaContext {
  /** Every operation this server may run (read-only mode has already removed the writes). */
  usable: readonly Operation[];
  /** Every operation of the registry, to tell "changes data" from "unknown". */
  all: readonly Operation[];
  readOnly: boolean;
  callOperation: CallOperation;
}

/** The first sentence: a full stop that ends one, not the one of an abbreviation ("e.g.", "i.e.", "etc."). */
export function firstSentence(text: string): string {
  const end = text.search(/(?<!\b(?:e\.g|i\.e|etc|vs|cf))\.(\s|$)/);
  return end < 0 ? text : text.slice(0, end + 1);
}

/** An argument object as sent, or a sentence naming what is wrong with it. */
function readArgs(args: unknown): Record<string, unknown> | string {
  if (args === undefined) return {};
  if (!args || typeof args !== 'object' || Array.isArray(args)) return 'arguments must be an object of named values';
  return args as Record<string, unknown>;
}

/** The operation a meta call names, or the error result explaining why there is none. */
function lookUp(ctx: MetaContext, name: unknown): { op: Operation } | { error: ToolResult } {
  if (typeof name !== 'string' || name === '')
    return { error: textResult('name is required: an operation name from find_operations.', true) };
  const op = ctx.usable.find((o) => o.name === name);
  if (op) return { op };
  const write = ctx.all.find((o) => o.name === name);
  const refusal = write && readOnlyRefusal(write, { readOnly: ctx.readOnly });
  if (refusal) return { error: textResult(refusal, true) };
  const near = closest(
    name,
    ctx.usable.map((o) => o.name),
  );
  return {
    error: textResult(
      `Unknown operation ${name}.${near.length ? ` Did you mean ${near.join(', ')}?` : ''} ` +
        'find_operations searches them by words.',
      true,
    ),
  };
}

/** Whether every call of the operation asks a human: destructive, or a needsApproval() that holds for any input. */
function alwaysAsks(op: Operation): boolean {
  if (op.effect === 'destructive') return true;
  if (!op.needsApproval) return false;
  // A needsApproval() that takes no input gives its reason whatever the input (cancel_pipeline).
  return op.needsApproval.length === 0;
}

export function effectNote(op: Operation): string {
  if (op.effect === 'read') return op.needsApproval ? 'read: some inputs need a human to approve' : 'read';
  if (op.effect === 'destructive') return 'destructive: a human approves the exact call';
  if (alwaysAsks(op)) return 'write: a human always approves the exact call';
  return op.needsApproval ? 'write: some inputs need a human to approve' : 'write';
}

function find(ctx: MetaContext, args: Record<string, unknown>): ToolResult {
  const { query, limit } = args;
  if (typeof query !== 'string' || query.trim() === '')
    return textResult('query is required: a few words saying what you want to do.', true);
  if (
    limit !== undefined &&
    (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > MAX_FIND_RESULTS)
  ) {
    return textResult(`limit must be a whole number from 1 to ${MAX_FIND_RESULTS}.`, true);
  }
  const matches = findOperations(ctx.usable, query, (limit as number | undefined) ?? DEFAULT_FIND_RESULTS);
  const operations = matches.map(({ operation: op }) => ({
    name: op.name,
    effect: effectNote(op),
    summary: firstSentence(op.description),
  }));
  const text =
    operations.length === 0
      ? `No operation matches "${query}". Try other words (e.g. the thing: pipeline, file, member; and the action: list, create, delete).`
      : `${operations.map((o) => `${o.name} (${o.effect}): ${o.summary}`).join('\n')}\n` +
        "describe_operation gives an operation's input schema; run_operation runs it.";
  return { content: [{ type: 'text', text }], structuredContent: { operations } };
}

function describe(ctx: MetaContext, args: Record<string, unknown>): ToolResult {
  const found = lookUp(ctx, args.name);
  if ('error' in found) return found.error;
  const structured = { ...toolDescriptor(found.op), effect: effectNote(found.op) };
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

async function run(ctx: MetaContext, args: Record<string, unknown>): Promise<ToolResult> {
  const found = lookUp(ctx, args.name);
  if ('error' in found) return found.error;
  const input = readArgs(args.arguments);
  if (typeof input === 'string') return textResult(`${input}; nothing was sent.`, true);
  return ctx.callOperation(found.op, input);
}

/** Answers a call of a meta tool; unknown names are the caller's to handle (undefined). */
export async function callMetaTool(ctx: MetaContext, name: string, rawArgs: unknown): Promise<ToolResult | undefined> {
  if (!META_TOOLS.some((tool) => tool.name === name)) return undefined;
  const args = readArgs(rawArgs);
  if (typeof args === 'string') return textResult(`${args}; nothing was sent.`, true);
  const allowed = Object.keys((META_TOOLS.find((tool) => tool.name === name)?.inputSchema.properties ?? {}) as object);
  const extra = Object.keys(args).filter((key) => !allowed.includes(key));
  if (extra.length > 0)
    return textResult(`${name} takes ${allowed.join(', ')}; not ${extra.join(', ')}. Nothing was sent.`, true);
  if (name === 'find_operations') return find(ctx, args);
  if (name === 'describe_operation') return describe(ctx, args);
  return run(ctx, args);
}
