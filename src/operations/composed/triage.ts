// triage_project: the questions of the first ten minutes of an incident, answered in one call from registry reads —
// is the default branch red, since which commit and whose, what the failing jobs printed, what to press, and what
// is unreleased. Every read is bounded (a project with thousands of pipelines costs the same few requests), the
// independent ones run concurrently, and what could not be read is said, not hidden.
import { z } from 'zod';
import { defineOperation, fields } from '../engine/define.js';
import type { FollowUp, Operation, OperationResult, Presentation, RunContext } from '../engine/define.js';
import { ApiError } from '../../http/errors.js';
import { executeOperation } from '../engine/execute.js';
import { failureText, judgeFailures, orderActions, pingAction } from './failure-kind.js';
import { unfenceLog } from '../areas/shared/untrusted-fence.js';
import { revertAction } from './revert-as-merge-request.js';
import { TRIAGE_READS, type TriageReport, type Verdict } from './triage-report.js';

export { TRIAGE_READS, type TriageReport, type Verdict } from './triage-report.js';
import { findOpenReverts, openRevertAction, openRevertState } from './open-reverts.js';
import { asList, asRecord, momentText, shortSha, show, type Fields } from '../engine/present.js';
import { markdownBlock, quoteFor } from '../../text/quote.js';
import { reachText, readCulpritReach, rollbackActions } from './culprit-reach.js';
import { type TolerantRead, tolerantReader } from './tolerant-read.js';

/** Pipelines of the default branch read to find the last green one: two pages at most. */
const TRIAGE_PIPELINE_PAGES = 2;
const PIPELINES_PER_PAGE = 100;
/** Failing jobs whose logs are read for their failing lines. */
const TRIAGE_FAILED_JOBS = 3;
/** Commits between the last green and the first red pipeline listed by name (the rest counted). */
const TRIAGE_SUSPECTS = 20;
/** Unreleased commits counted one by one; beyond it, "100+". */
const UNRELEASED_COUNTED = 100;

const FINISHED = new Set(['success', 'failed', 'canceled', 'skipped']);

type FirstRed = NonNullable<TriageReport['red_since']>['first_red'];

/** The clock triage reads "how long red" against: epoch ms. */
export type Clock = () => number;

/** A span of time in words, to the minute: "less than a minute", "14 min", "2 h 14 min", "3 d 2 h". */
export function spanText(ms: number): string {
  const minutes = Math.floor(Math.max(0, ms) / 60_000);
  if (minutes < 1) return 'less than a minute';
  const [days, hours, mins] = [Math.floor(minutes / 1440), Math.floor((minutes % 1440) / 60), minutes % 60];
  if (days > 0) return hours > 0 ? `${days} d ${hours} h` : `${days} d`;
  if (hours > 0) return mins > 0 ? `${hours} h ${mins} min` : `${hours} h`;
  return `${mins} min`;
}

/** "2 h 14 min, since 13:02 UTC": how long red and since when, or undefined without a time. */
function redForText(first: FirstRed, now: number): string | undefined {
  if (!first.since || !first.red_for) return undefined;
  return `${first.red_for}, since ${momentText(new Date(first.since), now)}`;
}

const pipelineOf = (p: Fields) => ({
  id: Number(p.id),
  status: String(p.status),
  sha: String(p.sha),
  web_url: typeof p.web_url === 'string' ? p.web_url : undefined,
});

/**
 * The verdict from the default branch's pipelines (newest first) and its head SHA: the head's latest pipeline that
 * passed or failed. A skipped or canceled pipeline says nothing about the code ([ci skip], a cancel), so it is no
 * verdict; a head with only those, or still running, is judged running or unknown, naming the last verdict before.
 */
