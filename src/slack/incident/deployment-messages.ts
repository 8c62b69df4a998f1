// The deployment side of the incident sink: a deployment that waits for approval, or one that failed, gets ONE message
// per channel (claimed in the store like a red episode's, so replicas and repeated deliveries post it once) that each
// later move updates in place. Waiting, it offers Approve and Reject; failed, Show the log and Retry. Buttons are
// follow-up references run as the presser, their premise (still waiting; still the environment's newest deployment)
// checked when pressed, and every press goes to the message's thread. Everything is sent through the durable outbox.
// A store that lost its data loses no move: the watch hub writes back what it remembered (the message goes on in
// place), and a move of a deployment whose message is not known any more gets a fresh message, never two.
import { deploymentApprovalActions } from '../../operations/areas/deployments.js';
import type { StateStore } from '../../state/store.js';
import type { WatchEvent } from '../../watch/branch-watch.js';
import { roomForFollowUps } from '../follow-ups.js';
import { rejectionOf, renderDeployment, type DeploymentView } from './deployment-render.js';
import { MESSAGE_TTL_MS, type Outbox } from './outbox.js';
import { renderLine, type IncidentButton } from './render.js';
import { type ButtonCall, storeButtons } from './buttons.js';

/** The buttons of a deployment message keep working this long (each update makes fresh ones). */
const BUTTON_TTL_MS = 7 * 24 * 3600_000;
/** Lines of the log Show the log shows. */
const LOG_LINES = 50;

type DeploymentEvent = Extract<WatchEvent, { kind: 'deployment' }>;

/** A deployment of a project, by its number when the watch has it (a rename keeps it), else its path. */
const deploymentKey = (event: DeploymentEvent) =>
  `${event.projectId ?? encodeURIComponent(event.project)}:${event.deployment.id}`;
export const deploymentMessageKey = (deployment: string, channel: string) =>
  `watch:deploy-msg:${deployment}:${channel}`;
const claimKey = (deployment: string, channel: string) => `watch:deploy-post:${deployment}:${channel}`;
const recordKey = (deployment: string, channel: string) => `watch:deploy:${deployment}:${channel}`;

interface DeploymentRecord {
  subscriber: string;
  channel: string;
  messageKey: string;
  view: DeploymentView;
}

export class DeploymentMessages {
  constructor(
    private readonly o: {
      store: StateStore;
      outbox: Outbox;
      now: () => number;
      /** The channel's Mute for an hour (pressed on an incident message): until when it holds, if it does. */
      mutedUntil: (channel: string, project: { id?: number; path: string }) => Promise<number | undefined>;
    },
  ) {}

