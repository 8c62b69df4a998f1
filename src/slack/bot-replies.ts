// How the Slack bot shows a reply: a question with its yes/no buttons to the requester alone (an approval issued for
// exactly that call), or an outcome, in the channel when it is shared news, with its follow-up buttons stored as short
// references; through the request's response_url, else the Web API; a write or an approved call in the audit log.
import { randomBytes } from 'node:crypto';
import type { ChatReply } from '../chat/dispatch.js';
import { chatMessage, type ChatMessage } from '../chat/message.js';
import type { Logger } from '../log.js';
import { recordApproval } from '../metrics.js';
import type { ButtonPremise } from '../operations/composed/button-premise.js';
import { redactSecretInputs } from '../operations/engine/secrets.js';
import type { DurableApprovals } from '../approval/binding.js';
import type { StateStore } from '../state/store.js';
import type { AuditLog } from './audit.js';
import { renderApproval, renderMessage, renderText, type SlackMessage } from './blocks.js';
import {
  FOLLOW_UP_TTL_MS,
  MAX_FOLLOW_UPS,
  roomForFollowUps,
  storeFollowUp,
  type IncidentOfButton,
} from './follow-ups.js';
import { userKey, type Acting } from './identity.js';
import type { IncidentMessages } from './incident/sink.js';
import type { PostQueue, ResponseUrls, Visibility } from './replies.js';
import type { SlackSettings } from './settings.js';
import type { Turn } from './turn.js';

/** The Web API calls the bot makes besides posting (Bolt's WebClient in production). */
export interface SlackWeb {
  postEphemeral(args: { channel: string; user: string } & SlackMessage): Promise<unknown>;
  unfurl(args: UnfurlPlace & { unfurls: Record<string, { blocks: SlackMessage['blocks'] }> }): Promise<unknown>;
}

/** Where chat.unfurl answers: a posted message (channel and ts), or a message still being written (unfurl_id and source). */
export type UnfurlPlace = { channel: string; ts: string } | { unfurl_id: string; source: string };

/** Who a dispatcher's calls ran as, and the refusal that a Connect link answers better (no account yet). */
export interface ActingHolder {
  current?: Acting;
  connect?: string;
  /** A Connect sign-in the code host ended during the call (revoked there, or expired): a new link is the answer. */
  signedOut?: boolean;
}

/** A private answer that its asker may post to the channel once (Share in channel). */
export interface ShareRef {
  /** The answer; gone once shared (the reference then only says so). */
  message?: ChatMessage;
  place: string;
  requester: string;
}

/** What showing replies needs of the bot's set-up. */
export interface BotRepliesOptions {
  settings: SlackSettings;
  store: StateStore;
  approvals: DurableApprovals;
  audit: AuditLog;
  responses: ResponseUrls;
  queue: PostQueue;
  web: SlackWeb;
  log: Logger;
  /** The incident messages: an approval asked from an incident message's button is remembered with it. */
  watches?: { incidents: IncidentMessages };
}

export class BotReplies {
  constructor(private readonly o: BotRepliesOptions) {}

  /** Shows a reply: a question with its yes/no buttons to the requester alone, or an outcome (in the channel when it is shared news). */
  async deliver(
    turn: Turn,
    reply: ChatReply,
    how: {
      acting: ActingHolder;
      approved?: boolean;
      replaceOriginal?: boolean;
      audited?: boolean;
      incident?: IncidentOfButton;
      /** The pressed button's premise: an approval asked for its call checks it again when it comes. */
      premise?: ButtonPremise;
    },
  ): Promise<void> {
    if (reply.kind === 'approve') {
      const issued = await this.o.approvals.issue({
        operation: reply.operation.name,
        input: reply.input,
        requester: userKey(turn.user),
        place: turn.channelId,
        ...(how.premise ? { premise: how.premise } : {}),
      });
      if (!issued.ok) return this.answer(turn, renderText(issued.reason, 'warning'));
      recordApproval('slack', 'asked');
      if (how.incident) await this.o.watches?.incidents.rememberApproval(issued.id, how.incident);
      const question = renderApproval(reply.prompt, issued.id, {
        operation: reply.operation.name,
        answers: reply.answers,
      });
      if (!question) {
        await this.o.approvals.cancel(issued.id, userKey(turn.user));
        return this.answer(
          turn,
          renderText(
            'This call is too long to show whole in Slack, and only a call shown whole may be approved. Run it from the terminal chat or an MCP client; nothing was run.',
            'warning',
          ),
        );
      }
      return this.answer(turn, question);
    }
    const { outcome } = reply;
    if (!how.audited) await this.audit(turn, reply, how.acting.current, how.approved);
    const byline = how.approved ? `Approved by ${turn.userName ?? turn.user.userId}.` : undefined;
    // Credentials a human asked to see (reveal) go to the asker alone, whatever the channel's settings say.
    const revealed = outcome?.ok === true && outcome.result.revealed === true;
    const shared =
      reply.ok && outcome !== undefined && !revealed && this.o.settings.inChannel.has(outcome.operation.name);
    // A report answered privately can be shown to the channel by its asker, once.
    const share =
      reply.ok && reply.message.shareable && !shared && !revealed
        ? await this.shareRef(turn, reply.message)
        : undefined;
    const rendered = await this.render(turn, reply.message, byline, { share });
    if (shared && how.replaceOriginal) {
      // The question was the requester's alone; the outcome is the channel's news, and the question becomes its record.
      await this.answer(turn, rendered, { replaceOriginal: true });
      return this.answer(turn, rendered, { visibility: 'in_channel' });
    }
    return this.answer(turn, rendered, {
      visibility: shared ? 'in_channel' : 'ephemeral',
      replaceOriginal: how.replaceOriginal,
    });
  }

