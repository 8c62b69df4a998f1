// Asking a human to approve one exact MCP call: the client's form, or the approval page (linked by URL elicitation and the stderr log), per the operator's policy.
import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Answers } from '../policy/policy.js';
import { shown, type ShownText } from '../text/visible.js';
import type { ApprovalDesk, ApprovalPolicy, ApprovalRequest, PendingApproval } from './approval.js';

/** `expired`: nobody answered in time (counted apart from a human's no). */
export type ConfirmOutcome = { confirmed: true } | { confirmed: false; reason: string; expired?: boolean };
type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

interface AskOptions {
  /** FORGEOPS_APPROVAL; default 'elicit'. */
  approval?: ApprovalPolicy;
  /** The approval page; without it neither `page` nor URL elicitation is offered. */
  approvals?: ApprovalDesk;
  /** How long a form question waits for its answer. */
  formTimeoutMs: number;
  /** Tells the client (progress notifications) what the call waits for. */
  onPhase(text: string): void;
}

/**
 * The one-box form a human answers a confirmation with, in either protocol revision. The box says what ticking it
 * does ("Yes, cancel pipeline 9"), and what leaving it does: the client's own buttons (Cancel, Decline) could be read
 * as the call's action on a "Cancel pipeline?" question.
 */
export function confirmForm(answers: Answers) {
  return {
    type: 'object' as const,
    properties: {
      confirm: {
        type: 'boolean' as const,
        title: answers.yes as string,
        description: `Tick to run exactly the call shown above. ${answers.no}: leave it unticked, or decline.`,
      },
    },
    required: ['confirm'],
  };
}

/** The question above the form: the exact call, then the one thing asked. */
export function confirmQuestion(prompt: ShownText): ShownText {
  return shown`${prompt}\n\nRun exactly this call?`;
}

/**
 * Which elicitation modes a client declared, from its capabilities (a 2025 session's initialize, or a 2026-07-28
 * request's envelope); an empty object means form (the protocol's default).
 */
export function elicitationModes(capabilities: { elicitation?: unknown } | undefined): { form: boolean; url: boolean } {
  const elicitation = capabilities?.elicitation as { form?: unknown; url?: unknown } | undefined;
  if (elicitation === undefined) return { form: false, url: false };
  return { form: elicitation.form !== undefined || elicitation.url === undefined, url: elicitation.url !== undefined };
}

export function refusal(prompt: ShownText, why: string, fix: string): ConfirmOutcome {
  return {
    confirmed: false,
    reason: `This call needs a human to approve it, and ${why}. Nothing was changed. The call:\n${prompt}\n${fix}`,
  };
}

/**
 * Asks the human about exactly `call` and says whether it may run. Which way, the operator decides (see
 * ApprovalPolicy); a way the model could answer itself is never used: no link ever goes into a tool result.
 */
export async function askHuman(
  server: Server,
  call: ApprovalRequest,
  options: AskOptions,
  extra: CallExtra,
): Promise<ConfirmOutcome> {
  const policy = options.approval ?? 'elicit';
  const modes = elicitationModes(server.getClientCapabilities());
  if (modes.form && policy !== 'page') return askInForm(server, call, options, extra);
  if (policy === 'allow') return { confirmed: true };
  if (policy === 'refuse' || (policy === 'elicit' && !modes.url)) {
    return refusal(
      call.prompt,
      'this MCP client cannot ask (it does not support elicitation)',
      'Run it from a client with elicitation support, or have the operator choose another FORGEOPS_APPROVAL (page or allow).',
    );
  }
  if (!options.approvals) {
    return refusal(
      call.prompt,
      'this server has no approval page',
      'The operator serves one with `forgeops serve` or `forgeops mcp` and FORGEOPS_APPROVAL=page.',
    );
  }
  return askOnPage(server, options.approvals, call, options, extra, modes.url);
}

