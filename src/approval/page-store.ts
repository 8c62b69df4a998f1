// The approval page's store: calls waiting for a human's answer (on the page, or from the Slack approver), each bound to
// its exact call, single-use, expiring, capped; answers that reach another replica go to the one where the call waits.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { BoundApprovals } from './binding.js';
import type { Logger } from '../log.js';
import type { Answers } from '../policy/policy.js';
import type { ShownText } from '../text/visible.js';
import type { PeerChannel } from '../state/store.js';
import type { ApprovalAnswer, ApprovalCall } from './port.js';
import { ReplicaRequests, ReplicaTimeoutError } from './replicas.js';
import { REPLICA_NAME } from '../defaults.js';

/** Where the page lives on a server: /approvals/<id>. */
export const APPROVAL_PATH = '/approvals/';
const REPLICA_PREFIX = new RegExp(`^(${REPLICA_NAME})\\.`);
/** How long a human has to answer on the page before the call is dropped. */
const DEFAULT_APPROVAL_TTL_MS = 5 * 60_000;
/** Calls waiting on the page at once, all sessions together: each holds a request open, so a flood stops here. */
const DEFAULT_MAX_PENDING_APPROVALS = 32;
/** Wrong passphrases one approval tolerates before it is declined, so the passphrase cannot be guessed through it. */
export const MAX_SECRET_ATTEMPTS = 5;
/** Answered approvals remembered, so a late or replayed click is told why rather than "unknown". */
const REMEMBERED_ANSWERS = 256;
/** Requester and place of the page's bindings: the page's human is not a chat user, the binding is to the call. */
const PAGE = 'approval page';

export interface PendingApproval {
  /** The page of this one approval; goes only to channels the model does not read. */
  url: string;
  expiresAt: number;
  outcome: Promise<ApprovalAnswer>;
  /** Ends the wait with a refusal (the client cancelled, or declined the URL elicitation); nothing runs. */
  withdraw(reason: string): void;
}

/** What the page shows for one approval. */
export interface ApprovalView {
  prompt: ShownText;
  answers: Answers;
  expiresAt: number;
  nonce: string;
  needsSecret: boolean;
}

interface PageAnswer {
  nonce?: string;
  decision?: string;
  secret?: string;
}

/** The page's reply to an answer: an HTTP status and one sentence for the human. */
interface AnswerResult {
  status: number;
  message: string;
}

/** What a link opens: the waiting call, or why there is none (an HTTP status and one sentence). */
export type Shown = { view: ApprovalView } | { closed: AnswerResult };

/** The topic on which replicas pass each other the answers to calls waiting on another replica. */
const ANSWER_TOPIC = 'approval';

/**
 * A look or an answer one replica passes to the replica where the call waits. The passphrase stays on the replica
 * that received it: only whether it was right travels (every replica has the same FORGEOPS_APPROVAL_SECRET).
 */
type Forwarded =
  | { kind: 'show'; id: string }
  | { kind: 'answer'; id: string; nonce?: string; decision?: string; secretOk: boolean }
  | { kind: 'channel'; id: string; decision: string; channel: string };

export interface ApprovalPageStoreOptions {
  /** Base URL of the page (http://127.0.0.1:port); async because `forgeops mcp` may start its page on first need. */
  pageUrl: () => Promise<string>;
  /**
   * The operator's passphrase (FORGEOPS_APPROVAL_SECRET). With it, the link alone approves nothing: whoever holds
   * the link (a model that read a log) must also know what only the human knows.
   */
  secret?: string;
  ttlMs?: number;
  maxPending?: number;
  /**
   * This replica's name (FORGEOPS_REPLICA_ID): each page's id starts with it and a dot (/approvals/r1.<id>), so a
   * balancer routes the human's answer to the replica where the call waits, as it routes MCP sessions.
   */
  replicaId?: string;
  now?: () => number;
  /**
   * The operator's stderr log: each link is written there (the operator's terminal, or the MCP client's log file),
   * a channel the model does not read.
   */
  log?: Logger;
}

/** A new approval as the channels that reach the human get it (the FORGEOPS_APPROVAL_OPEN command, a Slack approver). */
export interface OpenedApproval {
  id: string;
  url: string;
  operation: string;
  prompt: ShownText;
  answers: Answers;
  expiresAt: number;
}

