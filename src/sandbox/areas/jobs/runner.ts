// The sandbox's runner simulation: moves the jobs it manages created → pending → running → success / failed /
// canceled on the sandbox's clock, stage by stage, writes their logs as they run, and keeps each pipeline's status,
// times and duration following its jobs. What a job does comes from the project's scenario (./scenarios.ts).
//
// It is lazy: nothing runs between requests but one unref'd wake-up at the nearest transition; every API request
// first catches the runner up with the clock (transitions are applied at the times they were due, so a late catch-up
// writes the same history as a punctual one). The seeded history is frozen: only jobs created after the seed (a new
// pipeline, a retry, a play) are managed.
import type { Pipeline, Project, Store } from '../../core/store.js';
import {
  QUEUE_SECONDS,
  jobDice,
  jobEnvironment,
  jobsForRef,
  scenarioFor,
  scenarioJob,
  type OutcomeRule,
  type Scenario,
  type ScenarioJob,
} from './scenarios.js';
import { ESC, RESET, cmd, end, incidentLog, opening, start } from './seed.js';
import { jobsOf, manageJob, notYetRun, runnerOf, setJobLog, type Job } from './state.js';

export const CI_CONFIG_PATH = '.ci.yml';
const ZERO_SHA = '0'.repeat(40);

/** How one started job ends, and what its log says (`closing`: its last lines, written only when it ends). */
type RunPlan = ReturnType<typeof runnerOf>['plans'] extends Map<number, infer P> ? P : never;

const scaled = (store: Store, seconds: number) => Math.max(1, Math.round(seconds * 1000 * store.jobTimeScale));
const factKey = (project: Project, sha: string, path: string) => `${project.id}:${sha}:${path}`;

/** Reads what the scenario's rules need from the commit's tree (before its jobs can start). */
export async function prepareFacts(store: Store, project: Project, sha: string): Promise<void> {
  const facts = runnerOf(store).facts;
  for (const job of scenarioFor(project).jobs) {
    const rule = job.outcome;
    if (rule.kind !== 'fails_while_file_contains' || facts.has(factKey(project, sha, rule.path))) continue;
    const { stdout, exitCode } = await project.repo.run(['cat-file', 'blob', `${sha}:${rule.path}`], {
      okCodes: [128],
    });
    facts.set(factKey(project, sha, rule.path), exitCode === 0 ? stdout.toString('utf8') : '');
  }
}

interface NewPipeline {
  ref: string;
  sha: string;
  tag: boolean;
  userId: number;
  before?: string;
  source: 'push' | 'api' | 'web' | 'merge_request_event';
  committedAt: Date | null;
  variables?: Pipeline['variables'];
}

/** A new pipeline with the scenario's jobs, running from now. */
export async function createRunningPipeline(store: Store, project: Project, input: NewPipeline): Promise<Pipeline> {
  await prepareFacts(store, project, input.sha);
  const now = new Date(store.clock.now());
  const pipeline: Pipeline = {
    id: store.nextId('pipeline'),
    project_id: project.id,
    status: 'pending',
    ref: input.ref,
    sha: input.sha,
    before_sha: input.before ?? ZERO_SHA,
    tag: input.tag,
    name: null,
    yaml_errors: null,
    user_id: input.userId,
    created_at: now,
    updated_at: now,
    started_at: null,
    finished_at: null,
    committed_at: input.committedAt,
    duration: null,
    coverage: null,
    variables: input.variables ?? [],
    source: input.source,
  };
  project.pipelines.push(pipeline);
  project.last_activity_at = now;
  const scenario = scenarioFor(project);
  for (const row of jobsForRef(scenario, !input.tag && input.ref === project.default_branch)) {
    const job: Job = {
      id: store.nextId('job'),
      project_id: project.id,
      pipeline_id: pipeline.id,
      name: row.name,
      stage: row.stage,
      status: 'created',
      allow_failure: row.when === 'manual',
      manual: row.when === 'manual',
      user_id: input.userId,
      queued_at: null,
      ...notYetRun(now),
      environment: jobEnvironment(row, input.ref, project.full_path),
    };
    jobsOf(store).jobs.push(job);
    manageJob(store, job);
  }
  // A new pipeline is news too (the service sends a pipeline event when one is created), before its first move.
  for (const listener of [...runnerOf(store).listeners]) listener(project, pipeline);
  catchUp(store);
  return pipeline;
}

