// Flaky, broken or infrastructure: what each failing job of a red pipeline is, judged from the job history the service
// offers (the same job on the same commit, retries included, and its runs since the branch turned red), with the
// evidence in one line and the action that fits first. The judging is pure (a table of runs in, a verdict out); the
// reads that gather the runs are bounded like the rest of triage.
import type { FollowUp } from '../engine/define.js';
import { asList, asRecord, shortSha, show, type Fields } from '../engine/present.js';
import { quoteFor } from '../../text/quote.js';
import type { TolerantRead } from './tolerant-read.js';

type FailureKind = 'flaky' | 'broken' | 'infrastructure' | 'unknown';

/**
 * The service's failure reasons that blame the runner or the service, not the job's script: those its CI
 * configuration lets a job retry on by reason (`retry:when`), less the script's own (script_failure,
 * job_execution_timeout) and the project's (archived_failure, missing_dependency_failure). Each with what it means.
 */
export const INFRASTRUCTURE_REASONS: Readonly<Record<string, string>> = {
  runner_system_failure: 'the runner failed, e.g. setting up the job',
  stuck_or_timeout_failure: 'the job got stuck or timed out waiting for a runner',
  scheduler_failure: 'the scheduler could not assign the job to a runner',
  data_integrity_failure: "the service hit a problem with the job's data",
  runner_unsupported: 'the runner does not support the job',
  api_failure: 'the runner could not talk to the service',
  stale_schedule: 'a delayed job could not be run',
  unmet_prerequisites: "the job's prerequisites (its environment) could not be set up",
};

/** Failing runs in a row a job needs before it is called broken: one failure alone could be chance. */
const BROKEN_AFTER_RUNS = 2;
/** Pipelines whose jobs (retried ones too) are read for a red pipeline's history: the judged one first. */
export const HISTORY_PIPELINES = 8;
/** Pipelines of the head commit on any ref looked at (a merge request's, a tag's). */
const SAME_COMMIT_PIPELINES = 20;

/** One run of a job, as a pipeline's job list gives it (with include_retried, a run a retry replaced too). */
export interface JobRun {
  id: number;
  name: string;
  status: string;
  failure_reason?: string;
  pipeline: number;
  sha: string;
  author?: string;
  title?: string;
  /** A failure allowed by the CI configuration does not turn the pipeline red. */
  allow_failure?: boolean;
}

interface JobJudgement {
  name: string;
  kind: FailureKind;
  /** Why, in one line: "test failed on 4 of 4 runs since eb4870be", "test passed on retry 1 of this commit". */
  evidence: string;
  /** The failure reason of the job's latest run. */
  failure_reason?: string;
  /** Broken: the commit since which every run failed (with its title and author when the job list said them). */
  since?: { sha: string; title?: string; author?: string };
  /** The runs the evidence counts: how many, and how many of them failed. */
  runs: number;
  failed: number;
}

export interface FailureVerdict {
  /** The pipeline's: broken when any job is, else unknown when any is, else flaky when any is, else infrastructure. */
  kind: FailureKind;
  /** The evidence of the job that decided the kind. */
  evidence: string;
  jobs: JobJudgement[];
}

const FINISHED = new Set(['success', 'failed']);
const isInfrastructure = (run: JobRun) =>
  run.status === 'failed' && run.failure_reason !== undefined && run.failure_reason in INFRASTRUCTURE_REASONS;

/**
 * One job judged from its runs (any order), `current` being its latest run in the judged pipeline, which failed.
 * `historyComplete`: the runs reach back to a green pipeline, so a failure streak read is the whole streak.
 */