interface Waiter {
  request: ApprovalCall;
  nonce: string;
  expiresAt: number;
  wrongSecrets: number;
  settle(outcome: ApprovalAnswer): void;
}

export type Opened = { ok: true; approval: PendingApproval } | { ok: false; reason: string };

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** Equal in constant time whatever the lengths: both sides are hashed first. */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

function stoppedReplica(replica: string): string {
  return `This approval waited on replica ${replica}, which has stopped: the call ended with it and nothing was run. Ask the assistant to try again.`;
}

function minutes(ms: number): string {
  const m = Math.round(ms / 60_000);
  return m >= 1 ? `${m} minute${m === 1 ? '' : 's'}` : `${Math.round(ms / 1000)} seconds`;
}

export class ApprovalPageStore {
  readonly ttlMs: number;
  readonly maxPending: number;
  private readonly now: () => number;
  /** Binding to the exact call, single use and expiry are BoundApprovals'. */
  private readonly bindings: BoundApprovals;
  private readonly waiting = new Map<string, Waiter>();
  private readonly answered = new Map<string, string>();
  private readonly listeners: Array<(approval: OpenedApproval) => void> = [];
  private replicas: ReplicaRequests | undefined;

  constructor(private readonly options: ApprovalPageStoreOptions) {
    this.ttlMs = options.ttlMs ?? DEFAULT_APPROVAL_TTL_MS;
    this.maxPending = options.maxPending ?? DEFAULT_MAX_PENDING_APPROVALS;
    this.now = options.now ?? Date.now;
    this.bindings = new BoundApprovals(this.ttlMs, this.now);
  }

  /**
   * Joins the replicas that share a store: an answer for a call waiting on another replica (a Slack click lands on
   * any replica; so does a page behind plain round robin) goes there, and answers for calls here arrive from them.
   */
  shareAnswersThrough(replicas: ReplicaRequests): void {
    this.replicas = replicas;
    replicas.handle(ANSWER_TOPIC, (body) => this.fromOtherReplica(body as Forwarded));
  }

  /** Adds a channel that hears of each new approval; it must not reach the model. */
  onOpen(listener: (approval: OpenedApproval) => void): void {
    this.listeners.push(listener);
  }

  get pending(): number {
    return this.waiting.size;
  }

  /** Puts a call on the page, or says why not (the page cannot start, or too many calls wait already). */
  async open(request: ApprovalCall): Promise<Opened> {
    let base: string;
    try {
      base = await this.options.pageUrl();
    } catch (error) {
      return {
        ok: false,
        reason: `The approval page could not be served (${(error as Error).message}); nothing was changed.`,
      };
    }
    if (this.waiting.size >= this.maxPending) {
      return {
        ok: false,
        reason: `${this.maxPending} calls already wait for a human on the approval page; nothing was changed. Try again once those are answered.`,
      };
    }
    const call = { operation: request.operation, input: structuredClone(request.input), requester: PAGE, place: PAGE };
    const id = this.bindings.issue(call, this.options.replicaId ? `${this.options.replicaId}.` : '');
    const expiresAt = this.now() + this.ttlMs;
    let settle!: (outcome: ApprovalAnswer) => void;
    const outcome = new Promise<ApprovalAnswer>((resolve) => {
      settle = resolve;
    });
    const timer = setTimeout(
      () =>
        this.close(id, 'expired', {
          approved: false,
          reason: `No one approved the call on the approval page within ${minutes(this.ttlMs)}; it expired and nothing was changed.`,
        }),
      this.ttlMs,
    );
    timer.unref();
    this.waiting.set(id, {
      request,
      nonce: randomBytes(18).toString('base64url'),
      expiresAt,
      wrongSecrets: 0,
      settle: (result) => {
        clearTimeout(timer);
        settle(result);
      },
    });
    const url = `${base.replace(/\/+$/, '')}${APPROVAL_PATH}${id}`;
    this.options.log?.warn(
      `approval needed for ${request.operation}: open ${url} to approve or deny it (expires ${new Date(expiresAt).toISOString()})`,
    );
    for (const listener of this.listeners)
      listener({ id, url, operation: request.operation, prompt: request.prompt, answers: request.answers, expiresAt });
    return {
      ok: true,
      approval: {
        url,
        expiresAt,
        outcome,
        withdraw: (reason) => this.close(id, 'withdrawn', { approved: false, reason }),
      },
    };
  }

