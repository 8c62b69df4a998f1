// How one tool call ended, as a tagged value the steps return, and the one wrapper that counts and times each call for
// /metrics by that tag, so no step has to say what it counts as.
import { countedCall } from '../../health.js';
import { type CallOutcome, recordCall } from '../../metrics.js';
import type { ToolResult } from '../results.js';

export type CallEnding =
  /** forgeops said no before sending anything: bad input, the policy, a person or place not found. */
  | { kind: 'refused'; result: ToolResult }
  /** A dry run answered with what the call would send; nothing was sent. */
  | { kind: 'previewed'; result: ToolResult }
  /** A stateless client was asked for approval in the result itself; the call runs when it calls again. */
  | { kind: 'asked'; result: ToolResult }
  /** A human said no, or no answer came in time. */
  | { kind: 'declined'; result: ToolResult }
  /** The service refused or failed. */
  | { kind: 'failed'; result: ToolResult }
  /** The service did it. */
  | { kind: 'done'; result: ToolResult }
  /** A step threw: `sent` says whether the request may have reached the service; the error is the caller's. */
  | { kind: 'threw'; error: unknown; sent: boolean };

/** The outcome label of a call on /metrics (see CallOutcome), from how it ended. */
export function outcomeOf(ending: CallEnding): CallOutcome {
  switch (ending.kind) {
    case 'refused':
    case 'declined':
    case 'asked':
    case 'failed':
      return ending.kind;
    case 'previewed':
      return ending.result.isError ? 'refused' : 'ok';
    case 'done':
      return ending.result.isError ? 'failed' : 'ok';
    case 'threw':
      return ending.sent ? 'failed' : 'refused';
  }
}

/**
 * Runs one call of `operation` counted as in flight (a drain waits for it), then records it on /metrics by how it
 * ended, and answers its result (or throws what a step threw).
 */
export async function meteredCall(operation: string, run: () => Promise<CallEnding>): Promise<ToolResult> {
  const started = performance.now();
  let outcome: CallOutcome = 'failed';
  try {
    const ending = await countedCall(run);
    outcome = outcomeOf(ending);
    if (ending.kind === 'threw') throw ending.error;
    return ending.result;
  } finally {
    recordCall('mcp', operation, outcome, (performance.now() - started) / 1000);
  }
}
