// What the Slack bot does with a turn (a /forge command, a button, the login and release forms, a shared link): the
// shared chat dispatcher runs it with the person's identity and this channel's rules; this file adds the Slack-only
// commands, buttons, forms and sign-in; its replies are shown by ./bot-replies.ts.
import { createDispatcher, type ChatDispatcher, type ChatReply } from '../chat/dispatch.js';
import { chatMessage } from '../chat/message.js';
import { presentFailure } from '../chat/present.js';
import { readServiceUrl } from '../chat/urls.js';
import type { ApiError } from '../http/errors.js';
import type { ApiTransport } from '../http/types.js';
import type { Logger } from '../log.js';
import { type ButtonPremise, PremiseCheck, premiseUnread } from '../operations/composed/button-premise.js';
import { executeCall } from '../run/call.js';
import { recordApproval } from '../metrics.js';
import type { Operation } from '../operations/engine/define.js';
import type { ExplainOptions } from '../operations/engine/failures.js';
import { InputError, validateInput } from '../operations/engine/validate.js';
import type { DurableApprovals } from '../approval/binding.js';
import type { AuditLog } from './audit.js';
import { renderConnect, renderText, type SlackMessage } from './blocks.js';
import type { Finished, SlackConnect } from './connect.js';
import { type Identities, LINK_PROMPT, userKey, type SlackUser } from './identity.js';
import { RELEASE_OPERATION, inputErrors, releaseView, serviceErrors, type FormErrors } from './release-modal.js';
import { commentView } from './comment-modal.js';
import type { PostQueue, ResponseUrls } from './replies.js';
import { BotReplies, type ActingHolder, type ShareRef, type SlackWeb, type UnfurlPlace } from './bot-replies.js';
import type { Turn } from './turn.js';
import { MAX_UNFURLS, isPublicProject, unfurlCall, type CallAs } from './unfurl.js';
import type { SlackSettings } from './settings.js';
import type { StateStore } from '../state/store.js';
import type { WatchHub } from '../watch/hub.js';
import { FOLLOW_UP_TTL_MS, followUpKey, type FollowUpRef, type IncidentOfButton } from './follow-ups.js';
import { WATCH_WORDS, watchCommand } from './incident/commands.js';
import { renderTimeline } from './incident/render.js';
import type { IncidentMessages } from './incident/sink.js';

interface BotOptions {
  operations: readonly Operation[];
  client: ApiTransport;
  settings: SlackSettings;
  store: StateStore;
  identities: Identities;
  approvals: DurableApprovals;
  audit: AuditLog;
  responses: ResponseUrls;
  queue: PostQueue;
  web: SlackWeb;
  explain: ExplainOptions;
  callTimeoutMs: number;
  log: Logger;
  /** The service's web address, so pasted links are read as references. */
  baseUrl?: string;
  /** The watch hub and the incident messages: `/forge watch` and the incident message's buttons. */
  watches?: { hub: WatchHub; incidents: IncidentMessages };
  /** Connect links (sign-in through the code host), when forgeops has an application there and FORGEOPS_SECRET. */
  connect?: SlackConnect;
}

/** Why a person sees a Connect link in place of a call's answer when the code host ended their sign-in. */
const SIGNED_OUT =
  'Your sign-in at the code host has ended (revoked there, or unused too long), so it refused the call; nothing more was run.';

/** What a press of a button that is gone (expired, used, of another channel) is answered. */
const BUTTON_GONE =
  'This button no longer works (it expired or was used); nothing was run. For fresh buttons, ask again: the same ' +
  'command, or `/forge triage <project>` for an incident.';

/** Checking a token must fit in Slack's 3 s for a modal's answer. */
const LOGIN_CHECK_MS = 2_500;

/** Where a channel's default project (`use`) is kept. */
const projectKey = (turn: Turn): string => `project:${turn.user.teamId}:${turn.channelId}`;

/**
 * What the person typed: Slack sends &, < and > of a command's text as &amp;, &lt; and &gt; (its links stay <…>), and
 * a value such as a file's content must reach the service as typed, not as entities.
 */
function typedText(text: string): string {
  return text.replace(/&(amp|lt|gt);/g, (_, name: string) => ({ amp: '&', lt: '<', gt: '>' })[name]!);
}

export class SlackBot {
  private readonly byName: Map<string, Operation>;
  private readonly premises: PremiseCheck;

  private readonly replies: BotReplies;