/**
 * A pipeline for a commit pushed to a branch (a commit, a revert or cherry-pick, a merge, a new branch), when the
 * commit carries a CI configuration; run by the committer's account (the project's creator when none matches).
 */
export async function startPushPipeline(
  store: Store,
  project: Project,
  branch: string,
  sha: string,
  before: string | null,
): Promise<void> {
  if (!project.jobs_enabled || !(await project.repo.listFiles(sha)).has(CI_CONFIG_PATH)) return;
  const commit = await project.repo.getCommit(sha);
  const email = commit.committer_email.toLowerCase();
  const user =
    store.users.find((u) => u.email.toLowerCase() === email) ?? store.users.find((u) => u.id === project.creator_id);
  await createRunningPipeline(store, project, {
    ref: branch,
    sha,
    tag: false,
    before: before ?? ZERO_SHA,
    userId: user?.id ?? project.creator_id,
    source: 'push',
    committedAt: new Date(commit.committed_date),
  });
}

/** After a job's retry, the jobs of later stages that its failure had skipped wait to run again. */
export function requeueLaterStages(store: Store, project: Project, retry: Job): void {
  const scenario = scenarioFor(project);
  const rank = stageRank(scenario, retry.stage);
  for (const job of jobsOf(store).jobs) {
    if (
      job.pipeline_id !== retry.pipeline_id ||
      job.retried ||
      job.status !== 'skipped' ||
      stageRank(scenario, job.stage) <= rank
    )
      continue;
    job.status = 'created';
    manageJob(store, job);
  }
}

/** Tells whoever listens (a watcher, a webhook) that a pipeline's status changed. */
export function onPipelineChange(store: Store, listener: (project: Project, pipeline: Pipeline) => void): () => void {
  const listeners = runnerOf(store).listeners;
  listeners.push(listener);
  return () => listeners.splice(listeners.indexOf(listener), 1);
}

/**
 * Tells the listeners of a status a person set (a retry, a cancel, a play) as the runner tells of its own moves;
 * nothing when the status is still `before`.
 */
export function announcePipelineChange(
  store: Store,
  project: Project,
  pipeline: Pipeline,
  before: Pipeline['status'],
): void {
  if (pipeline.status !== before) for (const listener of runnerOf(store).listeners) listener(project, pipeline);
}

/**
 * A pipeline that has work again (a job retried, played or approved): `status` from now on (a running one stays as
 * it is when that is 'running'), no end, its watchers told of the change from `before`, the runner woken.
 */
export function resumePipeline(
  store: Store,
  project: Project,
  pipeline: Pipeline,
  change: { status: 'pending' | 'running'; before: Pipeline['status']; at: Date },
): void {
  if (change.status === 'pending' || pipeline.status !== 'running') {
    pipeline.status = change.status;
    pipeline.finished_at = null;
    pipeline.duration = null;
    pipeline.updated_at = change.at;
  }
  announcePipelineChange(store, project, pipeline, change.before);
  catchUp(store);
}

/**
 * Applies every transition due by now, writes the running jobs' logs so far, and sets the next wake-up. `touched`:
 * a pipeline a person just changed (a cancel, a retry), looked at again when the runner moves any of its jobs.
 */