async function askInForm(
  server: Server,
  call: ApprovalRequest,
  options: AskOptions,
  extra: CallExtra,
): Promise<ConfirmOutcome> {
  options.onPhase('waiting for the human to confirm');
  // Related to the tool call, the question travels on the call's own response stream: a client that never
  // opened the optional GET stream still sees it.
  const answer = await server.elicitInput(
    {
      mode: 'form',
      message: confirmQuestion(call.prompt),
      requestedSchema: confirmForm(call.answers),
    },
    { relatedRequestId: extra.requestId, timeout: options.formTimeoutMs, signal: extra.signal },
  );
  return readConfirmAnswer(answer.action, answer.content);
}

/** What the human's answer to the confirmation form says, in either protocol revision: yes only for a ticked box. */
export function readConfirmAnswer(action: string, content: unknown): ConfirmOutcome {
  if (action === 'accept' && (content as { confirm?: unknown } | undefined)?.confirm === true)
    return { confirmed: true };
  const how = action === 'accept' ? 'did not tick the confirmation' : action === 'decline' ? 'declined' : 'cancelled';
  return { confirmed: false, reason: `The human ${how}; nothing was changed.` };
}

/**
 * The call waits on the approval page. Why the model cannot approve it: the link is unguessable and goes only where
 * the model does not read: the stderr log the desk writes (the operator's terminal, or the client's MCP log file),
 * the operator's FORGEOPS_APPROVAL_OPEN command, and URL elicitation, which clients show to the user and not to the
 * model. The tool result and progress messages never carry it. Where a model could still read the log (an agent
 * with a shell), the operator sets FORGEOPS_APPROVAL_SECRET, a passphrase only the human has: then the link alone
 * approves nothing.
 */
async function askOnPage(
  server: Server,
  desk: ApprovalDesk,
  call: ApprovalRequest,
  options: AskOptions,
  extra: CallExtra,
  urlMode: boolean,
): Promise<ConfirmOutcome> {
  const opened = await desk.open(call);
  if (!opened.ok) return { confirmed: false, reason: opened.reason };
  const { approval } = opened;
  const expires = new Date(approval.expiresAt).toISOString();
  options.onPhase(`waiting for a human to approve it on the forgeops approval page (until ${expires})`);
  const withdrawOnCancel = () =>
    approval.withdraw('The client cancelled the call while it waited for approval; nothing was changed.');
  if (extra.signal.aborted) withdrawOnCancel();
  else extra.signal.addEventListener('abort', withdrawOnCancel, { once: true });
  const elicitation = urlMode ? offerLink(server, approval, call, extra) : undefined;
  try {
    const outcome = await approval.outcome;
    return outcome.approved ? { confirmed: true } : { confirmed: false, reason: outcome.reason };
  } finally {
    extra.signal.removeEventListener('abort', withdrawOnCancel);
    await elicitation?.finish();
  }
}

/**
 * URL-mode elicitation: the client shows the page's link to its user (asking before opening it). Its answer only
 * says whether they will go there; the approval itself happens on the page. Declining withdraws the approval.
 */
function offerLink(server: Server, approval: PendingApproval, call: ApprovalRequest, extra: CallExtra) {
  const elicitationId = randomUUID();
  const stop = new AbortController();
  const signal = AbortSignal.any([stop.signal, extra.signal]);
  const asked = server
    .elicitInput(
      {
        mode: 'url',
        url: approval.url,
        elicitationId,
        message: `forgeops needs your approval to run ${call.operation}. Open the page to see the exact call and approve or deny it.`,
      },
      { relatedRequestId: extra.requestId, signal, timeout: Math.max(1, approval.expiresAt - Date.now()) },
    )
    .then(
      (answer) => {
        if (answer.action !== 'accept') {
          approval.withdraw(
            `The human ${answer.action === 'decline' ? 'declined' : 'cancelled'} the approval; nothing was changed.`,
          );
        }
      },
      () => undefined,
    );
  return {
    /** The page was answered (or the wait ended): stop asking, and tell the client the out-of-band step is over. */
    async finish() {
      stop.abort();
      await asked;
      await server
        .createElicitationCompletionNotifier(elicitationId, { relatedRequestId: extra.requestId })()
        .catch(() => undefined);
    },
  };
}
