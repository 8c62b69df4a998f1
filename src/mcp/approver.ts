// The MCP session adapter of the approval port: the client's form elicitation, or the approval page (linked by URL
// elicitation and the stderr log), per the operator's FORGEOPS_APPROVAL.
import { randomUUID } from 'node:crypto';
import type { Answers } from '../policy/policy.js';
import { shown, type ShownText } from '../text/visible.js';
import type { ApprovalPageStore, PendingApproval } from '../approval/page-store.js';
import type { ApprovalPolicy } from '../defaults.js';
import type { ApprovalAnswer, ApprovalCall, Approver } from '../approval/port.js';

/** What the adapter uses of the tools/call request being served (the SDK's handler extra). */
interface CallExtra {
  /** The question travels on this request's own response stream. */
  requestId: string | number;
  /** Aborted when the client cancels the call or goes away. */
  signal: AbortSignal;
}

type ElicitAnswer = { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> };
type ElicitOptions = { relatedRequestId?: string | number; timeout?: number; signal?: AbortSignal };

/**
 * What the adapter uses of a 2025-11-25 session's server (the SDK's Server, which the wiring in src/mcp passes): the
 * client's declared capabilities, asking it, and telling it an out-of-band step is over. The SDK stays in src/mcp.
 */
export interface ElicitingServer {
  getClientCapabilities(): { elicitation?: unknown } | undefined;
  elicitInput(
    params:
      | { mode: 'form'; message: string; requestedSchema: ReturnType<typeof elicitationForm> }
      | { mode: 'url'; url: string; elicitationId: string; message: string },
    options?: ElicitOptions,
  ): Promise<ElicitAnswer>;
  createElicitationCompletionNotifier(
    elicitationId: string,
    options?: { relatedRequestId?: string | number },
  ): () => Promise<void>;
}

interface SessionApprovalOptions {
  /** FORGEOPS_APPROVAL; default 'elicit'. */
  approval?: ApprovalPolicy;
  /** The approval page; without it neither `page` nor URL elicitation is offered. */
  approvals?: ApprovalPageStore;
  /** How long a form question waits for its answer. */
  formTimeoutMs: number;
}

/** What the 2025-11-25 session's request being served gives for one question. */
export interface SessionRequest {
  /** The tools/call request's handler terms: its id (the question travels on its stream) and its abort signal. */
  extra: CallExtra;
  /** Tells the client (progress notifications) what the call waits for. */
  onPhase(text: string): void;
}

interface AskOptions extends SessionApprovalOptions {
  onPhase(text: string): void;
}

/** The adapter for one 2025-11-25 session: its client's form, or the approval page. */
export function sessionApprover(server: ElicitingServer, options: SessionApprovalOptions): Approver<SessionRequest> {
  return {
    ask: (call, request) => askHuman(server, call, { ...options, onPhase: request.onPhase }, request.extra),
  };
}

/**
 * The one-box form a human answers an approval with, in either protocol revision. The box says what ticking it
 * does ("Yes, cancel pipeline 9"), and what leaving it does: the client's own buttons (Cancel, Decline) could be read
 * as the call's action on a "Cancel pipeline?" question.
 */
export function elicitationForm(answers: Answers) {
  return {
    type: 'object' as const,
    properties: {
      // The field keeps its name: clients that answer the form send it.
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
export function approvalQuestion(prompt: ShownText): ShownText {
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

export function refusal(prompt: ShownText, why: string, fix: string): ApprovalAnswer {
  return {
    approved: false,
    reason: `This call needs a human to approve it, and ${why}. Nothing was changed. The call:\n${prompt}\n${fix}`,
  };
}

/**
 * Asks the human about exactly `call` and says whether it may run. Which way, the operator decides (see
 * ApprovalPolicy); a way the model could answer itself is never used: no link ever goes into a tool result.
 */
async function askHuman(
  server: ElicitingServer,
  call: ApprovalCall,
  options: AskOptions,
  extra: CallExtra,
): Promise<ApprovalAnswer> {
  const policy = options.approval ?? 'elicit';
  const modes = elicitationModes(server.getClientCapabilities());
  if (modes.form && policy !== 'page') return askInForm(server, call, options, extra);
  if (policy === 'allow') return { approved: true };
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
  server: ElicitingServer,
  call: ApprovalCall,
  options: AskOptions,
  extra: CallExtra,
): Promise<ApprovalAnswer> {
  options.onPhase('waiting for the human to approve');
  // Related to the tool call, the question travels on the call's own response stream: a client that never
  // opened the optional GET stream still sees it.
  const answer = await server.elicitInput(
    {
      mode: 'form',
      message: approvalQuestion(call.prompt),
      requestedSchema: elicitationForm(call.answers),
    },
    { relatedRequestId: extra.requestId, timeout: options.formTimeoutMs, signal: extra.signal },
  );
  return readApprovalAnswer(answer.action, answer.content);
}

/** What the human's answer to the approval form says, in either protocol revision: yes only for a ticked box. */
export function readApprovalAnswer(action: string, content: unknown): ApprovalAnswer {
  if (action === 'accept' && (content as { confirm?: unknown } | undefined)?.confirm === true)
    return { approved: true };
  const how = action === 'accept' ? 'did not tick the approval' : action === 'decline' ? 'declined' : 'cancelled';
  return { approved: false, reason: `The human ${how}; nothing was changed.` };
}

/**
 * The call waits on the approval page. Why the model cannot approve it: the link is unguessable and goes only where
 * the model does not read: the stderr log the page's store writes (the operator's terminal, or the client's MCP log file),
 * the operator's FORGEOPS_APPROVAL_OPEN command, and URL elicitation, which clients show to the user and not to the
 * model. The tool result and progress messages never carry it. Where a model could still read the log (an agent
 * with a shell), the operator sets FORGEOPS_APPROVAL_SECRET, a passphrase only the human has: then the link alone
 * approves nothing.
 */
async function askOnPage(
  server: ElicitingServer,
  store: ApprovalPageStore,
  call: ApprovalCall,
  options: AskOptions,
  extra: CallExtra,
  urlMode: boolean,
): Promise<ApprovalAnswer> {
  const opened = await store.open(call);
  if (!opened.ok) return { approved: false, reason: opened.reason };
  const { approval } = opened;
  const expires = new Date(approval.expiresAt).toISOString();
  options.onPhase(`waiting for a human to approve it on the forgeops approval page (until ${expires})`);
  const withdrawOnCancel = () =>
    approval.withdraw('The client cancelled the call while it waited for approval; nothing was changed.');
  if (extra.signal.aborted) withdrawOnCancel();
  else extra.signal.addEventListener('abort', withdrawOnCancel, { once: true });
  const elicitation = urlMode ? offerLink(server, approval, call, extra) : undefined;
  try {
    return await approval.outcome;
  } finally {
    extra.signal.removeEventListener('abort', withdrawOnCancel);
    await elicitation?.finish();
  }
}

/**
 * URL-mode elicitation: the client shows the page's link to its user (asking before opening it). Its answer only
 * says whether they will go there; the approval itself happens on the page. Declining withdraws the approval.
 */
function offerLink(server: ElicitingServer, approval: PendingApproval, call: ApprovalCall, extra: CallExtra) {
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