export function catchUp(store: Store, touched?: number): void {
  const runner = runnerOf(store);
  if (touched !== undefined && jobsOf(store).jobs.some((j) => j.pipeline_id === touched && runner.managed.has(j.id)))
    runner.active.add(touched);
  if (runner.active.size === 0) return;
  const now = store.clock.now();
  let nextDue = Infinity;
  for (const pipelineId of [...runner.active]) {
    const project = store.projects.find((p) => p.pipelines.some((q) => q.id === pipelineId));
    const pipeline = project?.pipelines.find((p) => p.id === pipelineId);
    if (!project || !pipeline) {
      runner.active.delete(pipelineId);
      continue;
    }
    const due = advance(store, project, pipeline, now);
    if (due === null) runner.active.delete(pipelineId);
    else nextDue = Math.min(nextDue, due);
  }
  if (nextDue !== runner.wakeAt) {
    runner.cancelWake?.();
    runner.cancelWake = undefined;
    runner.wakeAt = nextDue;
    if (nextDue !== Infinity) {
      runner.cancelWake = store.clock.wakeAt(nextDue, () => {
        runner.cancelWake = undefined;
        runner.wakeAt = Infinity;
        catchUp(store);
      });
    }
  }
}

/**
 * After a person's change (a pipeline retry with nothing to retry), a pipeline none of whose latest jobs waits to
 * run takes its status from its jobs again, so it ends instead of staying `pending` with every job passed. A pipeline
 * the seed made without job records stays as the spec's table sets it: nothing is known to end it from. Nothing happens
 * while a job is still to run.
 */
export function endIfIdle(store: Store, project: Project, pipeline: Pipeline): void {
  const jobs = jobsOf(store).jobs.filter((j) => j.pipeline_id === pipeline.id && !j.retried);
  const waiting = ['created', 'pending', 'running', 'waiting_for_resource', 'preparing'];
  if (jobs.length === 0 || jobs.some((j) => waiting.includes(j.status))) return;
  const before = pipeline.status;
  followJobs(pipeline, jobs, runnerOf(store).managed, store.clock.now());
  announcePipelineChange(store, project, pipeline, before);
}

/** Stops the wake-up (the sandbox closes). */
export function stopRunner(store: Store): void {
  const runner = runnerOf(store);
  runner.cancelWake?.();
  runner.cancelWake = undefined;
  runner.wakeAt = Infinity;
}

/** A stage's place: the scenario's order, then the usual one. */
function stageRank(scenario: Scenario, stage: string): number {
  const order = [...scenario.stages, 'build', 'test', 'deploy'];
  const at = order.indexOf(stage);
  return at === -1 ? order.length : at;
}

/**
 * Moves one pipeline's managed jobs up to `now`, one transition at a time in time order. Returns when its next
 * transition is due, or null when none of its managed jobs will move again by itself.
 */