export function judgeJob(current: JobRun, runs: readonly JobRun[], historyComplete: boolean): JobJudgement {
  const name = current.name;
  const reason = current.failure_reason ? { failure_reason: current.failure_reason } : {};
  if (isInfrastructure(current)) {
    return {
      name,
      kind: 'infrastructure',
      evidence: `${name} failed with ${current.failure_reason}: ${INFRASTRUCTURE_REASONS[current.failure_reason!]}, not the code`,
      ...reason,
      runs: 1,
      failed: 1,
    };
  }
  // Runs that judged the code: finished, and not failed by the runner.
  const judged = [...runs, ...(runs.some((r) => r.id === current.id) ? [] : [current])]
    .filter((r) => r.name === name && FINISHED.has(r.status) && !isInfrastructure(r))
    .sort((a, b) => a.id - b.id);
  const sameCommit = judged.filter((r) => r.sha === current.sha);
  const passes = sameCommit.filter((r) => r.status === 'success');
  if (passes.length > 0) {
    const inPipeline = sameCommit.filter((r) => r.pipeline === passes[0].pipeline);
    const attempt = inPipeline.indexOf(passes[0]);
    // A pass on a retry within one pipeline says so; otherwise the runs of the commit are counted.
    const evidence =
      sameCommit.every((r) => r.pipeline === passes[0].pipeline) && attempt > 0
        ? `${name} passed on retry ${attempt} of this commit`
        : `${name} passed on ${passes.length} of ${sameCommit.length} runs of ${shortSha(current.sha)}`;
    return {
      name,
      kind: 'flaky',
      evidence,
      ...reason,
      runs: sameCommit.length,
      failed: sameCommit.length - passes.length,
    };
  }
  // The failures in a row, newest back to the job's last pass (on an older commit) or to the oldest run read.
  const streak: JobRun[] = [];
  let passedBefore: JobRun | undefined;
  for (const run of [...judged].reverse()) {
    if (run.status === 'success') {
      passedBefore = run;
      break;
    }
    streak.push(run);
  }
  const first = streak.at(-1) ?? current;
  const since = {
    sha: first.sha,
    ...(first.title !== undefined ? { title: first.title } : {}),
    ...(first.author !== undefined ? { author: first.author } : {}),
  };
  if (streak.length >= BROKEN_AFTER_RUNS) {
    const cut = passedBefore || historyComplete ? '' : ' (older runs not read)';
    return {
      name,
      kind: 'broken',
      evidence: `${name} failed on ${streak.length} of ${streak.length} runs since ${shortSha(first.sha)}${cut}`,
      ...reason,
      since,
      runs: streak.length,
      failed: streak.length,
    };
  }
  const before = passedBefore ? `; it passed at ${shortSha(passedBefore.sha)} before` : '';
  return {
    name,
    kind: 'unknown',
    ...reason,
    runs: streak.length,
    failed: streak.length,
    evidence: `${name} failed on its only run of ${shortSha(first.sha)}${before}: too few runs to tell flaky from broken (a retry tells)`,
  };
}

const RANK: Record<FailureKind, number> = { broken: 3, unknown: 2, flaky: 1, infrastructure: 0 };

/** The pipeline's verdict from its jobs': what keeps it red decides (a broken job stays red whatever is retried). */
export function combine(jobs: JobJudgement[]): FailureVerdict | undefined {
  const decider = [...jobs].sort((a, b) => RANK[b.kind] - RANK[a.kind])[0];
  return decider ? { kind: decider.kind, evidence: decider.evidence, jobs } : undefined;
}

/** A job of a job list as a run (its pipeline and commit as the list says them). */
function runOf(job: Fields, pipeline: Fields): JobRun {
  const commit = asRecord(job.commit);
  return {
    id: Number(job.id),
    name: show(job.name),
    status: String(job.status),
    pipeline: Number(pipeline.id),
    sha: String(asRecord(job.pipeline).sha ?? pipeline.sha ?? commit.id),
    ...(typeof job.failure_reason === 'string' ? { failure_reason: job.failure_reason } : {}),
    ...(typeof commit.author_name === 'string' ? { author: commit.author_name } : {}),
    ...(typeof commit.title === 'string' ? { title: commit.title } : {}),
    ...(job.allow_failure === true ? { allow_failure: true } : {}),
  };
}

/**
 * The failing jobs of the judged pipeline, each judged from the runs of the pipelines that matter: the judged one, the
 * branch's others of the same commit, the branch's red ones before it back to the last green (newest first), then the
 * head commit's pipelines on other refs (a merge request's, a tag's), at most HISTORY_PIPELINES in all. `pipelines` is the branch's list already read,
 * newest first. The branch's job lists are asked with the other refs' pipelines at once, so the history costs one
 * round more than triage's own reads only when another ref ran the commit. What was cut goes to `unread`.
 */