export function judge(
  pipelines: Fields[],
  headSha: string | undefined,
): Pick<TriageReport, 'verdict' | 'because'> & { judged?: Fields; running?: Fields } {
  if (pipelines.length === 0) return { verdict: 'unknown', because: 'the default branch has no pipelines' };
  const ofHead = headSha ? pipelines.filter((p) => p.sha === headSha) : pipelines;
  const verdictOf = (list: Fields[]) => list.find((p) => p.status === 'success' || p.status === 'failed');
  const judged = verdictOf(ofHead);
  const running = ofHead.find((p) => !FINISHED.has(String(p.status)));
  const earlier = verdictOf(pipelines.filter((p) => !ofHead.includes(p)));
  const before = earlier
    ? `; before it, #${show(earlier.id)} at ${shortSha(earlier.sha)} ${earlier.status === 'success' ? 'passed' : 'failed'}`
    : '';
  if (!judged) {
    if (running)
      return {
        verdict: 'running',
        because: `the head's pipeline #${show(running.id)} has not finished${before}`,
        running,
      };
    const why =
      ofHead.length === 0
        ? `no pipeline ran for the head commit ${shortSha(headSha)} yet`
        : `the head's pipelines were ${[...new Set(ofHead.map((p) => String(p.status)))].join(' and ')}, which judge nothing`;
    return { verdict: 'unknown', because: `${why}${before}` };
  }
  const verdict: Verdict = judged.status === 'success' ? 'green' : 'red';
  const because = `the head's latest finished pipeline #${show(judged.id)} ${judged.status === 'success' ? 'passed' : 'failed'}`;
  return { verdict, because, judged, ...(running && Number(running.id) > Number(judged.id) ? { running } : {}) };
}

/** The first red pipeline of the current run of failures and the last green one before it (newest-first input). */
export function redSince(pipelines: Fields[]): { firstRed?: Fields; lastGreen?: Fields } {
  const finished = pipelines.filter(
    (p) => FINISHED.has(String(p.status)) && p.status !== 'canceled' && p.status !== 'skipped',
  );
  let firstRed: Fields | undefined;
  for (const pipeline of finished) {
    if (pipeline.status === 'success') return { firstRed, lastGreen: pipeline };
    firstRed = pipeline;
  }
  return { firstRed };
}

/** What both composed operations read through: a late view of the registry, and the clock that says how long red. */
interface TriageNeeds {
  operations: () => readonly Operation[];
  clock: Clock;
}

async function triage(ctx: RunContext, input: { id: string | number }, needs: TriageNeeds): Promise<OperationResult> {
  const { operations, clock } = needs;
  const unread: string[] = [];
  const read = tolerantReader(ctx, operations, unread);
  // The latest release does not depend on the default branch: asked at once with the project.
  const [projectRead, releaseRead] = await Promise.all([
    read('get_project', { id: input.id }),
    read('list_releases', { id: input.id, per_page: 1 }),
  ]);
  const project = asRecord(projectRead?.data);
  const path = typeof project.path_with_namespace === 'string' ? project.path_with_namespace : String(input.id);
  const branch = typeof project.default_branch === 'string' ? project.default_branch : 'main';
  if (!projectRead) unread.push(`the project's default branch was not read; assumed "${branch}"`);
  const { headCommit, headSha, pipelines } = await readBranch(read, input.id, branch);
  const { verdict, because, judged, running } = judge(pipelines, headSha);
  const report: TriageReport = {
    project: path,
    ...(typeof project.web_url === 'string' ? { web_url: project.web_url } : {}),
    default_branch: branch,
    ...(headSha ? { head: { sha: headSha, title: show(headCommit.title), author: show(headCommit.author_name) } } : {}),
    verdict,
    because,
    ...(judged ? { head_pipeline: pipelineOf(judged) } : {}),
    ...(running ? { running_pipeline: { id: Number(running.id), status: String(running.status) } } : {}),
    failed_jobs: [],
    actions: [],
    unread,
    as_of: new Date(clock()).toISOString(),
  };
  const work: Array<Promise<void>> = [];
  if (verdict === 'red' && judged) {
    const { firstRed, lastGreen } = redSince(pipelines);
    if (firstRed) {
      const since = typeof firstRed.created_at === 'string' ? firstRed.created_at : undefined;
      work.push(
        readCulpritReach(read, input.id, String(firstRed.sha), since, unread).then((reach) => {
          if (reach) report.deployed = reach;
        }),
        readRedSince(read, input.id, branch, pipelines, firstRed, lastGreen, report, clock),
      );
    }
    work.push(
      judgeFailures(read, input.id, pipelines, judged, unread).then((failure) => {
        if (failure) report.failure = failure;
      }),
      readFailedJobs(read, input.id, judged, unread).then((jobs) => {
        report.failed_jobs = jobs;
      }),
    );
  }
  const latestRelease = asList(releaseRead?.data)[0];
  if (latestRelease && typeof latestRelease.tag_name === 'string') {
    work.push(
      readRelease(read, input.id, latestRelease.tag_name, branch, project).then((release) => {
        report.release = release;
      }),
    );
  }
  await Promise.all(work);
  writeUp(report, input.id, branch, clock);
  return { data: report, status: 200 };
}