function advance(store: Store, project: Project, pipeline: Pipeline, now: number): number | null {
  const runner = runnerOf(store);
  const scenario = scenarioFor(project);
  const latest = () => jobsOf(store).jobs.filter((j) => j.pipeline_id === pipeline.id && !j.retried);
  const queueMs = scaled(store, QUEUE_SECONDS);
  const before = pipeline.status;
  let changedAt: number | null = null;
  let at = Math.min(now, pipeline.updated_at.getTime());
  let nextDue: number | null = null;
  for (;;) {
    if (settle(store, scenario, latest(), at)) changedAt = at;
    // The next due transition of a managed job.
    let next: { job: Job; due: number } | null = null;
    for (const job of latest()) {
      if (!runner.managed.has(job.id)) continue;
      let due: number | null = null;
      if (job.status === 'pending' && job.queued_at) due = job.queued_at.getTime() + queueMs;
      else if (job.status === 'running' && job.started_at)
        due = job.started_at.getTime() + planOf(store, project, pipeline, job).durationMs;
      if (due !== null && (!next || due < next.due)) next = { job, due };
    }
    if (!next) break;
    if (next.due > now) {
      nextDue = next.due;
      break;
    }
    at = next.due;
    changedAt = at;
    const { job } = next;
    if (job.status === 'pending') {
      job.status = 'running';
      job.started_at = new Date(at);
    } else {
      const plan = planOf(store, project, pipeline, job);
      job.status = plan.status;
      job.failure_reason = plan.failureReason;
      job.finished_at = new Date(at);
      const log = plan.lines.join('\n');
      setJobLog(store, job.id, log);
      job.artifacts = [{ file_type: 'trace', size: Buffer.byteLength(log), filename: 'job.log', file_format: null }];
      runner.plans.delete(job.id);
    }
  }
  for (const job of latest()) {
    if (!runner.managed.has(job.id)) continue;
    if (job.status === 'running') writeRunningLog(store, project, pipeline, job, now);
    if (job.status === 'canceled' && runner.plans.has(job.id)) {
      // Canceled while running: what it wrote until then, and the runner's last word.
      writeRunningLog(store, project, pipeline, job, job.finished_at?.getTime() ?? now);
      setJobLog(store, job.id, `${jobsLog(store, job)}\n${ESC}[31;1mERROR: Job failed: canceled${RESET}`);
      runner.plans.delete(job.id);
    }
  }
  followJobs(pipeline, latest(), runner.managed, changedAt);
  announcePipelineChange(store, project, pipeline, before);
  // A managed job waiting behind a seeded (frozen) one has nothing due: it moves when someone touches the pipeline.
  return nextDue;
}

const jobsLog = (store: Store, job: Job) => (jobsOf(store).logs.get(job.id) ?? Buffer.alloc(0)).toString('utf8');

/**
 * Opens the jobs whose turn came: a job with `needs` once the jobs it needs passed (skipped once one of them failed),
 * whatever its stage; any other once its earlier stages passed (skipped after a failed or canceled stage). An opened
 * job queues at `at`; a manual one waits for a person. Returns whether anything moved.
 */
function settle(store: Store, scenario: Scenario, jobs: Job[], at: number): boolean {
  const runner = runnerOf(store);
  let moved = false;
  const waits = (job: Job) => job.status === 'created' && runner.managed.has(job.id);
  const open = (job: Job, blocked: boolean) => {
    if (blocked) job.status = 'skipped';
    else if (job.manual) {
      job.status = 'manual';
      job.manual_at = new Date(at);
    } else {
      job.status = 'pending';
      job.queued_at = new Date(at);
    }
    moved = true;
  };
  const needsOf = (job: Job) => scenarioJob(scenario, job.name, job.stage).needs;
  for (const job of jobs.filter(waits)) {
    const needs = needsOf(job);
    if (!needs) continue;
    const needed = jobs.filter((j) => needs.includes(j.name));
    const failed = needed.some((j) => (j.status === 'failed' && !j.allow_failure) || FAILED_END.includes(j.status));
    if (failed || needed.every((j) => j.status === 'success' || j.status === 'failed')) open(job, failed);
  }
  const ranks = [...new Set(jobs.map((j) => stageRank(scenario, j.stage)))].sort((a, b) => a - b);
  let blocked = false;
  for (const rank of ranks) {
    const stage = jobs.filter((j) => stageRank(scenario, j.stage) === rank);
    for (const job of stage) if (waits(job) && !needsOf(job)) open(job, blocked);
    if (
      stage.some(
        (j) =>
          j.status === 'created' ||
          j.status === 'pending' ||
          j.status === 'running' ||
          j.status === 'waiting_for_resource',
      )
    )
      return moved;
    if (stage.some((j) => (j.status === 'failed' && !j.allow_failure) || j.status === 'canceled')) blocked = true;
  }
  return moved;
}

/** How a needed job ends that skips the jobs needing it, besides failing. */
const FAILED_END: readonly Job['status'][] = ['canceled', 'skipped'];

