// `triage <project>`: the triage_project operation's report (is the default branch red, since when and whose, what
// failed and what to press) as a chat message, through the same run path as every chat read.
import type { Operation, OperationResult } from '../operations/engine/define.js';
import { asRecord } from '../operations/engine/present.js';
import type { ChatMessage, ChatStatus } from './message.js';
import { presentFailure, presentOutcome, type PresentOptions } from './present.js';

/** One read through the common run path (validate → policy → execute), or why it could not be made. */
export type ReadOutcome =
  | { ok: true; operation: Operation; input: Record<string, unknown>; result: OperationResult }
  | { ok: false; message: string };

export interface TriageDeps {
  operations: readonly Operation[];
  /** Runs one operation by name with raw arguments, the way every chat call runs. */
  read(operation: string, args: Record<string, unknown>): Promise<ReadOutcome>;
  present?: PresentOptions;
}

/** The verdict as the message's status: red reads as failed, so it stands out in every front end. */
const STATUS: Record<string, ChatStatus> = { green: 'success', red: 'failed', running: 'running', unknown: 'warning' };

export async function triage(project: string, deps: TriageDeps): Promise<{ ok: boolean; message: ChatMessage }> {
  const outcome = await deps.read('triage_project', { id: project });
  if (!outcome.ok) return { ok: false, message: presentFailure(outcome.message, `Triage ${project} failed`) };
  const message = presentOutcome(outcome.operation, outcome.input, outcome.result, deps.present);
  const report = asRecord(outcome.result.data);
  return {
    ok: true,
    message: {
      ...message,
      status: STATUS[String(report.verdict)] ?? 'info',
      ...(typeof report.web_url === 'string' ? { link: report.web_url } : {}),
      // What a person on call shows the others: Slack answers it privately and offers to share it.
      shareable: true,
    },
  };
}