  constructor(private readonly o: BotOptions) {
    this.byName = new Map(o.operations.map((op) => [op.name, op]));
    this.premises = new PremiseCheck(() => o.operations);
    this.replies = new BotReplies(o);
  }

  /** Whether /forge login answers with a Connect link (else it opens the token form). */
  get connects(): boolean {
    return this.o.connect !== undefined;
  }

  /** `/forge <text>`: Slack-only commands here, everything else through the shared dispatcher. */
  async command(turn: Turn, text: string): Promise<void> {
    const word = text.trim().split(/\s+/)[0]?.toLowerCase();
    // With Connect on, /forge login is a link to the code host's sign-in (anything typed after it is ignored).
    if (word === 'login' && this.o.connect) return this.offerConnect(turn);
    if (word === 'logout') return this.logout(turn);
    if (word === 'whoami')
      return this.replies.answer(turn, renderText(await this.o.identities.describe(turn.user), 'info'));
    if (word !== undefined && WATCH_WORDS.has(word)) return this.watch(turn, typedText(text).trim().split(/\s+/));
    const { dispatcher, acting } = this.dispatcher(turn);
    const reply = await this.safely(() => dispatcher.dispatch(typedText(text)));
    // Refused for want of an account: a Connect link, and this very command runs once they are signed in.
    if (acting.connect !== undefined && this.o.connect) return this.offerConnect(turn, text.trim(), acting.connect);
    // Ended during the call: a new link, without running the command again after it (part of it may have run).
    if (acting.signedOut && this.o.connect) return this.offerConnect(turn, undefined, SIGNED_OUT);
    await this.replies.deliver(turn, reply, { acting });
  }

  /** `/forge logout`: a Connect sign-in is revoked at the code host and forgotten; a pasted token is forgotten. */
  private async logout(turn: Turn): Promise<void> {
    let forgot: Awaited<ReturnType<Identities['unlink']>>;
    try {
      forgot = await this.o.identities.unlink(turn.user);
    } catch (error) {
      this.o.log.error(`slack: logout of ${userKey(turn.user)}: ${(error as Error).message}`);
      return this.replies.answer(
        turn,
        renderText('Could not sign you out just now; try again in a moment.', 'warning'),
      );
    }
    const again = this.o.connect ? 'connect again' : 'link one again';
    const said = !forgot
      ? 'No account was linked.'
      : forgot.via === 'token'
        ? `Forgot your linked account; ${again} with \`/forge login\`.`
        : forgot.revoked
          ? `Signed out: the code host revoked forgeops's tokens for your account, and forgeops forgot them. ${again[0].toUpperCase()}${again.slice(1)} with \`/forge login\`.`
          : `Signed out here: forgeops forgot your tokens, but the code host did not confirm revoking them (revoke forgeops under your account's applications there to be sure). ${again[0].toUpperCase()}${again.slice(1)} with \`/forge login\`.`;
    return this.replies.answer(turn, renderText(said, 'info'));
  }

  /**
   * A one-time Connect link, to this person only: `waiting` is the command typed (run after the sign-in), `reason`
   * why they see this instead of its answer.
   */
  async offerConnect(turn: Turn, waiting?: string, reason?: string): Promise<void> {
    const connect = this.o.connect;
    if (!connect) return this.replies.answer(turn, renderText(LINK_PROMPT, 'info'));
    const offer = await connect.offer({
      user: turn.user,
      ...(turn.userName ? { userName: turn.userName } : {}),
      channelId: turn.channelId,
      ...(turn.responseUrl ? { responseUrl: turn.responseUrl } : {}),
      ...(waiting ? { command: waiting } : {}),
    });
    if (!offer.ok) return this.replies.answer(turn, renderText(offer.reason, 'warning'));
    const codeHost = connect.codeHostName;
    // Only the line of the refusal that is not "type /forge login": the button is the way now.
    const why = reason?.replace(/\s*Connect your account on the service first: type `\/forge login`\.\s*$/, '').trim();
    return this.replies.answer(
      turn,
      renderConnect(
        { url: offer.url, codeHost, expiresInMinutes: offer.expiresInMinutes },
        waiting && typedText(waiting),
        why || undefined,
      ),
      { visibility: 'ephemeral' },
    );
  }