/**
 * The head commit and the newest page of the default branch's pipelines, at once; an older page only while red with
 * no green pipeline read before the red ones (said in `unread` if none is found): a project with thousands of
 * pipelines costs at most TRIAGE_PIPELINE_PAGES pages.
 */
async function readBranch(read: TolerantRead, id: string | number, branch: string) {
  const pipelinesOf = (page: number) => read('list_pipelines', { id, ref: branch, per_page: PIPELINES_PER_PAGE, page });
  const [branchRead, firstPage] = await Promise.all([read('get_branch', { id, branch }), pipelinesOf(1)]);
  const headCommit = asRecord(asRecord(branchRead?.data).commit);
  const headSha = typeof headCommit.id === 'string' ? headCommit.id : undefined;
  const pipelines = asList(firstPage?.data);
  let lastPage = firstPage;
  for (let page = 2; page <= TRIAGE_PIPELINE_PAGES && lastPage?.page?.has_more; page++) {
    if (judge(pipelines, headSha).verdict !== 'red' || redSince(pipelines).lastGreen) break;
    lastPage = await pipelinesOf(page);
    pipelines.push(...asList(lastPage?.data));
  }
  return { headCommit, headSha, pipelines };
}

/** What was read, said: where the culprit went, and the actions in the order they end the red. */
function writeUp(report: TriageReport, id: string | number, branch: string, clock: Clock): void {
  const stopped = report.failed_jobs[0]?.stage;
  if (report.deployed && !report.deployed.environments.some((e) => e.holds === 'reached') && stopped)
    report.deployed.stopped_at = stopped;
  if (report.deployed) report.deployed.said = reachText(report.deployed, clock());
  // An open revert's step (merge it when green, or retry its pipeline) comes first: it ends the red.
  const openRevert = report.open_reverts?.[0];
  const fix = openRevert && openRevertAction(id, openRevert);
  const ordered = orderActions(
    actionsFor(id, report),
    report.failure,
    report.failure && pingAction(id, branch, report.failure),
  );
  const actions = fix ? [fix, ...ordered.map((a) => (a.style === 'primary' ? withoutStyle(a) : a))] : ordered;
  report.actions = withRollbacks(actions, rollbackActions(id, report.deployed), fix);
}

/**
 * Since when it is red and who may have turned it: the commits between the last green pipeline and the first red one
 * (newest few, oldest first), whom to ping, and any open merge request already reverting the culprit.
 */
async function readRedSince(
  read: TolerantRead,
  id: string | number,
  branch: string,
  pipelines: Fields[],
  firstRed: Fields,
  lastGreen: Fields | undefined,
  report: TriageReport,
  clock: Clock,
): Promise<void> {
  const { unread } = report;
  // With a green pipeline before it: the newest commits between the two (a range list, no diffs), oldest
  // first. Without one: at least the first red commit.
  const range = lastGreen
    ? await read('list_commits', {
        id,
        ref_name: `${String(lastGreen.sha)}..${String(firstRed.sha)}`,
        per_page: TRIAGE_SUSPECTS,
      })
    : undefined;
  const commits = lastGreen
    ? asList(range?.data).reverse()
    : [asRecord((await read('get_commit', { id, sha: String(firstRed.sha) }))?.data)].filter((c) => c.id !== undefined);
  const suspects = commits.map((c) => ({
    sha: String(c.id),
    title: show(c.title),
    author: show(c.author_name),
  }));
  const counts = new Map<string, number>();
  for (const s of suspects) counts.set(s.author, (counts.get(s.author) ?? 0) + 1);
  const culprit = commits.at(-1) ?? {};
  // Red since the first red pipeline was created (the list gives created_at; a start would need a read each).
  const since = typeof firstRed.created_at === 'string' ? new Date(firstRed.created_at) : undefined;
  const when =
    since && !Number.isNaN(since.getTime())
      ? { since: since.toISOString(), red_for: spanText(clock() - since.getTime()) }
      : {};
  report.red_since = {
    first_red: {
      pipeline: Number(firstRed.id),
      sha: String(firstRed.sha),
      ...when,
      ...(culprit.title !== undefined
        ? { title: show(culprit.title), author: show(culprit.author_name), at: show(culprit.created_at) }
        : {}),
    },
    ...(lastGreen ? { last_green: { pipeline: Number(lastGreen.id), sha: String(lastGreen.sha) } } : {}),
    suspects,
    more_suspects: range?.page?.has_more === true,
    // The author of the commit that turned it red first, then the others by how many commits they made.
    ping: [...counts.entries()]
      .sort((a, b) => Number(b[0] === culprit.author_name) - Number(a[0] === culprit.author_name) || b[1] - a[1])
      .map(([author]) => author),
  };
  // Someone already reverting the culprit: named, and merging it offered instead of a second revert.
  const reverting = await findOpenReverts(
    read,
    id,
    branch,
    {
      sha: String(firstRed.sha),
      ...(culprit.title !== undefined && String(culprit.id) === String(firstRed.sha)
        ? { title: show(culprit.title) }
        : {}),
    },
    unread,
  );
  if (reverting.length > 0) report.open_reverts = reverting;
  if (!lastGreen)
    unread.push(`no green pipeline among the latest ${pipelines.length} of ${branch}: red for longer than that`);
}

