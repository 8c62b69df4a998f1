// The incident message in Block Kit: one message per red episode and channel, re-rendered whole at each transition
// (red, running, still red, green), and the thread's timeline lines. Pure: no I/O; every string from the service goes
// through inline() or codeBlocks(), so a commit title or log line can neither mention, link nor start a line of its own.
import type { FailureVerdict } from '../../operations/composed/failure-kind.js';
import { unfenceLog } from '../../operations/areas/shared/untrusted-fence.js';
import { shortSha } from '../../operations/engine/present.js';
import { momentText } from '../../operations/engine/present.js';
import { spanText, type TriageReport } from '../../operations/composed/triage.js';
import { spellOutHidden } from '../../text/visible.js';
import type { CommitRef } from '../../watch/branch-watch.js';
import { LIMITS, codeBlocks, cut, type Block, type SlackMessage } from '../blocks.js';
import { quoteFor } from '../../text/quote.js';
import type { OpenRevert } from '../../operations/composed/open-reverts.js';
import { reachText, type CulpritReach } from '../../operations/composed/culprit-reach.js';
import { fixedByText as fixedByWords, type FixingMergeRequest } from '../../operations/composed/fixed-by.js';
import { buttonsBlock, type IncidentButton } from './buttons.js';

export type { IncidentButton } from './buttons.js';

/** Lines of a failing job's log shown in the message (the log's tail is a button away). */
const ERROR_LINES = 8;

export type IncidentPhase = 'red' | 'running' | 'still-red' | 'green';

/** An open merge request reverting the culprit, as the message follows it: opened by a press, or found by triage. */
export interface IncidentRevert extends OpenRevert {
  /** The commit it reverts. */
  reverts: string;
  /** Merged (its merge was pressed and it merged at once). */
  merged?: boolean;
  /** Its pipeline's first failed job, while that pipeline failed (the watch reads it). */
  failedJob?: { id: number; name: string };
}

/** What the message shows; the sink keeps it in the store so any replica renders the same message. */
export interface IncidentView {
  /** The project's path as last told (a rename shows in the next update). */
  project: string;
  /** Its number, which mutes are kept by (absent in a message from before watches were kept by number). */
  projectId?: number;
  ref: string;
  /** The latest red report (the first one, then each still-red one). */
  report: TriageReport;
  /** The Slack user id of the first red commit's author, when that person linked their account. */
  culpritUser?: string;
  phase: IncidentPhase;
  /** The pipeline running (phase running). */
  running?: { id: number; sha: string };
  /**
   * How it ended (phase green); mergeRequest: the merge request whose merge it was. fixedByRevert: the same said by a
   * message drawn before mergeRequest was kept (the open revert's merge).
   */
  green?: { redForMs: number; fixedBy: CommitRef; mergeRequest?: FixingMergeRequest; fixedByRevert?: boolean };
  /** The revert of the culprit that is open, once a press opened it (or a triage found it). */
  revert?: IncidentRevert;
  buttons: IncidentButton[];
}

/** Text from the service, as one line of mrkdwn: hidden characters and newlines spelled out, &, < and > escaped. */
export function inline(text: string): string {
  return quoteFor('mrkdwn', text);
}

/** A Slack user id as Slack issues them: anything else is not turned into a mention. */
const SLACK_USER = /^[UW][A-Z0-9]{1,23}$/;

export function mention(userId: string): string | undefined {
  return SLACK_USER.test(userId) ? `<@${userId}>` : undefined;
}

function section(text: string): Block {
  return { type: 'section', text: { type: 'mrkdwn', text: cut(text, LIMITS.sectionText) } };
}

/** The verdict's lines: "broken: test failed on 2 of 2 runs since eb4870be", one per job when several failed. */
function verdictLines(failure: FailureVerdict): string[] {
  const lines =
    failure.jobs.length <= 1 ? [[failure.kind, failure.evidence]] : failure.jobs.map((job) => [job.kind, job.evidence]);
  return lines.map(([kind, evidence]) => `*${inline(kind)}*: ${inline(evidence)}`);
}

