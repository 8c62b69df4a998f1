// The Slack side of the incident loop: the watch hub's sink for `slack:<team>:<channel>` subscribers. A red episode
// gets ONE message per channel (claimed in the store, so replicas and repeated deliveries post it once), which each
// later transition updates in place; its buttons are follow-up references run as the presser, and every press and
// its outcome goes to the message's thread. Everything is sent through the durable outbox.
import { randomBytes } from 'node:crypto';
import type { Logger } from '../../log.js';
import type { ButtonPremise } from '../../operations/composed/button-premise.js';
import { revertAction } from '../../operations/composed/revert-as-merge-request.js';
import { MERGE_OPERATION, openRevertAction, type OpenRevert } from '../../operations/composed/open-reverts.js';
import { asRecord, shortSha, show } from '../../operations/engine/present.js';
import { INCIDENT_OPERATION, type TriageReport } from '../../operations/composed/triage.js';
import { rollbackStandsOn } from '../../operations/composed/culprit-reach.js';
import type { StateStore } from '../../state/store.js';
import {
  EPISODE_TTL_MS,
  revertKey,
  rollbackJobKey,
  type FollowedRevert,
  type WatchEvent,
} from '../../watch/branch-watch.js';
import { fixedByText, isMergeOf } from '../../operations/composed/fixed-by.js';
import type { WatchHub, WatchSink } from '../../watch/hub.js';
import type { Subscription } from '../../watch/hub-records.js';
import { ACTION_IDS, type SlackMessage } from '../blocks.js';
import { roomForFollowUps, type IncidentOfButton } from '../follow-ups.js';
import type { Identities } from '../identity.js';
import { DeploymentMessages } from './deployment-messages.js';
import { MESSAGE_TTL_MS, type Outbox } from './outbox.js';
import {
  renderGone,
  renderLine,
  renderIncident,
  renderNote,
  revertFailedText,
  type IncidentButton,
  type IncidentRevert,
  type IncidentPhase,
  type IncidentView,
} from './render.js';
import { type ButtonCall, storeButtons } from './buttons.js';

const SLACK_SUBSCRIBER_PREFIX = 'slack:';
/** How long Mute for an hour mutes. */
const MUTE_MS = 3600_000;
/** The buttons of an incident message keep working this long (each update makes fresh ones). */
const BUTTON_TTL_MS = 7 * 24 * 3600_000;
/** Lines of the log Show the log shows. */
const LOG_LINES = 50;
/** An approval asked from an incident button is remembered this long (an approval lives 5 minutes). */
const APPROVAL_TTL_MS = 10 * 60_000;

export const subscriberOf = (teamId: string, channel: string) => `${SLACK_SUBSCRIBER_PREFIX}${teamId}:${channel}`;

/** The team and channel of a Slack subscriber, or undefined for anyone else's. */
export function channelOf(subscriber: string): { teamId: string; channel: string } | undefined {
  const match = /^slack:([^:]*):([^:]+)$/.exec(subscriber);
  return match ? { teamId: match[1], channel: match[2] } : undefined;
}

export const messageKey = (episode: string, channel: string) => `watch:msg:${episode}:${channel}`;
const claimKey = (episode: string, channel: string) => `watch:post:${episode}:${channel}`;
const recordKey = (episode: string, channel: string) => `watch:incident:${episode}:${channel}`;
/**
 * A channel's mute of a project, by its number (a rename keeps it), or by its path for a message from before watches
 * were kept by number: mutes last an hour, so such a path key is read for an hour after an upgrade and then is gone.
 * The watch hub writes these back after the store lost its data (MUTE_PREFIX in src/watch/hub.ts: keep the two in step).
 */
const muteKey = (channel: string, project: number | string) =>
  `watch:mute:${channel}:${typeof project === 'number' ? project : encodeURIComponent(project)}`;
const muteRefKey = (ref: string) => `incident-mute:${ref}`;
const approvalKey = (approval: string) => `incident-approval:${approval}`;
/** A rollback pressed on an incident message, by the deploy job its retry made (its deployment's job) and channel. */
const rollbackKey = (job: number, channel: string) => `watch:rollback:${job}:${channel}`;

/** A rollback under way: the incident whose thread hears its end, the environment and what it goes back to. */
interface FollowedRollback {
  incident: IncidentOfButton;
  environment: string;
  to: { sha: string; ref: string };
}