/** The judged pipeline's failed jobs (the first few), each with its failing section and excerpt from its log. */
async function readFailedJobs(read: TolerantRead, id: string | number, judged: Fields, unread: string[]) {
  const jobsRead = await read('list_pipeline_jobs', {
    id,
    pipeline_id: Number(judged.id),
    scope: ['failed'],
    per_page: 100,
  });
  const jobs = asList(jobsRead?.data);
  const shown = jobs.slice(0, TRIAGE_FAILED_JOBS);
  if (jobs.length > shown.length)
    unread.push(`${jobs.length - shown.length} more failed jobs; their logs were not read`);
  return Promise.all(
    shown.map(async (job) => {
      const log = asRecord((await read('get_job_log', { id, job_id: Number(job.id), lines: 1 }))?.data);
      return {
        id: Number(job.id),
        name: show(job.name),
        stage: show(job.stage),
        ...(job.failure_reason ? { failure_reason: show(job.failure_reason) } : {}),
        ...(typeof log.failing_section === 'string' ? { failing_section: log.failing_section } : {}),
        ...(typeof log.failure_excerpt === 'string' ? { excerpt: log.failure_excerpt } : {}),
      };
    }),
  );
}

/** The latest release and how many commits the default branch has since (one page of the range, no diffs). */
async function readRelease(read: TolerantRead, id: string | number, tag: string, branch: string, project: Fields) {
  // Counted from one page of the range (no diffs): "100+" beyond that.
  const unreleased = await read('list_commits', {
    id,
    ref_name: `${tag}..${branch}`,
    per_page: UNRELEASED_COUNTED,
  });
  return {
    tag,
    ...(unreleased
      ? {
          unreleased_commits: asList(unreleased.data).length,
          ...(unreleased.page?.has_more ? { more_unreleased: true } : {}),
        }
      : {}),
    ...(typeof project.web_url === 'string'
      ? { compare_url: `${project.web_url}/-/compare/${encodeURIComponent(tag)}...${encodeURIComponent(branch)}` }
      : {}),
  };
}

/** Operations that fix the branch itself: a revert, or merging (or retrying) an open revert. */
const FIXES = /revert|merge/;

/**
 * Rolling an environment back comes after fixing the branch (the revert and its merge: the usual order, or the next
 * deployment brings the culprit back), before the rest; with no such step, after the first action.
 */
export function withRollbacks(actions: FollowUp[], rollbacks: FollowUp[], fix?: FollowUp): FollowUp[] {
  if (rollbacks.length === 0) return actions;
  let at = 0;
  actions.forEach((a, i) => {
    if (a === fix || FIXES.test(a.operation)) at = i + 1;
  });
  if (at === 0) at = Math.min(1, actions.length);
  return [...actions.slice(0, at), ...rollbacks, ...actions.slice(at)];
}

/** What fits the verdict, on the head's pipeline only: never a retry of an older pipeline. */
function actionsFor(id: string | number, report: TriageReport): FollowUp[] {
  const actions: FollowUp[] = [];
  const head = report.head_pipeline;
  if (report.verdict === 'red' && head && !report.running_pipeline) {
    actions.push({
      label: `Retry failed jobs of #${head.id}`,
      operation: 'retry_pipeline',
      input: { id, pipeline_id: head.id },
      style: 'primary',
    });
  }
  if (report.running_pipeline) {
    actions.push({
      label: `Cancel #${report.running_pipeline.id}`,
      operation: 'cancel_pipeline',
      input: { id, pipeline_id: report.running_pipeline.id },
      style: 'danger',
    });
  }
  // Never a second revert while one is open: its step is offered instead (see triage()).
  const revert = report.open_reverts?.length ? undefined : revertAction(id, report);
  if (revert) actions.push(revert);
  const failing = report.failed_jobs[0];
  if (failing)
    actions.push({ label: `Log of ${failing.name}`, operation: 'get_job_log', input: { id, job_id: failing.id } });
  // The issue is written from a triage run when the action is taken: the action itself names only the project.
  if (report.verdict === 'red')
    actions.push({ label: 'Open incident issue', operation: INCIDENT_OPERATION, input: { id } });
  return actions;
}