  /**
   * A Connect sign-in ended (its page is answered): the person hears how in Slack, and the command that was waiting
   * runs as them, its answer going where the command's would have.
   */
  async connected(finished: Finished): Promise<void> {
    const { origin } = finished;
    const turn: Turn = {
      user: origin.user,
      ...(origin.userName ? { userName: origin.userName } : {}),
      channelId: origin.channelId,
      ...(origin.responseUrl ? { responseUrl: origin.responseUrl } : {}),
    };
    if (!finished.ok) return this.replies.answer(turn, renderText(finished.reason, 'warning'));
    await this.replies.answer(
      turn,
      renderText(`Connected as @${finished.account.username}: your /forge commands now run as you.`, 'success'),
    );
    if (origin.command) await this.command(turn, origin.command);
  }

  /**
   * A button that takes a comment first (Reject), pressed: its form, for the presser's trigger to open; or, for a
   * button gone, of another channel or taking no comment, the presser is told so and no form opens. Nothing is
   * checked or spent yet: the form may be cancelled, which changes nothing; sent, it is the press (followUp).
   */
  async commentForm(turn: Turn, ref: string): Promise<Record<string, unknown> | undefined> {
    const stored = await this.o.store.get<FollowUpRef>(followUpKey(ref));
    const op = stored && this.byName.get(stored.operation);
    if (!stored?.asksComment || !op || stored.place !== turn.channelId) {
      await this.replies.answer(turn, renderText(BUTTON_GONE, 'warning'));
      return undefined;
    }
    const what = op.needsApproval?.(stored.input) ?? `It runs ${op.name}.`;
    return commentView(
      { ref, channelId: turn.channelId, ...(turn.responseUrl ? { responseUrl: turn.responseUrl } : {}) },
      { label: stored.incident?.label ?? op.title, what },
    );
  }

  /**
   * A follow-up button: runs the stored call as the one who clicked (writes once, reads as often as clicked).
   * `form` is the sent form of a button that takes a comment: its comment, if any, becomes the call's `comment` input.
   */
  async followUp(turn: Turn, ref: string, form?: { comment?: string }): Promise<void> {
    const key = followUpKey(ref);
    const stored = await this.o.store.get<FollowUpRef>(key);
    const op = stored && this.byName.get(stored.operation);
    // A form's answer goes only to a button that asked for one: it never adds input to another call.
    if (!stored || !op || stored.place !== turn.channelId || (form && !stored.asksComment))
      return this.replies.answer(turn, renderText(BUTTON_GONE, 'warning'));
    const input = form?.comment ? { ...stored.input, comment: form.comment } : stored.input;
    // A button drawn on what was true then (an old version of an incident message) checks it still is, as the presser.
    if (stored.premise) {
      const checked = await this.checkPremise(turn, stored.premise);
      if (checked.changed !== undefined) return this.replies.answer(turn, renderText(checked.changed, 'warning'));
      if (checked.note !== undefined) await this.replies.answer(turn, renderText(checked.note, 'info'));
    }
    // A write behind a button runs once, however often it is clicked: the first click takes it.
    const once = op.effect !== 'read';
    if (once && (await this.o.store.take(key)) === undefined) {
      return this.replies.answer(turn, renderText('This button was already used; nothing was run again.', 'warning'));
    }
    const { dispatcher, acting } = this.dispatcher(turn);
    const reply = await this.safely(() => dispatcher.call(op.name, input));
    // A press spends the button only when what it names was carried out. Refused before sending (no linked account,
    // a read-only channel, bad input), refused by the service as the presser (403, 404, …), or waiting for the
    // presser's approval: the button stays for the next person, so someone who may not act cannot spend it.
    const carriedOut = reply.kind === 'message' && reply.ok && reply.outcome?.ok === true;
    if (once && !carriedOut) await this.o.store.add(key, stored, { ttlMs: FOLLOW_UP_TTL_MS });
    if (acting.signedOut && this.o.connect) return this.offerConnect(turn, undefined, SIGNED_OUT);
    await this.replies.deliver(turn, reply, {
      acting,
      ...(stored.incident ? { incident: stored.incident } : {}),
      ...(stored.premise ? { premise: stored.premise } : {}),
    });
    // A refusal is the presser's alone (told to them ephemerally above); the thread records what was done or asked.
    if (stored.incident && (carriedOut || reply.kind === 'approve'))
      await this.onTimeline(turn, stored.incident, 'pressed', reply);
    if (stored.incident && carriedOut) await this.onActed(stored.incident, reply);
  }