/** The last lines of a job's failing part, hidden characters spelled out (newlines and tabs kept: they lay out the log). */
function errorLines(excerpt: string, lines = ERROR_LINES): string {
  const text = unfenceLog(excerpt).replace(/\r\n?/g, '\n').replace(/\n+$/, '');
  return spellOutHidden(text.split('\n').slice(-lines).join('\n'), '\n\t');
}

function headline(view: IncidentView): string {
  const where = `*${inline(view.project)}* ${inline(view.ref)}`;
  if (view.phase === 'green') return `:white_check_mark: ${where} is green again`;
  const kind = view.report.failure?.kind;
  return `:rotating_light: ${where} is red${kind ? `: *${inline(kind)}*` : ''}`;
}

/** What ended the red: "!6 (revert of `4d7b7da8`)" when it was the revert's merge, else the commit. */
function fixedByText(view: IncidentView): string {
  const { revert, green } = view;
  const legacy = green?.fixedByRevert && revert ? { iid: revert.iid, reverts: revert.reverts } : undefined;
  return fixedByWords(green!.fixedBy, green?.mergeRequest ?? legacy, {
    code: (sha) => `\`${inline(sha)}\``,
    text: inline,
  });
}

/** "!6's pipeline #23 failed at test": the revert's own pipeline failed (undefined while it has not). */
export function revertFailedText(revert: IncidentRevert): string | undefined {
  const pipeline = revert.pipeline;
  if (!pipeline || (pipeline.status !== 'failed' && pipeline.status !== 'canceled')) return undefined;
  const at = pipeline.status === 'failed' && revert.failedJob ? ` at ${revert.failedJob.name}` : '';
  return `!${revert.iid}'s pipeline #${pipeline.id} ${pipeline.status}${at}`;
}

/** Where the open revert stands: "!6 Revert "…" is open: pipeline #23 running; set to merge when it passes". */
export function revertLine(revert: IncidentRevert): string {
  const pipeline = revert.pipeline ? `pipeline #${revert.pipeline.id} ${inline(revert.pipeline.status)}` : undefined;
  const failed = revertFailedText(revert);
  const state = revert.merged
    ? 'merged'
    : failed
      ? `:x: ${inline(failed)}`
      : revert.merge_when_pipeline_succeeds
        ? `will merge when ${revert.pipeline ? `pipeline #${revert.pipeline.id} passes` : 'its pipeline passes'}`
        : `open${pipeline ? `: ${pipeline}` : ''}`;
  return `:leftwards_arrow_with_hook: *Revert:* !${revert.iid} ${inline(revert.title)} — ${state}`;
}

/** The line under the headline that says where the episode is now; undefined while simply red. */
function statusLine(view: IncidentView): string | undefined {
  switch (view.phase) {
    case 'running': {
      const run = view.running;
      if (!run) return undefined;
      const retry = run.id === view.report.head_pipeline?.id;
      return `:arrows_counterclockwise: ${retry ? 'retrying… ' : ''}pipeline #${run.id} running on \`${inline(shortSha(run.sha))}\``;
    }
    case 'still-red': {
      const kind = view.report.failure?.kind;
      return `:x: still red after the retry${kind ? `: ${inline(kind)}${kind === 'broken' ? ', not flaky' : ''}` : ''}`;
    }
    case 'green':
      return view.green
        ? `*Resolved:* green again after ${spanText(view.green.redForMs)}, fixed by ${fixedByText(view)}`
        : '*Resolved:* green again';
    default:
      return undefined;
  }
}

/** "First red: `eb4870be` title by <@U2> · red for 14 min, since 13:02 UTC". */
function firstRedLine(view: IncidentView, now: number): string | undefined {
  const first = view.report.red_since?.first_red;
  if (!first) return undefined;
  const who = (view.culpritUser && mention(view.culpritUser)) ?? (first.author ? inline(first.author) : undefined);
  const since = first.since ? Date.parse(first.since) : Number.NaN;
  const when = Number.isNaN(since)
    ? ''
    : view.phase === 'green'
      ? ` · since ${momentText(new Date(since), now)}`
      : ` · red for ${spanText(now - since)}, since ${momentText(new Date(since), now)}`;
  return `*First red:* \`${inline(shortSha(first.sha))}\`${first.title ? ` ${inline(first.title)}` : ''}${who ? ` by ${who}` : ''}${when}`;
}