/** The pipeline's status, start, end and duration from its latest jobs. */
function followJobs(pipeline: Pipeline, jobs: Job[], managed: ReadonlySet<number>, changedAt: number | null): void {
  if (changedAt === null || jobs.length === 0) return;
  const has = (status: string) => jobs.some((j) => j.status === status);
  // Pending until a runner took one of the jobs of this run (a new pipeline, a retry); running from then on.
  const taken = jobs.some((j) => managed.has(j.id) && j.started_at !== null);
  let status: Pipeline['status'];
  if (has('running')) status = 'running';
  else if (has('pending') || has('created')) status = taken ? 'running' : 'pending';
  else if (jobs.some((j) => j.status === 'failed' && !j.allow_failure)) status = 'failed';
  else if (has('canceled')) status = 'canceled';
  else if (jobs.every((j) => j.status === 'skipped')) status = 'skipped';
  else status = 'success';
  pipeline.status = status;
  pipeline.updated_at = new Date(Math.max(changedAt, pipeline.updated_at.getTime()));
  const starts = jobs.map((j) => j.started_at?.getTime()).filter((t): t is number => t !== undefined);
  if (!pipeline.started_at && starts.length > 0) pipeline.started_at = new Date(Math.min(...starts));
  const finished = ['success', 'failed', 'canceled', 'skipped'].includes(status);
  if (!finished) {
    pipeline.finished_at = null;
    pipeline.duration = null;
    return;
  }
  const ends = jobs.map((j) => j.finished_at?.getTime()).filter((t): t is number => t !== undefined);
  pipeline.finished_at = new Date(Math.max(changedAt, ...ends));
  pipeline.duration = Math.round(runningTime(jobs) / 1000);
}

/** How long any job of the pipeline was running (overlaps counted once): the service's pipeline duration. */
function runningTime(jobs: Job[]): number {
  const spans = jobs
    .filter((j) => j.started_at && j.finished_at)
    .map((j) => [j.started_at!.getTime(), j.finished_at!.getTime()] as const);
  spans.sort((a, b) => a[0] - b[0]);
  let total = 0;
  let [from, to] = [-Infinity, -Infinity];
  for (const [s, e] of spans) {
    if (s > to) {
      if (to > from) total += to - from;
      [from, to] = [s, e];
    } else to = Math.max(to, e);
  }
  if (to > from) total += to - from;
  return total;
}

/** The lines a running job has written by `at`: spread over its run, the closing ones only at its end. */
function writeRunningLog(store: Store, project: Project, pipeline: Pipeline, job: Job, at: number): void {
  const plan = planOf(store, project, pipeline, job);
  const body = plan.lines.length - plan.closing;
  const elapsed = Math.max(0, at - (job.started_at?.getTime() ?? at));
  const shown = Math.min(body, Math.floor((elapsed / plan.durationMs) * body) + 1);
  setJobLog(store, job.id, plan.lines.slice(0, shown).join('\n'));
}

/** A started job's plan: decided once, when it starts, from the scenario and the commit's facts. */
function planOf(store: Store, project: Project, pipeline: Pipeline, job: Job): RunPlan {
  const runner = runnerOf(store);
  let plan = runner.plans.get(job.id);
  if (!plan) {
    plan = makePlan(store, project, pipeline, job);
    runner.plans.set(job.id, plan);
  }
  return plan;
}

/** Which attempt at this job, in its pipeline, this run is (1 for the first, 2 for its first retry, …). */
function attemptOf(store: Store, job: Job): number {
  return jobsOf(store).jobs.filter((j) => j.pipeline_id === job.pipeline_id && j.name === job.name && j.id <= job.id)
    .length;
}