  /** What a link opens, wherever the call waits: the call to approve, or why it no longer waits. */
  async show(id: string): Promise<Shown> {
    return (await this.onOwningReplica<Shown>(id, { kind: 'show', id }, (closed) => ({ closed }))) ?? this.showHere(id);
  }

  private showHere(id: string): Shown {
    const view = this.view(id);
    return view ? { view } : { closed: { status: 410, message: this.whyClosed(id) } };
  }

  /** The page of an approval waiting on this replica, or undefined (unknown, answered, expired or withdrawn). */
  view(id: string): ApprovalView | undefined {
    const waiter = this.waiting.get(id);
    if (!waiter || this.now() > waiter.expiresAt) return undefined;
    return {
      prompt: waiter.request.prompt,
      answers: waiter.request.answers,
      expiresAt: waiter.expiresAt,
      nonce: waiter.nonce,
      needsSecret: this.options.secret !== undefined,
    };
  }

  /** Why an approval is no longer waiting, in words for the human who opened a stale link. */
  whyClosed(id: string): string {
    const how = this.answered.get(id);
    if (how === 'expired' || (how === undefined && this.waiting.has(id)))
      return 'This approval expired; nothing was run. Ask the assistant to try again.';
    if (how) return `This approval was already ${how}; this page changes nothing now.`;
    // The balancer sends a link to the replica in its id; here instead means that replica has stopped, and the call
    // that waited there ended with it.
    const replica = REPLICA_PREFIX.exec(id)?.[1];
    if (replica && replica !== this.options.replicaId) return stoppedReplica(replica);
    return 'There is no such approval waiting (it was answered, withdrawn or expired, or the link is wrong); nothing was run.';
  }

  /**
   * The human's answer from the page. Checks leave the approval waiting when the sender is not the page's reader
   * (a wrong nonce), and count wrong passphrases; the binding is spent before anything runs, so a replay runs nothing.
   */
  async answer(id: string, answer: PageAnswer): Promise<AnswerResult> {
    const { secret } = this.options;
    const secretOk = secret === undefined || (answer.secret !== undefined && sameSecret(answer.secret, secret));
    const forwarded: Forwarded = { kind: 'answer', id, nonce: answer.nonce, decision: answer.decision, secretOk };
    return (await this.onOwningReplica<AnswerResult>(id, forwarded, (failed) => failed)) ?? this.answerHere(forwarded);
  }

  /**
   * An answer from a channel that proved who the human is by itself (a signed Slack click by the configured
   * approver): no nonce or passphrase, the rest as on the page.
   */
  async answerFromChannel(id: string, decision: string, channel: string): Promise<AnswerResult> {
    return (
      (await this.onOwningReplica<AnswerResult>(id, { kind: 'channel', id, decision, channel }, (failed) => failed)) ??
      this.decide(id, decision, channel)
    );
  }

  private answerHere(answer: Extract<Forwarded, { kind: 'answer' }>): AnswerResult {
    const { id } = answer;
    const waiter = this.waiting.get(id);
    if (!waiter) return { status: 410, message: this.whyClosed(id) };
    if (!answer.nonce || !sameSecret(answer.nonce, waiter.nonce)) {
      return {
        status: 403,
        message:
          'This answer did not come from the approval page (its form token is missing or wrong); nothing changed. Reload the page.',
      };
    }
    if (answer.decision === 'approve' && !answer.secretOk) return this.wrongSecret(id, waiter);
    return this.decide(id, answer.decision, 'on the approval page');
  }

  /**
   * Where the call of `id` waits on another replica, the request goes there and this is its reply, or `failed` of why
   * none came; undefined when the call waits here, or would have (no other replica to ask).
   */
  private async onOwningReplica<T>(
    id: string,
    request: Forwarded,
    failed: (why: AnswerResult) => T,
  ): Promise<T | undefined> {
    const replica = REPLICA_PREFIX.exec(id)?.[1];
    if (!this.replicas || !replica || replica === this.options.replicaId) return undefined;
    try {
      const result = await this.replicas.ask(replica, ANSWER_TOPIC, request);
      return result.reached ? (result.answer as T) : failed({ status: 410, message: stoppedReplica(replica) });
    } catch (error) {
      const message =
        error instanceof ReplicaTimeoutError
          ? `Replica ${replica}, where this call waits, did not reply within ${error.ms / 1000} s; open the link again to see whether it still waits.`
          : `This answer could not reach replica ${replica}, where the call waits (${(error as Error).message}); nothing changed. Try again.`;
      return failed({ status: 503, message });
    }
  }