function withoutStyle(action: FollowUp): FollowUp {
  const { style: _style, ...plain } = action;
  return plain;
}

/**
 * Text inside the issue forgeops writes: references (mentions, #12, !3, ~label…) and hidden characters made plain.
 * Our own words go through it too where they hold a number after #: "pipeline #12" would link issue 12.
 */
const md = (text: string) => quoteFor('markdown', text);

/** The incident issue's title: what is red and what fails, the same for the same incident (so it is opened once). */
export function incidentTitle(report: TriageReport): string {
  const failing = report.failed_jobs[0];
  return `${md(report.default_branch)} is red: ${failing ? `${md(failing.name)} failing` : `${md(`pipeline #${report.head_pipeline?.id}`)} failed`}`;
}

/** The report as an incident issue's description. */
export function incidentText(report: TriageReport, now: number): string {
  const lines = [`${md(report.default_branch)} of ${md(report.project)} is ${report.verdict}: ${md(report.because)}.`];
  if (report.failure)
    lines.push(
      '',
      ...failureText(report.failure)
        .split('\n')
        .map((line) => `${md(`${line[0].toUpperCase()}${line.slice(1)}`)}.`),
    );
  const since = report.red_since;
  if (since) {
    const redFor = redForText(since.first_red, now);
    if (redFor) lines.push('', `Red for ${redFor}.`);
    lines.push(
      '',
      `First red: ${md(`pipeline #${since.first_red.pipeline}`)} at ${shortSha(since.first_red.sha)}${since.first_red.author ? ` by ${md(since.first_red.author)}` : ''}.`,
    );
    if (since.last_green)
      lines.push(`Last green: ${md(`pipeline #${since.last_green.pipeline}`)} at ${shortSha(since.last_green.sha)}.`);
    if (since.suspects.length > 0) {
      lines.push(
        '',
        `${since.more_suspects ? `The newest ${since.suspects.length} commits` : 'Commits'} since the last green pipeline:`,
        ...since.suspects.map((c) => `- ${shortSha(c.sha)} ${md(c.title)} (${md(c.author)})`),
      );
    }
  }
  if (report.deployed) lines.push('', `Where it went: ${md(reachText(report.deployed, now))}.`);
  for (const job of report.failed_jobs) {
    lines.push(
      '',
      `Failed job ${md(job.name)} (${md(`#${job.id}`)})${job.failing_section ? ` in ${md(job.failing_section)}` : ''}.`,
    );
    if (job.excerpt) lines.push('', markdownBlock(unfenceLog(job.excerpt)));
  }
  return lines.join('\n');
}

function presentTriage(data: unknown): Presentation {
  const report = data as TriageReport;
  const asOf = Date.parse(report.as_of);
  const word = { green: 'green', red: 'RED', running: 'running', unknown: 'unknown' }[report.verdict];
  const fields: Array<[string, string]> = [['verdict', `${word}: ${report.because}`]];
  if (report.failure) fields.push(['failure', failureText(report.failure)]);
  if (report.head) fields.push(['head', `${shortSha(report.head.sha)} ${report.head.title} (${report.head.author})`]);
  const since = report.red_since;
  if (since) {
    const redFor = redForText(since.first_red, asOf);
    if (redFor) fields.push(['red for', redFor]);
    fields.push([
      'first red',
      `#${since.first_red.pipeline} at ${shortSha(since.first_red.sha)}${since.first_red.title ? ` ${since.first_red.title}` : ''}${since.first_red.author ? ` (${since.first_red.author})` : ''}`,
    ]);
    if (since.last_green)
      fields.push(['last green', `#${since.last_green.pipeline} at ${shortSha(since.last_green.sha)}`]);
    if (since.ping.length > 0) fields.push(['who to ping', since.ping.join(', ')]);
  }
  if (report.deployed) fields.push(['where it went', reachText(report.deployed, asOf)]);
  for (const mr of report.open_reverts ?? [])
    fields.push(['open revert', `!${mr.iid} ${mr.title} (${mr.source_branch}): ${openRevertState(mr)}`]);
  if (report.release)
    fields.push([
      'release',
      `${report.release.tag}${report.release.unreleased_commits !== undefined ? ` · ${report.release.unreleased_commits}${report.release.more_unreleased ? '+' : ''} commits unreleased` : ''}`,
    ]);
  const sections = report.failed_jobs.map((job) => ({
    title: `Failed: ${job.name} (#${job.id})${job.failing_section ? ` in ${job.failing_section}` : ''}`,
    text: job.excerpt ? unfenceLog(job.excerpt) : '(no error lines found)',
    code: true,
  }));
  if (report.unread.length > 0) sections.push({ title: 'Not read', text: report.unread.join('\n'), code: false });
  return { title: `${report.project}: ${report.default_branch} is ${word}`, fields, sections, actions: report.actions };
}

/** Built with a late view of the registry, which imports this module; `clock` says how long red (tests set it). */
export function triageOperation(operations: () => readonly Operation[], clock: Clock = Date.now) {
  return defineOperation({
    name: 'triage_project',
    chat: 'project triage',
    area: 'projects',
    outsideSpec:
      'composed of Projects, Branches, Pipelines, Jobs, Repository, Merge requests, Releases, Environments and Deployments reads',
    title: 'Triage project',
    description:
      'Is the default branch red, since which commit and whose, flaky or broken, what failing jobs printed, open reverts of the culprit, where it was deployed, what to press, what is unreleased: one call.',
    route: 'GET /projects/:id/pipelines',
    composedOf: TRIAGE_READS,
    input: z.object({ id: fields.projectId() }),
    effect: 'read',
    present: presentTriage,
    run: (ctx, input) => triage(ctx, input, { operations, clock }),
    examples: [{ input: { id: 'acme/web' } }],
  });
}

/** The operation behind a red triage's "Open incident issue". */
export const INCIDENT_OPERATION = 'open_incident_issue';

/** A red incident's issue: triaged when it runs, opened once (an open incident issue of the same title is kept). */
async function openIncidentIssue(
  ctx: RunContext,
  input: { id: string | number },
  needs: TriageNeeds,
): Promise<OperationResult> {
  const { operations, clock } = needs;
  const report = (await triage(ctx, input, needs)).data as TriageReport;
  const op = (name: string) => {
    const found = operations().find((o) => o.name === name);
    if (!found) throw new Error(`${name} is not in the registry`);
    return found;
  };
  const refuse = (why: string) =>
    new ApiError({
      kind: 'refused',
      method: 'POST',
      path: `/projects/${encodeURIComponent(String(input.id))}/issues`,
      serviceMessage: why,
    });
  if (report.verdict !== 'red') {
    throw refuse(
      `${report.default_branch} of ${report.project} is ${report.verdict} now (${report.because}); no incident issue was opened`,
    );
  }
  const title = incidentTitle(report);
  // One issue per incident, however often the action is taken (two people, a model calling twice).
  const open = await executeOperation(
    op('list_project_issues'),
    { id: input.id, state: 'opened', labels: 'incident', search: title, in: 'title', per_page: 100 },
    ctx,
  );
  const same = asList(open.data).find((issue) => issue.title === title);
  if (same) {
    throw refuse(
      `an incident issue about this is already open: #${show(same.iid)} "${title}"${typeof same.web_url === 'string' ? ` (${same.web_url})` : ''}; no other was opened`,
    );
  }
  return executeOperation(
    op('create_issue'),
    { id: input.id, title, issue_type: 'incident', labels: 'incident', description: incidentText(report, clock()) },
    ctx,
  );
}

/** open_incident_issue, built like triage_project with a late view of the registry. */
export function incidentIssueOperation(operations: () => readonly Operation[], clock: Clock = Date.now) {
  return defineOperation({
    name: INCIDENT_OPERATION,
    chat: 'incident open',
    area: 'issues',
    outsideSpec: 'composed of triage_project and Issues API reads and writes',
    title: 'Open incident issue',
    description:
      'While the default branch is red: open an incident issue written from triage_project (what fails, since when, whose commits), once per incident.',
    route: 'POST /projects/:id/issues',
    composedOf: [...TRIAGE_READS, 'list_project_issues', 'create_issue'],
    input: z.object({ id: fields.projectId() }),
    effect: 'write',
    undo: 'Opens one issue and changes nothing else; update_issue with state_event close closes it.',
    run: (ctx, input) => openIncidentIssue(ctx, input, { operations, clock }),
    // Opens one issue written from a triage; refused while the branch is not red, and never a second for one incident.
    decisions: { runs: [{ id: 'acme/web' }], asks: [] },
  });
}