export async function judgeFailures(
  read: TolerantRead,
  id: string | number,
  pipelines: Fields[],
  judged: Fields,
  unread: string[],
): Promise<FailureVerdict | undefined> {
  // The head commit's other pipelines on the branch, whatever they ended as (a pass there is the flaky evidence);
  // then the older commits' back to the last green one.
  const ofCommit = pipelines.filter((p) => p.sha === judged.sha && p.id !== judged.id && p.status !== 'skipped');
  const streak: Fields[] = [];
  let reachedGreen = false;
  for (const pipeline of pipelines) {
    if (pipeline.sha === judged.sha) continue;
    if (pipeline.status === 'success') {
      reachedGreen = true;
      break;
    }
    if (pipeline.status !== 'skipped') streak.push(pipeline);
  }
  const onBranch = [judged, ...ofCommit, ...streak].slice(0, HISTORY_PIPELINES - 1);
  const jobsOf = async (pipeline: Fields) => {
    const jobs = await read('list_pipeline_jobs', {
      id,
      pipeline_id: Number(pipeline.id),
      include_retried: true,
      per_page: 100,
    });
    return jobs ? asList(jobs.data).map((job) => runOf(job, pipeline)) : undefined;
  };
  const known = new Set(pipelines.map((p) => Number(p.id)));
  const [sameCommit, branchLists] = await Promise.all([
    read('list_pipelines', { id, sha: String(judged.sha), per_page: SAME_COMMIT_PIPELINES }),
    Promise.all(onBranch.map(jobsOf)),
  ]);
  const otherRefs = asList(sameCommit?.data).filter((p) => !known.has(Number(p.id)) && p.status !== 'skipped');
  const fromOtherRefs = otherRefs.slice(0, HISTORY_PIPELINES - onBranch.length);
  const lists = [...branchLists, ...(await Promise.all(fromOtherRefs.map(jobsOf)))];
  const considered = 1 + ofCommit.length + streak.length + otherRefs.length;
  const cut = considered > onBranch.length + fromOtherRefs.length;
  if (cut)
    unread.push(
      `job history read from ${onBranch.length + fromOtherRefs.length} of ${considered} pipelines; older runs not counted`,
    );
  const [ofJudged] = lists;
  if (!ofJudged) return undefined;
  const runs = lists.flatMap((list) => list ?? []);
  const complete = reachedGreen && !cut && lists.every((list) => list !== undefined);
  return combine(failingRuns(ofJudged).map((run) => judgeJob(run, runs, complete)));
}

/** The jobs that keep a pipeline red: each name's latest run (the highest id), failed, and not allowed to fail. */
export function failingRuns(ofPipeline: readonly JobRun[]): JobRun[] {
  const latest = new Map<string, JobRun>();
  for (const run of ofPipeline) if ((latest.get(run.name)?.id ?? -1) < run.id) latest.set(run.name, run);
  return [...latest.values()]
    .filter((run) => run.status === 'failed' && !run.allow_failure)
    .sort((a, b) => a.id - b.id);
}

/** The verdict as a report line: "broken: test failed on 2 of 2 runs since eb4870be", one line per job beyond one. */
export function failureText(verdict: FailureVerdict): string {
  if (verdict.jobs.length <= 1) return `${verdict.kind}: ${verdict.evidence}`;
  return verdict.jobs.map((job) => `${job.kind}: ${job.evidence}`).join('\n');
}

/** A broken job's ping: a comment on the commit since which it fails, which the service sends to its author. */
export function pingAction(id: string | number, branch: string, verdict: FailureVerdict): FollowUp | undefined {
  const job = verdict.jobs.find((j) => j.kind === 'broken' && j.since);
  if (!job?.since) return undefined;
  return {
    label: `Ping ${job.since.author ?? 'the author'} on ${shortSha(job.since.sha)}`,
    operation: 'create_commit_comment',
    input: {
      id,
      sha: job.since.sha,
      // A note in the service's Markdown: the branch and the job's name are service text, their references quoted.
      note: `${quoteFor('markdown', branch)} is red since this commit: ${quoteFor('markdown', job.evidence)}. Please revert or fix it.`,
    },
  };
}

const REVERT = /revert/;
const RETRY = /^retry_/;

/**
 * The actions with the one that fits the verdict first: for broken, a revert (when triage offers one) then the ping
 * of the culprit's author; for flaky, infrastructure and unknown, the retry (a retry of a job too few runs judged
 * tells which it is). The others keep their order.
 */
export function orderActions(actions: FollowUp[], verdict: FailureVerdict | undefined, ping?: FollowUp): FollowUp[] {
  if (!verdict) return actions;
  if (verdict.kind !== 'broken') {
    const retries = actions.filter((a) => RETRY.test(a.operation));
    return [...retries, ...actions.filter((a) => !retries.includes(a))];
  }
  // A broken job stays red on a retry: the retry no longer stands out (Slack's primary button) behind the revert.
  const first = [...actions.filter((a) => REVERT.test(a.operation)), ...(ping ? [ping] : [])];
  const rest = actions.filter((a) => !first.includes(a)).map((a) => (a.style === 'primary' ? withoutStyle(a) : a));
  return [...first, ...rest];
}

function withoutStyle(action: FollowUp): FollowUp {
  const { style: _style, ...plain } = action;
  return plain;
}