  /** A press carried out on an incident message: the message shows what it did to the revert under way. */
  private async onActed(incident: IncidentOfButton, reply: ChatReply): Promise<void> {
    if (reply.kind !== 'message' || !reply.outcome?.ok) return;
    const { operation, input, result } = reply.outcome;
    const watches = this.o.watches;
    if (!watches) return;
    await watches.incidents
      .acted(incident, { operation: operation.name, input, data: result.data })
      .catch((error: Error) => this.o.log.warn(`slack: could not update an incident message: ${error.message}`));
    // What the press changed (a retried pipeline running, a revert opened) is looked at now, wherever the watch runs,
    // rather than at its next interval: the person who pressed sees the message follow at once.
    const project = await watches.incidents.projectOf(incident).catch(() => undefined);
    if (project !== undefined)
      await watches.hub
        .nudge(project)
        .catch((error: Error) => this.o.log.warn(`slack: could not ask the watch to look again: ${error.message}`));
  }

  /** A button's premise read as the presser: what changed since it was drawn (nothing runs), or a note to show. */
  private async checkPremise(turn: Turn, premise: ButtonPremise): Promise<{ changed?: string; note?: string }> {
    const who = await this.o.identities.acting(turn.user, 'read');
    if (!who.ok) return { changed: who.message };
    const ctx = {
      client: this.o.identities.clientFor(this.o.client, who),
      token: who.token,
      deadline: Date.now() + this.o.callTimeoutMs,
    };
    try {
      const answer = await this.premises.check(premise, ctx);
      return answer.holds ? (answer.note ? { note: answer.note } : {}) : { changed: answer.changed };
    } catch (error) {
      return { changed: premiseUnread(error) };
    }
  }

  /** Mute for an hour, on an incident message: no new message for its project in this channel for an hour. */
  async mute(turn: Turn, ref: string): Promise<void> {
    const incidents = this.o.watches?.incidents;
    if (!incidents) return this.replies.answer(turn, renderText('Watching is off here; nothing was muted.', 'warning'));
    // A message drawn while the branch was red is muted only while it still is (checked as the presser).
    const premise = await incidents.mutePremise(turn.channelId, ref);
    if (premise) {
      const checked = await this.checkPremise(turn, premise);
      if (checked.changed !== undefined) return this.replies.answer(turn, renderText(checked.changed, 'warning'));
    }
    return this.replies.answer(turn, renderText(await incidents.mute(turn.user.userId, turn.channelId, ref), 'info'));
  }

  /** `/forge watch`, `unwatch`, `watching`: the channel's watches, the project read as the asker first. */
  private async watch(turn: Turn, words: string[]): Promise<void> {
    const watches = this.o.watches;
    if (!watches)
      return this.replies.answer(turn, renderText('Watching is off in this forgeops; nothing was watched.', 'warning'));
    const { dispatcher } = this.dispatcher(turn);
    const answer = await watchCommand([words[0].toLowerCase(), ...words.slice(1)], {
      ...watches,
      teamId: turn.user.teamId,
      channel: turn.channelId,
      by: turn.userName ? `@${turn.userName}` : turn.user.userId,
      readProject: async (project) => {
        const reply = await this.safely(() => dispatcher.call('get_project', { id: project }));
        if (reply.kind !== 'message') return { ok: false, why: 'reading it needs approval' };
        if (!reply.ok)
          return { ok: false, why: (reply.message.sections[0]?.text ?? reply.message.title).split('\n')[0] };
        const data = reply.outcome?.ok ? (reply.outcome.result.data as { path_with_namespace?: unknown }) : undefined;
        return { ok: true, path: typeof data?.path_with_namespace === 'string' ? data.path_with_namespace : project };
      },
      defaultProject: () => this.o.store.get<string>(projectKey(turn)),
      projectOf: (word) => this.projectOfLink(word) ?? word,
    });
    return this.replies.answer(turn, renderText(answer.text, answer.ok ? 'info' : 'warning'), {
      visibility: answer.inChannel ? 'in_channel' : 'ephemeral',
    });
  }