interface IncidentRecord {
  subscriber: string;
  channel: string;
  messageKey: string;
  view: IncidentView;
  /** The reference of the message's Mute button: one per message, however often it is updated. */
  muteRef?: string;
}

interface MuteRef {
  place: string;
  project: string;
  projectId?: number;
  incident: IncidentOfButton;
  /** What the latest version of the message stood on: a Mute pressed after the red is over mutes nothing. */
  premise?: ButtonPremise;
}

interface IncidentMessagesOptions {
  store: StateStore;
  outbox: Outbox;
  identities: Identities;
  log: Logger;
  now?: () => number;
}

export class IncidentMessages implements WatchSink {
  readonly prefix = SLACK_SUBSCRIBER_PREFIX;
  /** Channels hear of deployments that wait for approval or fail, so the watches follow them. */
  readonly followsDeployments = true;
  private readonly now: () => number;
  private hub: WatchHub | undefined;
  private readonly deployments: DeploymentMessages;

  constructor(private readonly o: IncidentMessagesOptions) {
    this.now = o.now ?? Date.now;
    this.deployments = new DeploymentMessages({
      store: o.store,
      outbox: o.outbox,
      now: () => this.now(),
      mutedUntil: (channel, project) => this.mutedUntil(channel, project),
    });
  }

  /** The hub this sink was added to, whose subscriptions a channel the bot left loses. */
  attach(hub: WatchHub): void {
    this.hub = hub;
  }

  async deliver(subscription: Subscription, event: WatchEvent): Promise<void> {
    const where = channelOf(subscription.subscriber);
    if (!where) return;
    const { channel } = where;
    switch (event.kind) {
      case 'watching':
        return;
      case 'gone':
        return this.o.outbox.notice(
          subscription.subscriber,
          channel,
          renderGone(event.project, event.ref, event.reason),
        );
      case 'red':
        return this.opened(subscription.subscriber, channel, event);
      case 'revert':
        return this.revertMoved(channel, event);
      case 'deployment':
        await this.deployments.told(subscription.subscriber, channel, event);
        return this.rollbackMoved(channel, event);
      default:
        return this.moved(channel, event);
    }
  }

  /** When this channel's message of the episode was claimed (it is posted, or on its way); undefined: it has none. */
  async messageClaimedAt(episode: string, channel: string): Promise<number | undefined> {
    return this.o.store.get<number>(claimKey(episode, channel));
  }

  /** When new incident and deployment messages for the project (by number, else path) come to `channel` again, if muted. */
  async mutedUntil(channel: string, project: { id?: number; path: string }): Promise<number | undefined> {
    const { store } = this.o;
    return (
      (project.id === undefined ? undefined : await store.get<number>(muteKey(channel, project.id))) ??
      (await store.get<number>(muteKey(channel, project.path)))
    );
  }

  /** A line in the incident message's thread. */
  async timeline(incident: IncidentOfButton, message: SlackMessage): Promise<void> {
    const where = channelOf(incident.subscriber);
    if (where) await this.o.outbox.reply(incident.subscriber, where.channel, incident.messageKey, message);
  }

  /** An approval asked from an incident button: its answer goes to the same thread. */
  async rememberApproval(approval: string, incident: IncidentOfButton): Promise<void> {
    await this.o.store.set(approvalKey(approval), incident, { ttlMs: APPROVAL_TTL_MS });
  }

  async approvalIncident(approval: string): Promise<IncidentOfButton | undefined> {
    return this.o.store.take<IncidentOfButton>(approvalKey(approval));
  }

  /** The premise of a Mute button, to check as the presser before muting (none: an expired or foreign button). */
  async mutePremise(channel: string, ref: string): Promise<ButtonPremise | undefined> {
    const stored = await this.o.store.get<MuteRef>(muteRefKey(ref));
    return stored?.place === channel ? stored.premise : undefined;
  }

  /** Mute for an hour, pressed by `user` in `channel`: what to answer them (the thread hears it too). */
  async mute(user: string, channel: string, ref: string): Promise<string> {
    const stored = await this.o.store.get<MuteRef>(muteRefKey(ref));
    if (!stored || stored.place !== channel)
      return 'This button no longer works (it expired, or it belongs to another channel); nothing was muted.';
    const until = this.now() + MUTE_MS;
    await this.o.store.set(muteKey(channel, stored.projectId ?? stored.project), until, { ttlMs: MUTE_MS });
    await this.timeline(
      stored.incident,
      renderNote(
        user,
        `pressed Mute for an hour → no new incident or deployment message for ${stored.project} in this channel for an hour (those already here still update)`,
      ),
    );
    return `Muted: no new incident or deployment message for ${stored.project} in this channel for an hour; those already here still update.`;
  }

