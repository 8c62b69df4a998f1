// The reads a composed report makes through the registry: a read that fails becomes a line of what was left unread,
// so one missing answer does not fail the whole report (triage and its parts share this one shape).
import type { Operation, OperationResult, RunContext } from '../engine/define.js';
import { executeOperation } from '../engine/execute.js';

/** One registry read by operation name; undefined when it could not be read (and said in `unread`). */
export type TolerantRead = (name: string, input: Record<string, unknown>) => Promise<OperationResult | undefined>;

/** Runs one registry read; a failure becomes a line of `unread` instead of failing the whole report. */
export function tolerantReader(
  ctx: RunContext,
  operations: () => readonly Operation[],
  unread: string[],
): TolerantRead {
  return async (name, input) => {
    const op = operations().find((o) => o.name === name);
    if (!op) {
      unread.push(`${name}: not available`);
      return undefined;
    }
    try {
      return await executeOperation(op, input, ctx);
    } catch (error) {
      unread.push(`${name}: ${(error as Error).message}`);
      return undefined;
    }
  };
}