  /** An incident button's press (or its approval's answer) and what came of it, in the message's thread. */
  private async onTimeline(
    turn: Turn,
    incident: IncidentOfButton,
    did: 'pressed' | 'approved' | 'declined',
    reply?: ChatReply,
  ): Promise<void> {
    const incidents = this.o.watches?.incidents;
    if (!incidents) return;
    const outcome = !reply
      ? 'nothing was run'
      : reply.kind === 'approve'
        ? 'asked them to approve'
        : reply.ok
          ? reply.outcome?.operation.effect === 'read'
            ? `${reply.message.title} (shown to them)`
            : reply.message.title
          : reply.outcome
            ? `failed: ${reply.message.title}`
            : `not run: ${(reply.message.sections[0]?.text ?? reply.message.title).split('\n')[0]}`;
    await incidents
      .timeline(incident, renderTimeline({ user: turn.user.userId, did, label: incident.label, outcome }))
      .catch((error: Error) => this.o.log.warn(`slack: could not add to an incident's thread: ${error.message}`));
  }

  /**
   * Approve: spend the approval (requester, channel, expiry, once, unaltered), check the premise of the button that asked
   * again, ask the policy again, run, replace the question.
   */
  async approve(turn: Turn, approval: string): Promise<void> {
    const redeemed = await this.o.approvals.redeem(approval, { person: userKey(turn.user), place: turn.channelId });
    if (!redeemed.ok) {
      if (redeemed.expired) recordApproval('slack', 'expired');
      return this.replies.answer(turn, renderText(redeemed.reason, 'warning'));
    }
    recordApproval('slack', 'approved');
    const { dispatcher, acting } = this.dispatcher(turn);
    // A button's call stands on what the button was drawn on, and an approval may come long after the press: checked
    // again now, as the approver, so an approval for a branch green again runs nothing and says why, to them and in
    // the incident's thread. The approval is spent either way.
    const premise = redeemed.call.premise;
    const changed = premise ? (await this.checkPremise(turn, premise)).changed : undefined;
    const reply: ChatReply =
      changed !== undefined
        ? { kind: 'message', ok: false, message: chatMessage(changed, { status: 'warning' }) }
        : await this.safely(() => dispatcher.approved(redeemed.call.operation, redeemed.call.input));
    await this.replies.deliver(turn, reply, { acting, approved: true, replaceOriginal: true });
    const incident = await this.o.watches?.incidents.approvalIncident(approval);
    // The service refusing the approver (a developer approving a deployment: 403) is theirs alone, as a refused press
    // is: the thread records what was done, or why nothing was run.
    const refusedByService = reply.kind === 'message' && !reply.ok && reply.outcome?.ok === false;
    if (incident && !refusedByService) await this.onTimeline(turn, incident, 'approved', reply);
    if (incident) await this.onActed(incident, reply);
  }

  /**
   * Share in channel: the asker's private answer posted to the channel, once, saying who shared it; the private
   * copy loses its button. Its follow-up buttons are the channel's, each running as the one who clicks it.
   */
  async share(turn: Turn, ref: string): Promise<void> {
    const key = `share:${ref}`;
    const stored = await this.o.store.get<ShareRef>(key);
    if (!stored || stored.place !== turn.channelId || stored.requester !== userKey(turn.user)) {
      return this.replies.answer(
        turn,
        renderText('This button no longer works (it expired, or it is not yours); nothing was posted.', 'warning'),
      );
    }
    // The first click takes the answer; a later one finds only that it was shared.
    const taken = stored.message ? await this.o.store.take<ShareRef>(key) : undefined;
    if (!taken?.message)
      return this.replies.answer(turn, renderText('Already shared in the channel; not posted again.', 'warning'));
    await this.o.store.set(key, { place: taken.place, requester: taken.requester } satisfies ShareRef, {
      ttlMs: FOLLOW_UP_TTL_MS,
    });
    const { message } = taken;
    const who = turn.userName ?? turn.user.userId;
    await this.replies.answer(
      turn,
      await this.replies.render(turn, { ...message, notes: [...message.notes, 'Shared in the channel.'] }),
      { replaceOriginal: true },
    );
    await this.replies.answer(turn, await this.replies.render(turn, message, `Shared by ${who}.`), {
      visibility: 'in_channel',
    });
  }

  async cancel(turn: Turn, approval: string): Promise<void> {
    const cancelled = await this.o.approvals.cancel(approval, userKey(turn.user));
    if (!cancelled)
      return this.replies.answer(
        turn,
        renderText('Only the person who asked can cancel this, and only while it waits; nothing changed.', 'warning'),
      );
    recordApproval('slack', 'declined');
    const incident = await this.o.watches?.incidents.approvalIncident(approval);
    if (incident) await this.onTimeline(turn, incident, 'declined');
    // Not "Cancelled": on a "Cancel pipeline?" question that would read as the pipeline's fate.
    await this.replies.answer(turn, renderText('Not run: you answered no, and nothing was changed.', 'canceled'), {
      replaceOriginal: true,
    });
  }