  /** The bot can no longer post in a channel: its watches stop, and the log says why once. */
  async channelGone(subscriber: string, reason: string): Promise<void> {
    const hub = this.hub;
    const subscriptions = hub ? await hub.subscriptions(subscriber) : [];
    for (const s of subscriptions) await hub!.unsubscribe({ subscriber, project: s.projectId ?? s.project });
    if (await this.o.store.add(`slack:gone:${subscriber}`, this.now(), { ttlMs: 3600_000 })) {
      const projects = subscriptions.map((s) => s.project).join(', ') || 'nothing';
      this.o.log.warn(
        `slack: Slack answered ${reason} for ${channelOf(subscriber)?.channel ?? subscriber}: stopped watching ${projects} there`,
      );
    }
  }

  private async opened(
    subscriber: string,
    channel: string,
    event: Extract<WatchEvent, { kind: 'red' }>,
  ): Promise<void> {
    const { store } = this.o;
    if (await this.mutedUntil(channel, { id: event.projectId, path: event.project })) return;
    // A red told again (a new subscription while red, a replica taking over) finds the claim and posts nothing.
    if (!(await store.add(claimKey(event.episode, channel), this.now(), { ttlMs: MESSAGE_TTL_MS }))) return;
    const key = messageKey(event.episode, channel);
    const view: IncidentView = {
      project: event.project,
      ...(event.projectId === undefined ? {} : { projectId: event.projectId }),
      ref: event.ref,
      report: event.report,
      phase: 'red',
      buttons: [],
      ...(await this.culprit(subscriber, event.report)),
    };
    followOpenRevert(view, event.report);
    const record: IncidentRecord = { subscriber, channel, messageKey: key, view };
    view.buttons = await this.buttons(record);
    await store.set(recordKey(event.episode, channel), record, { ttlMs: MESSAGE_TTL_MS });
    await this.o.outbox.post(subscriber, channel, key, renderIncident(view, this.now()), event.episode);
  }

  /** A later transition of an episode this channel has a message of: the message, updated in place. */
  private async moved(
    channel: string,
    event: Extract<WatchEvent, { kind: 'running' | 'still-red' | 'green' }>,
  ): Promise<void> {
    const { store } = this.o;
    const record = await store.get<IncidentRecord>(recordKey(event.episode, channel));
    if (!record) return;
    const view = record.view;
    // Renamed or moved since the message was posted: it says the path as it is now, and its buttons act on that.
    view.project = event.project;
    const phase: IncidentPhase = event.kind;
    view.phase = phase;
    delete view.running;
    if (event.kind === 'running') view.running = { id: event.pipeline.id, sha: event.pipeline.sha };
    if (event.kind === 'still-red') {
      view.report = event.report;
      followOpenRevert(view, event.report);
    }
    if (event.kind === 'green') {
      const revert = view.revert;
      // The watch names the merge request (the revert it followed, or one the merge commit names); a green told by a
      // watch from before it did is matched against the message's own revert.
      const mergeRequest =
        event.fixedByMergeRequest ??
        (revert && isMergeOf(event.fixedBy, revert) ? { iid: revert.iid, reverts: revert.reverts } : undefined);
      view.green = { redForMs: event.redForMs, fixedBy: event.fixedBy, ...(mergeRequest ? { mergeRequest } : {}) };
    }
    view.buttons = phase === 'green' ? [] : await this.buttons(record);
    await store.set(recordKey(event.episode, channel), record, { ttlMs: MESSAGE_TTL_MS });
    await this.o.outbox.update(record.subscriber, channel, record.messageKey, renderIncident(view, this.now()));
    // With a revert under way, the thread follows it to the end: main's pipeline after the merge, then green.
    const revert = view.revert;
    if (revert && event.kind === 'running' && event.pipeline.id !== view.report.head_pipeline?.id)
      await this.o.outbox.reply(
        record.subscriber,
        channel,
        record.messageKey,
        renderLine(
          `:arrows_counterclockwise: ${view.ref}'s pipeline #${event.pipeline.id} is running on ${shortSha(event.pipeline.sha)}${revert.merge_when_pipeline_succeeds || revert.merged ? ` (after !${revert.iid})` : ''}`,
        ),
      );
    if (revert && event.kind === 'green') {
      const fixed = fixedByText(event.fixedBy, view.green?.mergeRequest);
      await this.o.outbox.reply(
        record.subscriber,
        channel,
        record.messageKey,
        renderLine(`:white_check_mark: Resolved: green again, fixed by ${fixed}`),
      );
    }
  }

