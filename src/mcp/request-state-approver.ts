// The 2026-07-28 revision's adapter of the approval port: a call needing a human is answered with a question
// (input_required) naming an approval bound to the exact call in the shared store; when the same call comes back
// approved, that approval is spent, once. Any replica can take the second request.
import { createHash } from 'node:crypto';
import { recordApproval } from '../metrics.js';
import type { ServiceTokenChecker } from './token-check.js';
import type { DurableApprovals } from '../approval/binding.js';
import { refusal, readApprovalAnswer } from './approver.js';
import type { ApprovalPolicy } from '../defaults.js';
import type { ApprovalAnswer, ApprovalCall, Approver } from '../approval/port.js';

/** Where MCP approvals are asked and answered, in the binding's terms (Slack's are channel ids). */
const PLACE = 'mcp';

/** What the request being served says, read from its context by the caller (stateless.ts). */
export interface RequestStateContext {
  /** The answer this request carries: the approval its verified requestState names, and the human's form answer. */
  answered?: { id: string; action: string; content: unknown };
  /** Whether this request's client declared form elicitation (its envelope carries its capabilities). */
  formElicitation: boolean;
  /** The request's own service token (X-Codehost-Token), if it sent one. */
  token?: string;
  /** The signed-in person (OAuth mode): the approval is theirs, whichever client or replica answers. */
  person?: string;
  /** The client's address, as the HTTP server reads it. */
  caller: string;
  /** FORGEOPS_APPROVAL; default 'elicit'. */
  policy?: ApprovalPolicy;
}

/** The question went out in the reply: the client asks its human and calls again with `id` in its requestState. */
export interface RequestStateQuestion {
  asked: { id: string };
}

/**
 * Who a request acts as, for binding its approvals: the signed-in person (OAuth), else a hash of its own service token,
 * else the configured one's stand-in.
 */
export function principalOf(token: string | undefined | null, person?: string | null): string {
  if (person) return `mcp-person:${person}`;
  return token ? `mcp-${createHash('sha256').update(token).digest('hex').slice(0, 24)}` : 'mcp-configured';
}

/**
 * Whose share of the waiting-question cap a request takes: its principal from its address, so that the clients
 * without a token of their own (all one principal) do not share one cap, and one's unanswered questions refuse no other.
 */
function clientOf(principal: string, caller: string): string {
  return `${principal}.${createHash('sha256').update(caller).digest('hex').slice(0, 16)}`;
}

export class RequestStateApprover implements Approver<RequestStateContext, RequestStateQuestion> {
  constructor(
    private readonly approvals: DurableApprovals,
    /** Only a yes from the service lets a question be asked: a token it refuses, or could not be asked about, gets none. */
    private readonly tokenChecker: ServiceTokenChecker,
  ) {}

  /**
   * One call's approval over two requests. The first carries no answer: an approval is recorded for the exact call and
   * the client is asked. The second carries it and the human's answer: yes spends the approval (once, and only for the
   * very same call), no withdraws it. An answer that comes without an approval of ours was never asked, and counts for
   * nothing: the question is asked.
   */
  async ask(call: ApprovalCall, request: RequestStateContext): Promise<ApprovalAnswer | RequestStateQuestion> {
    const requester = principalOf(request.token, request.person);
    if (request.answered) {
      const said = readApprovalAnswer(request.answered.action, request.answered.content);
      if (!said.approved) {
        await this.approvals.cancel(request.answered.id, requester);
        return said;
      }
      const redeemed = await this.approvals.redeem(request.answered.id, {
        person: requester,
        place: PLACE,
        operation: call.operation,
        input: call.input,
      });
      return redeemed.ok
        ? { approved: true }
        : { approved: false, reason: redeemed.reason, ...(redeemed.expired ? { expired: true } : {}) };
    }
    // The call comes in with no answer of ours: a question, counted once however it ends.
    recordApproval('mcp', 'asked');
    if (request.policy === 'page') {
      return refusal(
        call.prompt,
        'the approval page (FORGEOPS_APPROVAL=page) serves 2025-11-25 sessions only',
        'Connect with a 2025-11-25 session to approve it on the page, or have the operator choose FORGEOPS_APPROVAL=elicit.',
      );
    }
    if (!request.formElicitation) {
      if (request.policy === 'allow') return { approved: true };
      return refusal(
        call.prompt,
        'this MCP client cannot ask (it does not declare elicitation)',
        'Run it from a client with elicitation support, or have the operator choose FORGEOPS_APPROVAL=allow.',
      );
    }
    // A made-up X-Codehost-Token must not hold one of the approvals everybody shares, nor ask a human for nothing.
    // A signed-in person was checked by the bearer check already.
    const checked =
      request.token && !request.person ? await this.tokenChecker.check(request.token) : { accepted: true as const };
    if (!checked.accepted && checked.refused) {
      return refusal(
        call.prompt,
        'the service refuses the X-Codehost-Token this request carries (401)',
        'Send a valid token of the service in X-Codehost-Token, or none to act with the configured one.',
      );
    }
    if (!checked.accepted) {
      return refusal(
        call.prompt,
        `the X-Codehost-Token this request carries could not be checked with the service (${checked.why})`,
        'Try again once the service answers.',
      );
    }
    const issued = await this.approvals.issue(
      { operation: call.operation, input: call.input, requester, place: PLACE },
      { countAs: clientOf(requester, request.caller) },
    );
    if (!issued.ok) return { approved: false, reason: issued.reason };
    return { asked: { id: issued.id } };
  }
}