  /**
   * The release form, when the command asks for it: `release create` with nothing after it, or only a project (else
   * the command runs as typed). The project is prefilled from the command or the channel's default.
   */
  async releaseForm(turn: Turn, text: string): Promise<Record<string, unknown> | undefined> {
    const [noun, verb, project, ...rest] = text.trim().split(/\s+/);
    if (noun?.toLowerCase() !== 'release' || verb?.toLowerCase() !== 'create' || rest.length > 0) return undefined;
    if (project !== undefined && (project.includes('=') || project.startsWith('-'))) return undefined;
    const given = project === undefined ? undefined : (this.projectOfLink(project) ?? project);
    const prefilled = given ?? (await this.o.store.get<string>(projectKey(turn)));
    return releaseView(
      { channelId: turn.channelId, ...(turn.responseUrl ? { responseUrl: turn.responseUrl } : {}) },
      prefilled,
    );
  }

  /**
   * A submitted release form: our schema first (errors go back into the form), then create_release through the
   * dispatcher as the one who submitted it (policy, audit). A refusal or the service's error goes back into the form
   * too; `post` shows the outcome (or, if the form was closed before the answer came, the error) in the channel.
   */
  async submitRelease(
    turn: Turn,
    args: Record<string, unknown>,
  ): Promise<{ errors?: FormErrors; post(): Promise<void> }> {
    const nothing = async () => {};
    const op = this.byName.get(RELEASE_OPERATION);
    if (!op) return { errors: { id: `This forgeops offers no ${RELEASE_OPERATION} operation.` }, post: nothing };
    try {
      validateInput(op, args);
    } catch (error) {
      if (error instanceof InputError) return { errors: inputErrors(error.issues), post: nothing };
      throw error;
    }
    const { dispatcher, acting } = this.dispatcher(turn);
    const reply = await this.safely(() => dispatcher.call(op.name, args));
    if (reply.kind === 'message' && !reply.ok) {
      const failed = reply.outcome && !reply.outcome.ok ? reply.outcome : undefined;
      await this.replies.audit(turn, reply, acting.current);
      const errors = serviceErrors(
        failed?.error as ApiError | undefined,
        failed?.message ?? reply.message.sections[0]?.text ?? reply.message.title,
        args,
      );
      return { errors, post: () => this.replies.deliver(turn, reply, { acting, audited: true }) };
    }
    return { post: () => this.replies.deliver(turn, reply, { acting }) };
  }

  /**
   * A message with links to the service (link_shared): each pipeline, commit, file or release link is read as the one
   * who shared it (their linked token, or the sandbox maintainer; never the shared read token) and, when its project
   * is public (see isPublicProject), unfurled with its presenter's Block Kit and follow-up buttons. A link that is
   * not public, not readable or not the service's is left as it is: an unfurl never shows an error to the channel.
   */
  async unfurl(turn: Turn, urls: readonly string[], place: UnfurlPlace): Promise<void> {
    const baseUrl = this.o.baseUrl;
    if (!baseUrl) return;
    const calls = [...new Set(urls)]
      .map((url) => unfurlCall(url, baseUrl))
      .filter((c) => c !== undefined)
      .slice(0, MAX_UNFURLS);
    if (calls.length === 0) return;
    const { dispatcher } = this.dispatcher(turn, { sharedReads: false });
    const callAs: CallAs = (operation, args) => this.safely(() => dispatcher.call(operation, args));
    const publicity = new Map<string, Promise<boolean>>();
    // Follow-ups are bound to the channel they are clicked in; a message still in the composer has none yet.
    const followUps = 'channel' in place;
    const unfurls: Record<string, { blocks: SlackMessage['blocks'] }> = {};
    await Promise.all(
      calls.map(async (call) => {
        if (!publicity.has(call.project)) publicity.set(call.project, isPublicProject(call.project, callAs));
        if (!(await publicity.get(call.project))) return;
        const reply = await callAs(call.operation, call.input);
        if (reply.kind !== 'message' || !reply.ok) return;
        unfurls[call.url] = {
          blocks: (await this.replies.render(turn, reply.message, undefined, { followUps })).blocks,
        };
      }),
    );
    if (Object.keys(unfurls).length === 0) return;
    await this.o.web
      .unfurl({ ...place, unfurls })
      .catch((error: unknown) =>
        this.o.log.warn(`slack: could not unfurl in ${turn.channelId}: ${(error as Error).message}`),
      );
  }