  /**
   * The revert's own pipeline moved (the watch follows it while open): the message says where it stands in place —
   * failed, with Retry and its log offered — and the thread says when it failed or passed.
   */
  private async revertMoved(channel: string, event: Extract<WatchEvent, { kind: 'revert' }>): Promise<void> {
    const { store } = this.o;
    const key = recordKey(event.episode, channel);
    const record = await store.get<IncidentRecord>(key);
    const revert = record?.view.revert;
    if (!record || record.view.phase === 'green' || revert?.iid !== event.revert.iid || revert.merged) return;
    const view = record.view;
    view.project = event.project;
    revert.pipeline = { id: event.pipeline.id, status: event.pipeline.status };
    if (event.pipeline.web_url) revert.pipeline.web_url = event.pipeline.web_url;
    if (event.revert.sha) revert.sha = event.revert.sha;
    if (event.failedJob) revert.failedJob = event.failedJob;
    else delete revert.failedJob;
    view.buttons = await this.buttons(record);
    await store.set(key, record, { ttlMs: MESSAGE_TTL_MS });
    await this.o.outbox.update(record.subscriber, channel, record.messageKey, renderIncident(view, this.now()));
    const failed = revertFailedText(revert);
    const said = failed
      ? `:x: ${failed}`
      : event.pipeline.status === 'success'
        ? `:white_check_mark: !${revert.iid}'s pipeline #${event.pipeline.id} passed`
        : undefined;
    if (said) await this.o.outbox.reply(record.subscriber, channel, record.messageKey, renderLine(said));
  }

  /**
   * The project an incident message is about, by its number where known (a rename keeps it), for the watch to look
   * at right after a press there: a retry's pipeline shows running at once, not an interval later.
   */
  async projectOf(incident: IncidentOfButton): Promise<string | number | undefined> {
    const where = channelOf(incident.subscriber);
    const prefix = 'watch:msg:';
    if (!where || !incident.messageKey.startsWith(prefix)) return undefined;
    const episode = incident.messageKey.slice(prefix.length, -(where.channel.length + 1));
    const view = (await this.o.store.get<IncidentRecord>(recordKey(episode, where.channel)))?.view;
    return view?.projectId ?? view?.project;
  }