  /** A deployment's move told to a channel: its message posted (once) or updated in place. */
  async told(subscriber: string, channel: string, event: DeploymentEvent): Promise<void> {
    const { store, outbox } = this.o;
    const deployment = deploymentKey(event);
    const key = recordKey(deployment, channel);
    const known = await store.get<DeploymentRecord>(key);
    // The record without its message (the store lost the post waiting in the outbox, or the message's ts): a message
    // of its own, drawn afresh, rather than an update of one nobody can find, which the outbox would drop unsaid.
    if (known && !(await outbox.knows(channel, known.messageKey)))
      return this.posted(subscriber, channel, event, known);
    if (known) {
      const before = known.view.deployment.status;
      const now = event.deployment;
      known.view.project = event.project;
      known.view.deployment = now;
      known.view.buttons = await this.buttons(known, event.ref);
      await store.set(key, known, { ttlMs: MESSAGE_TTL_MS });
      await outbox.update(subscriber, channel, known.messageKey, renderDeployment(known.view));
      // An update notifies nobody: a deploy that failed after its approval is an alert, said in the thread too.
      if (now.status === 'failed' && before !== 'failed' && !rejectionOf(now))
        await outbox.reply(
          subscriber,
          channel,
          known.messageKey,
          renderLine(
            `:rotating_light: Deployment #${now.id} to ${now.environment} failed${now.job ? `: job ${now.job.name} (#${now.job.id})` : ''}`,
          ),
        );
      return;
    }
    // A move of a deployment this channel has no record of is told only when the watch followed it while it waited
    // (it tells nothing else but waiting and failed): the channel's message was lost with the store (Redis flushed
    // or restarted empty, and no replica remembered it), or the channel watches since it waited. Either way it gets
    // a message now, drawn from what the watch sees, rather than the move vanishing; its claim keeps it to one.
    // Mute promises the channel no NEW message about the project for an hour, and a deployment's is one as much as
    // a red episode's. The message of a deployment already in the channel still follows it (the branch above): people
    // who saw it wait may be waiting for its outcome, and an update or a reply in its thread is no new message. A
    // deployment muted now is not claimed, so if it fails after the hour it is told then.
    if (await this.o.mutedUntil(channel, { id: event.projectId, path: event.project })) return;
    // Told again (a replica taking over, a delivery retried): the claim is there and nothing is posted twice.
    if (!(await store.add(claimKey(deployment, channel), this.o.now(), { ttlMs: MESSAGE_TTL_MS }))) return;
    await this.posted(subscriber, channel, event);
  }

  /** The deployment's message posted as it stands now, its record (a claimed one, or `known`) kept for its moves. */
  private async posted(
    subscriber: string,
    channel: string,
    event: DeploymentEvent,
    known?: DeploymentRecord,
  ): Promise<void> {
    const deployment = deploymentKey(event);
    const record: DeploymentRecord = known ?? {
      subscriber,
      channel,
      messageKey: deploymentMessageKey(deployment, channel),
      view: { project: event.project, deployment: event.deployment, buttons: [] },
    };
    record.view.project = event.project;
    record.view.deployment = event.deployment;
    record.view.buttons = await this.buttons(record, event.ref);
    await this.o.store.set(recordKey(deployment, channel), record, { ttlMs: MESSAGE_TTL_MS });
    const message = renderDeployment(record.view);
    await this.o.outbox.post(subscriber, channel, record.messageKey, message, `deploy:${deployment}`);
  }

  /** The calls of the message as it stands: Approve and Reject while it waits; Show the log and Retry once it failed. */
  private calls(view: DeploymentView, ref: string): ButtonCall[] {
    const { project, deployment } = view;
    const where = { project, ref, deployment_id: deployment.id };
    if (deployment.status === 'blocked')
      return deploymentApprovalActions(project, { id: deployment.id, status: deployment.status }).map((step) => ({
        label: step.label,
        operation: step.operation,
        input: step.input,
        ...(step.style ? { style: step.style } : {}),
        premise: { kind: 'deployment', ...where },
        // Saying why is part of a rejection: Reject opens a form for the reason first (optional), and the comment
        // goes with the call the presser then confirms.
        ...(step.input.status === 'rejected' ? { asksComment: true as const } : {}),
      }));
    const job = deployment.job;
    if (deployment.status !== 'failed' || rejectionOf(deployment) || !job) return [];
    // No Roll back here: rollback_environment goes back from the environment's last successful deployment, which a
    // failed one did not replace; the incident message offers it when a culprit is live somewhere.
    return [
      {
        label: 'Show the log',
        operation: 'get_job_log',
        input: { id: project, job_id: job.id, lines: LOG_LINES },
      },
      {
        label: `Retry ${job.name}`,
        operation: 'retry_job',
        input: { id: project, job_id: job.id },
        style: 'primary',
        premise: { kind: 'deploy-retry', ...where, environment: deployment.environment },
      },
    ];
  }

  /** Fresh button references for the message as it stands, bound to its channel and thread. */
  private async buttons(record: DeploymentRecord, ref: string): Promise<IncidentButton[]> {
    const calls = this.calls(record.view, ref);
    if (calls.length === 0 || !(await roomForFollowUps(this.o.store, calls.length))) return [];
    return storeButtons(this.o.store, calls, record.channel, record, BUTTON_TTL_MS);
  }
}