  /** Block Kit of a message, its follow-ups stored so that each button carries only a short reference. */
  async render(
    turn: Turn,
    message: ChatMessage,
    byline?: string,
    options: { followUps?: boolean; share?: string } = {},
  ): Promise<SlackMessage> {
    if (options.followUps === false) return renderMessage(message, { byline });
    const refs: string[] = [];
    if (message.actions.length > 0 && (await roomForFollowUps(this.o.store, message.actions.length))) {
      for (const action of message.actions)
        refs.push(
          await storeFollowUp(this.o.store, {
            operation: action.operation,
            input: action.input,
            place: turn.channelId,
          }),
        );
    }
    const shown =
      refs.length === 0 && message.actions.length > 0
        ? chatMessage(message.title, {
            ...message,
            notes: [...message.notes, 'Buttons are off for now (too many waiting); type the command instead.'],
          })
        : message;
    return renderMessage(shown, {
      actionValue: (i) => refs[i],
      byline,
      ...(options.share ? { share: options.share } : {}),
    });
  }

  /** Stores a private answer for its asker's Share in channel button; undefined (no button) when too many wait. */
  private async shareRef(turn: Turn, message: ChatMessage): Promise<string | undefined> {
    if ((await this.o.store.count('share:')) >= MAX_FOLLOW_UPS) return undefined;
    const ref = randomBytes(12).toString('base64url');
    const { shareable: _, ...shown } = message;
    await this.o.store.set(
      `share:${ref}`,
      { message: shown, place: turn.channelId, requester: userKey(turn.user) } satisfies ShareRef,
      { ttlMs: FOLLOW_UP_TTL_MS },
    );
    return ref;
  }

  /** Answers through the response_url; when it is spent or refused, through the Web API. */
  async answer(
    turn: Turn,
    message: SlackMessage,
    options: { visibility?: Visibility; replaceOriginal?: boolean } = {},
  ): Promise<void> {
    if (turn.responseUrl && (await this.o.responses.send(turn.responseUrl, message, options))) return;
    if (options.visibility === 'in_channel') {
      await this.o.queue.post(turn.channelId, message);
      return;
    }
    await this.o.web
      .postEphemeral({ channel: turn.channelId, user: turn.user.userId, ...message })
      .catch((error: unknown) =>
        this.o.log.warn(`slack: could not answer ${userKey(turn.user)}: ${(error as Error).message}`),
      );
  }

  /** Records a write or an approved call that was run (reads and calls never sent are not the audit log's). */
  async audit(
    turn: Turn,
    reply: Extract<ChatReply, { kind: 'message' }>,
    acting: Acting | undefined,
    approved?: boolean,
  ): Promise<void> {
    const { outcome } = reply;
    if (!outcome || (outcome.operation.effect === 'read' && !approved)) return;
    const serviceUser = !acting?.ok
      ? 'none'
      : acting.source === 'linked'
        ? (acting.account?.username ?? 'linked account')
        : acting.source === 'sandbox'
          ? 'sandbox maintainer'
          : 'shared read token';
    await this.o.audit.record({
      team: turn.user.teamId,
      user: turn.user.userId,
      serviceUser,
      channel: turn.channelId,
      operation: outcome.operation.name,
      input: redactSecretInputs(outcome.operation.secretInputs, outcome.input),
      // The audit line's field keeps its name: the log is stored, and readers of it parse it.
      ...(approved ? { confirmedBy: turn.user.userId } : {}),
      outcome: outcome.ok ? 'ok' : 'failed',
      ...(outcome.ok ? { status: outcome.result.status } : { message: outcome.message.split('\n')[0] }),
    });
  }
}
