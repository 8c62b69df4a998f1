// The approval port: ask a human about one exact call and get their answer. Every channel (MCP form, approval page,
// Slack approver, 2026-07-28 request state, terminal prompt) is an adapter of this one interface.
import type { Answers } from '../policy/policy.js';
import type { ShownText } from '../text/visible.js';

/** One exact call a human is asked to approve: the policy decided that it needs approval and what is shown. */
export interface ApprovalCall {
  operation: string;
  /** The validated input that will run; an answer is bound to it, and a call that changed since is refused. */
  input: Record<string, unknown>;
  /** The exact call as the human reads it (policy.approvalPrompt): every channel shows it as it is. */
  prompt: ShownText;
  /** The two answers' labels (policy.answersTo), on every channel's buttons. */
  answers: Answers;
}

/** A human's answer: approved, or declined with the reason in words. `expired`: nobody answered in time. */
export type ApprovalAnswer = { approved: true } | { approved: false; reason: string; expired?: boolean };

/**
 * A channel that reaches a human. `context` is what the channel needs of the request being served (the MCP request,
 * the terminal's prompt), passed by the caller for each call. A channel whose human answers on a later request (the
 * 2026-07-28 revision) may give back `Pending` instead: the question, to send in the reply.
 */
export interface Approver<Context, Pending = never> {
  ask(call: ApprovalCall, context: Context): Promise<ApprovalAnswer | Pending>;
}