function outcomeOf(
  store: Store,
  project: Project,
  pipeline: Pipeline,
  job: Job,
  rule: OutcomeRule,
): { failed: boolean; reason: string | null } {
  switch (rule.kind) {
    case 'pass':
      return { failed: false, reason: null };
    case 'fails_while_file_contains': {
      const content = runnerOf(store).facts.get(factKey(project, pipeline.sha, rule.path)) ?? '';
      return { failed: content.includes(rule.text), reason: 'script_failure' };
    }
    case 'flaky':
      return { failed: jobDice(job.id) % rule.oneIn === 0, reason: 'script_failure' };
    case 'infrastructure_on_first_attempt':
      return { failed: attemptOf(store, job) === 1, reason: rule.reason };
  }
}

function makePlan(store: Store, project: Project, pipeline: Pipeline, job: Job): RunPlan {
  const scenario = scenarioFor(project);
  const row = scenarioJob(scenario, job.name, job.stage);
  const { failed, reason } = outcomeOf(store, project, pipeline, job, row.outcome);
  const at = Math.floor((job.started_at?.getTime() ?? store.clock.now()) / 1000);
  const durationMs = scaled(store, row.seconds);
  const lines = failed
    ? failureLines(at, project, pipeline, scenario, row, reason)
    : successLines(at, project, pipeline, scenario, row);
  return {
    durationMs,
    status: failed ? 'failed' : 'success',
    failureReason: failed ? reason : null,
    lines: lines.lines,
    closing: lines.closing,
  };
}

function scriptLines(at: number, project: Project, pipeline: Pipeline, scenario: Scenario, row: ScenarioJob): string[] {
  return [
    ...opening(at, project, pipeline, scenario.image),
    start(at + 9, 'step_script', 'Executing "step_script" stage of the job script'),
    ...row.script.flatMap((line) => [cmd(line), 'ok']),
  ];
}

function successLines(
  at: number,
  project: Project,
  pipeline: Pipeline,
  scenario: Scenario,
  row: ScenarioJob,
): { lines: string[]; closing: number } {
  const lines = [
    ...scriptLines(at, project, pipeline, scenario, row),
    end(at + 9 + row.seconds, 'step_script'),
    `${ESC}[32;1mJob succeeded${RESET}`,
  ];
  return { lines, closing: 2 };
}

function failureLines(
  at: number,
  project: Project,
  pipeline: Pipeline,
  scenario: Scenario,
  row: ScenarioJob,
  reason: string | null,
): { lines: string[]; closing: number } {
  const rule = row.outcome;
  if (rule.kind === 'infrastructure_on_first_attempt') {
    const opened = opening(at, project, pipeline, scenario.image).slice(0, 4);
    const error =
      reason === 'stuck_or_timeout_failure'
        ? `${ESC}[31;1mERROR: Job failed: execution took longer than 1h0m0s seconds${RESET}`
        : `${ESC}[31;1mERROR: Job failed (system failure): prepare environment: Error response from daemon: no space left on device (exec.go:78:0s)${RESET}`;
    return { lines: [...opened, error], closing: 1 };
  }
  const failure = rule.kind === 'fails_while_file_contains' || rule.kind === 'flaky' ? rule.failure : 'date_test';
  if (failure === 'date_test') {
    const lines = incidentLog(at, project, pipeline).split('\n');
    return { lines, closing: 3 };
  }
  const output =
    failure === 'deploy_health_check'
      ? ['deploy: rolled out 0 of 0 replicas', 'deploy: health check failed: no replica answered on /healthz after 60s']
      : [
          '--- FAIL: TestRefundWebhookRetries (30.01s)',
          '    webhooks_test.go:88: timed out waiting for the sandbox acquirer',
          'FAIL',
        ];
  // The script's last command prints `output` instead of its 'ok', and the job fails with its exit code.
  const lines = [
    ...scriptLines(at, project, pipeline, scenario, row).slice(0, -1),
    ...output,
    end(at + 9 + row.seconds, 'step_script'),
    `${ESC}[31;1mERROR: Job failed: exit code 1`,
    RESET,
  ];
  return { lines, closing: 2 };
}