  /**
   * A press (or its approval) carried out on this message: what it did to the revert under way, shown at once — the
   * merge request a Revert opened gets its Merge when green button, a merge set to wait says which pipeline it waits
   * for, a retry of the revert's pipeline shows it running again.
   */
  async acted(
    incident: IncidentOfButton,
    call: { operation: string; input: Record<string, unknown>; data: unknown },
  ): Promise<void> {
    const where = channelOf(incident.subscriber);
    const prefix = 'watch:msg:';
    if (!where || !incident.messageKey.startsWith(prefix)) return;
    const episode = incident.messageKey.slice(prefix.length, -(where.channel.length + 1));
    if (call.operation === 'rollback_environment') return this.rollbackStarted(incident, episode, call.data);
    const key = recordKey(episode, where.channel);
    const record = await this.o.store.get<IncidentRecord>(key);
    if (!record || record.view.phase === 'green') return;
    const view = record.view;
    const data = asRecord(call.data);
    if (call.operation === 'revert_as_merge_request') {
      const mr = asRecord(data.merge_request);
      if (mr.iid === undefined) return;
      view.revert = {
        iid: Number(mr.iid),
        title: show(mr.title),
        source_branch: show(data.branch),
        ...(typeof mr.web_url === 'string' ? { web_url: mr.web_url } : {}),
        ...(typeof asRecord(data.revert_commit).id === 'string'
          ? { sha: String(asRecord(data.revert_commit).id) }
          : {}),
        matched_by: 'branch',
        merge_when_pipeline_succeeds: false,
        reverts: show(asRecord(data.reverted).id),
      };
      // The watch follows it from now on (its pipeline), whichever replica holds the watch.
      const followed: FollowedRevert = {
        iid: view.revert.iid,
        source_branch: view.revert.source_branch,
        title: view.revert.title,
        ...(view.revert.sha ? { sha: view.revert.sha } : {}),
        reverts: view.revert.reverts,
      };
      await this.o.store.set(revertKey(episode), followed, { ttlMs: EPISODE_TTL_MS });
    } else if (call.operation === MERGE_OPERATION && view.revert?.iid === Number(call.input.merge_request_iid)) {
      const pipeline = asRecord(data.head_pipeline ?? data.pipeline);
      Object.assign(view.revert, {
        merge_when_pipeline_succeeds: data.merge_when_pipeline_succeeds === true,
        merged: data.state === 'merged',
        ...(typeof data.sha === 'string' ? { sha: data.sha } : {}),
        ...(pipeline.id !== undefined ? { pipeline: { id: Number(pipeline.id), status: show(pipeline.status) } } : {}),
      });
    } else if (
      call.operation === 'retry_pipeline' &&
      view.revert?.pipeline &&
      view.revert.pipeline.id === Number(call.input.pipeline_id)
    ) {
      view.revert.pipeline = { ...view.revert.pipeline, status: show(data.status) };
      delete view.revert.failedJob;
    } else return;
    view.buttons = await this.buttons(record);
    await this.o.store.set(key, record, { ttlMs: MESSAGE_TTL_MS });
    await this.o.outbox.update(record.subscriber, where.channel, record.messageKey, renderIncident(view, this.now()));
  }

  /**
   * A Roll back pressed here retried an earlier deploy job: the watch follows that job's deployment (it moves no
   * pipeline of the branch), and the incident's thread hears when the environment runs the older commit again — after
   * an approval, maybe much later.
   */
  private async rollbackStarted(incident: IncidentOfButton, episode: string, data: unknown): Promise<void> {
    const channel = channelOf(incident.subscriber)?.channel;
    const rolled = asRecord(data);
    const job = asRecord(rolled.job);
    if (job.id === undefined || channel === undefined) return;
    const to = asRecord(rolled.to);
    const followed: FollowedRollback = {
      incident,
      environment: show(asRecord(rolled.environment).name),
      to: { sha: show(to.sha), ref: show(to.ref) },
    };
    await this.o.store.set(rollbackKey(Number(job.id), channel), followed, { ttlMs: MESSAGE_TTL_MS });
    await this.o.store.set(rollbackJobKey(episode), Number(job.id), { ttlMs: MESSAGE_TTL_MS });
  }

  /** A deployment a Roll back here made has ended: the incident's thread says the environment was rolled back, or not. */
  private async rollbackMoved(channel: string, event: Extract<WatchEvent, { kind: 'deployment' }>): Promise<void> {
    const { deployment } = event;
    if (!deployment.job || !['success', 'failed', 'canceled'].includes(deployment.status)) return;
    const followed = await this.o.store.take<FollowedRollback>(rollbackKey(deployment.job.id, channel));
    if (!followed) return;
    const { environment, to } = followed;
    const by = deployment.user ? ` by @${deployment.user}` : '';
    const said =
      deployment.status === 'success'
        ? `:rewind: ${environment} rolled back to ${to.ref} (${shortSha(to.sha)})${by}`
        : `:warning: ${environment} was not rolled back to ${to.ref} (${shortSha(to.sha)}): deployment #${deployment.id} is ${deployment.status}`;
    await this.o.outbox.reply(followed.incident.subscriber, channel, followed.incident.messageKey, renderLine(said));
  }

  /** The first red commit's author as a Slack user, when they linked their account here. */
  private async culprit(subscriber: string, report: TriageReport): Promise<{ culpritUser?: string }> {
    const author = report.red_since?.first_red.author;
    const teamId = channelOf(subscriber)?.teamId;
    if (!author || teamId === undefined) return {};
    const user = await this.o.identities.slackUserOf(teamId, author);
    return user ? { culpritUser: user } : {};
  }