/** "Where it went: `4d7b7da8` reached staging at 13:20 UTC (deployment #12); production runs v1.1.0, before it". */
export function whereItWentLine(reach: CulpritReach, now: number): string {
  const live = reach.environments.some(
    (e) => e.holds === 'reached' && (e.tier === 'production' || e.environment === 'production'),
  );
  return `${live ? ':warning: ' : ''}*Where it went:* ${inline(reachText(reach, now))}`;
}

/** The whole message at `now`: headline, where it stands, the verdict, the first red commit, the failing jobs, buttons. */
export function renderIncident(view: IncidentView, now: number): SlackMessage {
  const blocks: Block[] = [section(headline(view))];
  const status = statusLine(view);
  if (status) blocks.push(section(status));
  if (view.revert && view.phase !== 'green') blocks.push(section(revertLine(view.revert)));
  if (view.report.failure) blocks.push(section(verdictLines(view.report.failure).join('\n')));
  const first = firstRedLine(view, now);
  if (first) blocks.push(section(first));
  if (view.report.deployed && view.phase !== 'green') blocks.push(section(whereItWentLine(view.report.deployed, now)));
  for (const job of view.report.failed_jobs) {
    blocks.push(
      section(
        `*Failed:* ${inline(job.name)} (#${job.id})${job.failing_section ? ` in ${inline(job.failing_section)}` : ''}`,
      ),
    );
    if (job.excerpt) blocks.push(...codeBlocks(errorLines(job.excerpt)).slice(0, 2));
  }
  const buttons = view.phase === 'green' ? undefined : buttonsBlock(view.buttons);
  if (buttons) blocks.push(buttons);
  const kind = view.report.failure?.kind;
  const text =
    view.phase === 'green'
      ? `${view.project} ${view.ref} is green again`
      : `${view.project} ${view.ref} is red${kind ? `: ${kind}` : ''}`;
  return { text: cut(inline(text), LIMITS.fallbackText), blocks: blocks.slice(0, LIMITS.blocks) };
}

/** One line of the message's thread: who did what with a button, and what came of it (service words escaped). */
export function renderTimeline(line: {
  user: string;
  did: 'pressed' | 'approved' | 'declined';
  label: string;
  outcome?: string;
}): SlackMessage {
  const who = mention(line.user) ?? inline(line.user);
  const outcome =
    line.outcome === undefined
      ? ''
      : line.did === 'declined'
        ? `: ${inline(line.outcome)}`
        : ` → ${inline(line.outcome)}`;
  const text = `${who} ${line.did} *${inline(line.label)}*${outcome}`;
  return { text: cut(text, LIMITS.fallbackText), blocks: [section(text)] };
}

/** A line of the thread in our own words (a mute), with the presser named. */
export function renderNote(user: string, words: string): SlackMessage {
  const text = `${mention(user) ?? inline(user)} ${inline(words)}`;
  return { text: cut(text, LIMITS.fallbackText), blocks: [section(text)] };
}

/** A line of the thread in forgeops's own words, service text in it escaped (a leading :emoji: kept). */
export function renderLine(words: string): SlackMessage {
  const [, emoji = '', rest] = /^(:[a-z_]+: )?([\s\S]*)$/.exec(words)!;
  const text = `${emoji}${inline(rest)}`;
  return { text: cut(text, LIMITS.fallbackText), blocks: [section(text)] };
}

/** What the channel is told when a watched project can no longer be read. */
export function renderGone(project: string, ref: string, reason: string): SlackMessage {
  const text = `stopped watching ${project}${ref ? ` ${ref}` : ''}: it can no longer be read (${reason})`;
  return { text: cut(inline(text), LIMITS.fallbackText), blocks: [section(`:no_entry_sign: ${inline(text)}`)] };
}
