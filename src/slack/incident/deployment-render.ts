// The deployment message in Block Kit: one message per deployment and channel, re-rendered whole at each move (waits
// for approval, approved or rejected, deploying, deployed, failed). Pure: no I/O; every string from the service goes
// through inline(), so an environment or a comment can neither mention, link nor start a line of its own.
import { shortSha } from '../../operations/engine/present.js';
import type { DeploymentSeen } from '../../watch/deployment-watch.js';
import { LIMITS, cut, type Block, type SlackMessage } from '../blocks.js';
import { buttonsBlock } from './buttons.js';
import { inline, type IncidentButton } from './render.js';

/** What the message shows; the sink keeps it in the store so any replica renders the same message. */
export interface DeploymentView {
  /** The project's path as last told. */
  project: string;
  deployment: DeploymentSeen;
  buttons: IncidentButton[];
}

const STATUS_WORDS: Record<string, { emoji: string; words: string }> = {
  blocked: { emoji: ':hourglass_flowing_sand:', words: 'waits for approval' },
  created: { emoji: ':white_check_mark:', words: 'is approved, waiting to deploy' },
  running: { emoji: ':arrows_counterclockwise:', words: 'is deploying' },
  success: { emoji: ':rocket:', words: 'deployed' },
  failed: { emoji: ':rotating_light:', words: 'failed' },
  canceled: { emoji: ':heavy_multiplication_x:', words: 'was canceled' },
  skipped: { emoji: ':heavy_multiplication_x:', words: 'was skipped' },
};

/** Rejected: an approval said no (the service then fails the job), which is no failure to alert on. */
export const rejectionOf = (deployment: DeploymentSeen) => deployment.approvals.find((a) => a.status === 'rejected');

/** "Deployment #12 of 1a2b3c4d (main) to production", service text escaped. */
function whichText(d: DeploymentSeen): string {
  return `Deployment #${d.id} of \`${inline(shortSha(d.sha))}\` (${inline(d.ref)}) to *${inline(d.environment)}*`;
}

/** What became of it: "waits for approval", "was rejected", "failed". */
function stateWords(d: DeploymentSeen): { emoji: string; words: string } {
  if (d.status === 'failed' && rejectionOf(d)) return { emoji: ':no_entry:', words: 'was rejected' };
  return STATUS_WORDS[d.status] ?? { emoji: ':grey_question:', words: `is ${d.status}` };
}

/** "approved by @alice", "rejected by @alice: not today". */
function approvalLines(d: DeploymentSeen): string[] {
  return d.approvals.map(
    (a) =>
      `${inline(a.status)} by ${a.user ? `@${inline(a.user)}` : 'someone'}${a.comment ? `: ${inline(a.comment)}` : ''}`,
  );
}

function section(text: string): Block {
  return { type: 'section', text: { type: 'mrkdwn', text: cut(text, LIMITS.sectionText) } };
}

/** The whole message: headline, who deployed, the decisions, the job, the buttons while there is something to do. */
export function renderDeployment(view: DeploymentView): SlackMessage {
  const d = view.deployment;
  const { emoji, words } = stateWords(d);
  const by = d.user ? ` — deployed by @${inline(d.user)}` : '';
  const blocks: Block[] = [section(`${emoji} ${whichText(d)} ${words}${by}`)];
  const decided = approvalLines(d);
  const waiting = d.status === 'blocked' && d.pending_approval_count > 0;
  const details = [
    `*${inline(view.project)}*`,
    ...(d.job ? [`job ${inline(d.job.name)} (#${d.job.id})`] : []),
    ...(waiting ? [`${d.pending_approval_count} approval${d.pending_approval_count === 1 ? '' : 's'} needed`] : []),
  ];
  blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: cut(details.join(' · '), LIMITS.sectionText) }] });
  if (decided.length > 0) blocks.push(section(decided.join('\n')));
  const buttons = buttonsBlock(view.buttons);
  if (buttons) blocks.push(buttons);
  const plain = `${view.project}: Deployment #${d.id} of ${shortSha(d.sha)} (${d.ref}) to ${d.environment} ${words}${d.user ? ` — deployed by @${d.user}` : ''}${decided.length > 0 ? ` (${d.approvals.map((a) => `${a.status} by @${a.user ?? 'someone'}`).join(', ')})` : ''}`;
  return { text: cut(inline(plain), LIMITS.fallbackText), blocks: blocks.slice(0, LIMITS.blocks) };
}