  /** The buttons of the message as it stands: fresh references each time, bound to its channel and thread. */
  private async buttons(record: IncidentRecord): Promise<IncidentButton[]> {
    const { view, channel } = record;
    const { report, project } = view;
    const calls: Array<ButtonCall & { premise: ButtonPremise }> = [];
    const where = { project, ref: view.ref };
    const head = report.head_pipeline;
    if (head && view.phase !== 'running' && !report.running_pipeline) {
      calls.push({
        label: 'Retry failed jobs',
        operation: 'retry_pipeline',
        input: { id: project, pipeline_id: head.id },
        style: 'primary',
        premise: { kind: 'retry', ...where, pipeline_id: head.id },
      });
    }
    // A revert open already (pressed here, or found by triage): its merge when green, never a second revert.
    const open = view.revert;
    const step = open && !open.merged ? openRevertAction(project, open) : undefined;
    if (open && step) {
      if (calls[0]?.style === 'primary') delete calls[0].style;
      const merging = step.operation === MERGE_OPERATION;
      calls.unshift({
        label: merging ? 'Merge when green' : step.label,
        operation: step.operation,
        input: step.input,
        style: 'primary',
        // A retry of the revert's pipeline stands while that pipeline is still its latest and failed.
        premise: {
          kind: 'merge',
          ...where,
          merge_request_iid: open.iid,
          ...(merging && open.sha ? { sha: open.sha } : {}),
          ...(!merging && open.pipeline ? { pipeline_id: open.pipeline.id } : {}),
        },
      });
    }
    const revert = !open && report.failure?.kind === 'broken' ? revertAction(project, report) : undefined;
    if (revert)
      calls.push({
        label: revert.label,
        operation: revert.operation,
        input: revert.input,
        premise: { kind: 'revert', ...where, sha: String(revert.input.sha) },
      });
    // Rolling back an environment the culprit is live in: after the revert (fixing the branch first), pinned as triage
    // offers it (the environment, the deployment to go back to, and the current one it stands on).
    for (const rollback of report.actions.filter((a) => a.operation === 'rollback_environment'))
      calls.push({
        label: rollback.label,
        operation: rollback.operation,
        input: rollback.input,
        style: 'danger',
        premise: { kind: 'rollback', ...where, ...rollbackStandsOn(rollback.input, report.deployed) },
      });
    calls.push({
      label: 'Open an incident issue',
      operation: INCIDENT_OPERATION,
      input: { id: project },
      premise: { kind: 'incident', ...where },
    });
    const revertFailing = open && !open.merged && revertFailedText(open) ? open.failedJob : undefined;
    if (open && revertFailing)
      calls.push({
        label: `Show !${open.iid}'s log`,
        operation: 'get_job_log',
        input: { id: project, job_id: revertFailing.id, lines: LOG_LINES },
        premise: { kind: 'log', ...where },
      });
    const failing = report.failed_jobs[0];
    if (failing)
      calls.push({
        label: 'Show the log',
        operation: 'get_job_log',
        input: { id: project, job_id: failing.id, lines: LOG_LINES },
        premise: { kind: 'log', ...where, ...(head ? { pipeline_id: head.id } : {}) },
      });
    if (!(await roomForFollowUps(this.o.store, calls.length))) return [];
    const buttons = await storeButtons(this.o.store, calls, channel, record, BUTTON_TTL_MS);
    record.muteRef ??= randomBytes(12).toString('base64url');
    const incident: IncidentOfButton = {
      subscriber: record.subscriber,
      messageKey: record.messageKey,
      label: 'Mute for an hour',
    };
    const mute: MuteRef = {
      place: channel,
      project,
      ...(view.projectId === undefined ? {} : { projectId: view.projectId }),
      incident,
      premise: { kind: 'mute', ...where, ...(head ? { pipeline_id: head.id } : {}) },
    };
    await this.o.store.set(muteRefKey(record.muteRef), mute, { ttlMs: BUTTON_TTL_MS });
    buttons.push({ label: 'Mute for an hour', actionId: ACTION_IDS.mute, value: record.muteRef });
    return buttons;
  }
}

/** The revert triage found open for the culprit, followed by the message (one a press opened is kept, updated). */
function followOpenRevert(view: IncidentView, report: TriageReport): void {
  const found = report.open_reverts ?? [];
  const reverts = report.red_since?.first_red.sha ?? '';
  const same = view.revert && found.find((mr: OpenRevert) => mr.iid === view.revert!.iid);
  if (same) Object.assign(view.revert!, same);
  else if (!view.revert && found[0]) view.revert = { ...found[0], reverts } satisfies IncidentRevert;
}