  /** A look or an answer another replica passed on for a call waiting here. */
  private fromOtherReplica(request: Forwarded): Shown | AnswerResult {
    if (typeof request?.id !== 'string') throw new Error('not an approval request');
    switch (request.kind) {
      case 'show':
        return this.showHere(request.id);
      case 'answer':
        return this.answerHere(request);
      case 'channel':
        return this.decide(request.id, request.decision, request.channel);
      default:
        throw new Error('not an approval request');
    }
  }

  private decide(id: string, decision: string | undefined, channel: string): AnswerResult {
    const waiter = this.waiting.get(id);
    if (!waiter) return { status: 410, message: this.whyClosed(id) };
    if (decision === 'deny') {
      this.close(id, 'denied', {
        approved: false,
        reason: `The human denied the call ${channel}; nothing was changed.`,
      });
      return { status: 200, message: 'Denied: the call will not run.' };
    }
    if (decision !== 'approve')
      return { status: 400, message: "The answer must be 'approve' or 'deny'; nothing changed." };
    const redeemed = this.bindings.redeem(id, {
      person: PAGE,
      place: PAGE,
      operation: waiter.request.operation,
      input: waiter.request.input,
    });
    if (!redeemed.ok) {
      this.close(id, 'refused', { approved: false, reason: redeemed.reason });
      return { status: 410, message: redeemed.reason };
    }
    this.close(id, 'approved', { approved: true });
    return { status: 200, message: 'Approved: the call runs now, exactly as shown.' };
  }

  /** Refuses every waiting approval (shutdown): their calls end cleanly, and nothing runs. */
  closeAll(reason: string): void {
    for (const id of [...this.waiting.keys()]) this.close(id, 'withdrawn', { approved: false, reason });
  }

  private wrongSecret(id: string, waiter: Waiter): AnswerResult {
    waiter.wrongSecrets += 1;
    if (waiter.wrongSecrets >= MAX_SECRET_ATTEMPTS) {
      this.close(id, 'denied', {
        approved: false,
        reason: `The approval page got ${MAX_SECRET_ATTEMPTS} wrong passphrases, so the call was refused; nothing was changed.`,
      });
      return {
        status: 403,
        message: `Wrong passphrase ${MAX_SECRET_ATTEMPTS} times: this approval is closed and the call will not run.`,
      };
    }
    return {
      status: 403,
      message: `Wrong or missing passphrase (FORGEOPS_APPROVAL_SECRET); the call still waits. ${MAX_SECRET_ATTEMPTS - waiter.wrongSecrets} tries left.`,
    };
  }

  /** Ends one approval once: its binding goes, its call hears the outcome, a later click hears how it ended. */
  private close(id: string, how: string, outcome: ApprovalAnswer): void {
    const waiter = this.waiting.get(id);
    if (!waiter) return;
    this.waiting.delete(id);
    this.bindings.cancel(id, PAGE);
    this.answered.set(id, how);
    if (this.answered.size > REMEMBERED_ANSWERS) this.answered.delete(this.answered.keys().next().value as string);
    waiter.settle(outcome);
  }
}

/**
 * Replicas sharing Redis pass each other the answers to their approvals: a Slack approver's click reaches whichever
 * replica Slack picks, and a page behind plain round robin too, while the call waits on the replica that asked.
 * Returns the replica requests to close at shutdown; undefined for a store of one process, or a replica without a name.
 */
export async function joinReplicas(
  store: ApprovalPageStore,
  state: { peers?: PeerChannel },
  replicaId: string | undefined,
  log: Logger,
): Promise<ReplicaRequests | undefined> {
  if (!state.peers) return undefined;
  if (!replicaId) {
    log.warn(
      'FORGEOPS_REDIS_URL is set without FORGEOPS_REPLICA_ID: an approval answered on another replica (a Slack click, a page behind round robin) cannot find its call',
    );
    return undefined;
  }
  const replicas = await ReplicaRequests.open(state.peers, replicaId);
  store.shareAnswersThrough(replicas);
  return replicas;
}