  /** The project a pasted link names, if it is a link to the service. */
  private projectOfLink(word: string): string | undefined {
    try {
      return readServiceUrl(word, this.o.baseUrl)?.project;
    } catch {
      return undefined;
    }
  }

  /** The login form's token: checked with GET /user, linked sealed, never shown back. An error names what to fix. */
  async login(user: SlackUser, token: string): Promise<{ ok: true; username: string } | { ok: false; error: string }> {
    if (!this.o.identities.canLink)
      return {
        ok: false,
        error: 'Linking is off: the operator has not set FORGEOPS_SECRET, and tokens are never stored unencrypted.',
      };
    const trimmed = token.trim();
    if (!trimmed || /\s/.test(trimmed) || trimmed.length > 512)
      return { ok: false, error: 'Paste one token, without spaces.' };
    const me = this.byName.get('get_current_user');
    if (!me) return { ok: false, error: 'This forgeops offers no get_current_user operation to check tokens with.' };
    const outcome = await executeCall(
      me,
      {},
      { client: this.o.client, token: trimmed, deadline: Date.now() + LOGIN_CHECK_MS },
      this.o.explain,
    );
    if (!outcome.ok) {
      const status = (outcome.error as { status?: number }).status;
      return {
        ok: false,
        error:
          status === 401 || status === 403
            ? 'The service refused this token (401): check it was copied whole and has not expired.'
            : `The token could not be checked: ${outcome.message.split('\n')[0]}`,
      };
    }
    const data = outcome.result.data as { id?: number; username?: string; name?: string };
    if (typeof data.username !== 'string') return { ok: false, error: 'The service did not say whose token this is.' };
    await this.o.identities.link(user, trimmed, { id: data.id, username: data.username, name: data.name });
    this.o.log.info(`slack: ${userKey(user)} linked the service account ${data.username}`);
    return { ok: true, username: data.username };
  }

  /**
   * A dispatcher for this turn: this user's token, this channel's default project, and this channel's read-only rule
   * as the policy's (so a write there is refused before any approval is issued). `sharedReads: false` leaves the
   * workspace's shared read token out (an unfurl runs only as the one who shared the link).
   */
  private dispatcher(
    turn: Turn,
    options: { sharedReads?: boolean } = {},
  ): { dispatcher: ChatDispatcher; acting: ActingHolder } {
    const acting: ActingHolder = {};
    const readOnlyChannel = this.o.settings.readOnlyChannels.has(turn.channelId);
    const dispatcher = createDispatcher({
      front: 'slack',
      operations: this.o.operations,
      policy: {
        readOnly: this.o.settings.readOnly || readOnlyChannel,
        // FORGEOPS_READ_ONLY is the wider rule: when it is on, the policy's own words name it.
        ...(readOnlyChannel && !this.o.settings.readOnly
          ? { readOnlyReason: 'this channel is read-only (SLACK_READ_ONLY_CHANNELS)' }
          : {}),
      },
      explain: this.o.explain,
      prefix: '/forge ',
      baseUrl: this.o.baseUrl,
      runContext: async (op) => {
        const who = await this.o.identities.acting(turn.user, op.effect);
        if (!who.ok) {
          if (who.connect) acting.connect = who.message;
          return { refused: who.message };
        }
        if (who.source === 'shared' && options.sharedReads === false) return { refused: LINK_PROMPT };
        acting.current = who;
        return {
          client: this.o.identities.clientFor(this.o.client, who, () => {
            acting.signedOut = true;
          }),
          token: who.token,
          deadline: Date.now() + this.o.callTimeoutMs,
        };
      },
      defaultProject: {
        get: () => this.o.store.get<string>(projectKey(turn)),
        set: (project) => this.o.store.set(projectKey(turn), project),
      },
    });
    return { dispatcher, acting };
  }

  private async safely(run: () => Promise<ChatReply>): Promise<ChatReply> {
    try {
      return await run();
    } catch (error) {
      this.o.log.error(`slack: ${(error as Error).stack ?? error}`);
      return {
        kind: 'message',
        ok: false,
        message: presentFailure(
          'Something went wrong inside forgeops; nothing more was run. The operator can find the details in its log.',
        ),
      };
    }
  }
}
