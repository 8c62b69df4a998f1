// The jobs of the sandbox's pipelines: kept in the area's own slot, by id, each with its log (the "trace").
import { areaState } from '../../core/area.js';
import type { Pipeline, Project, Store } from '../../core/store.js';

export const JOB_STATUSES = [
  'created',
  'pending',
  'running',
  'failed',
  'success',
  'canceled',
  'skipped',
  'waiting_for_resource',
  'manual',
] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** Statuses of a job that has ended (a retry or an erase needs one of them). */
export const FINISHED_JOB: readonly JobStatus[] = ['success', 'failed', 'canceled'];

export interface JobArtifact {
  file_type: 'archive' | 'metadata' | 'trace' | 'junit';
  size: number;
  filename: string;
  file_format: string | null;
}

/** Where a deploy job deploys (its CI configuration's `environment:`): each run of it makes a deployment. */
export interface JobEnvironment {
  name: string;
  /** start deploys (the default); stop stops the environment; prepare and verify make no deployment. */
  action: 'start' | 'stop' | 'prepare' | 'verify';
  url: string | null;
}

export interface Job {
  id: number;
  project_id: number;
  pipeline_id: number;
  name: string;
  stage: string;
  status: JobStatus;
  /** Why a failed job failed (script_failure, runner_system_failure, …); null otherwise. */
  failure_reason: string | null;
  allow_failure: boolean;
  /** Whether a person starts it (when: manual). */
  manual: boolean;
  user_id: number;
  created_at: Date;
  /** When it entered the queue (pending): created with its pipeline, played, retried; null while it never did. */
  queued_at: Date | null;
  started_at: Date | null;
  finished_at: Date | null;
  /**
   * When it began waiting for a person (manual): a deploy's deployment may block then, which changes its update time
   * as the service's status change does. Absent on a seeded job.
   */
  manual_at?: Date;
  erased_at: Date | null;
  coverage: number | null;
  /** Replaced by a retry (shown only with include_retried). */
  retried: boolean;
  artifacts: JobArtifact[];
  /** A deploy job's environment; null for any other job. A retry keeps it, so it deploys the same commit again. */
  environment?: JobEnvironment | null;
}

interface JobsState {
  jobs: Job[];
  /** Job id → its log, as the runner wrote it (ANSI colours, section markers). */
  logs: Map<number, Buffer>;
}

export const jobsOf = areaState('jobs', (): JobsState => ({ jobs: [], logs: new Map() }));

/** A job's log (empty when it has none, or was erased). */
export function jobLog(store: Store, jobId: number): Buffer {
  return jobsOf(store).logs.get(jobId) ?? Buffer.alloc(0);
}

/** Sets a job's log (the seed, a test that needs a log of some size). */
export function setJobLog(store: Store, jobId: number, log: Buffer | string): void {
  jobsOf(store).logs.set(jobId, typeof log === 'string' ? Buffer.from(log) : log);
}

/** What the runner (./runner.ts) keeps per sandbox: the jobs it moves, their plans, the facts its rules read. */
export const runnerOf = areaState('job_runner', () => ({
  /** Jobs created after the seed (new pipelines, retries, plays): the only ones the runner moves. */
  managed: new Set<number>(),
  /** Pipelines with a managed job that may still move. */
  active: new Set<number>(),
  /** Started jobs' plans (outcome, duration, log lines), by job id; dropped when the job ends. */
  plans: new Map<
    number,
    { durationMs: number; status: 'success' | 'failed'; failureReason: string | null; lines: string[]; closing: number }
  >(),
  /** What the scenarios' rules read from a commit's tree, by project, commit and path. */
  facts: new Map<string, string>(),
  listeners: [] as Array<(project: Project, pipeline: Pipeline) => void>,
  wakeAt: Infinity,
  cancelWake: undefined as (() => void) | undefined,
}));

/** Hands a job to the runner: it moves from its status on, on the sandbox's clock. */
export function manageJob(store: Store, job: Job): void {
  const runner = runnerOf(store);
  runner.managed.add(job.id);
  runner.active.add(job.pipeline_id);
}

/** What a job that has not run yet has, a new one or a retry, created at `now`. */
export function notYetRun(now: Date) {
  return {
    failure_reason: null,
    created_at: now,
    started_at: null,
    finished_at: null,
    erased_at: null,
    coverage: null,
    retried: false,
    artifacts: [],
  };
}

/** A job the runner is to start: pending since `at`, and managed by the runner. */
export function queueJob(store: Store, job: Job, at: Date): void {
  job.status = 'pending';
  job.queued_at = at;
  manageJob(store, job);
}

/** A retry of a finished job: a new job in its place (the old one kept as retried), pending for `userId`, run by the runner. */
export function retryJob(store: Store, job: Job, userId: number, now = new Date(store.clock.now())): Job {
  const retry: Job = {
    ...job,
    id: store.nextId('job'),
    status: 'pending',
    user_id: userId,
    queued_at: now,
    ...notYetRun(now),
  };
  job.retried = true;
  jobsOf(store).jobs.push(retry);
  manageJob(store, retry);
  return retry;
}

const latestOf = (store: Store, pipelineId: number) =>
  jobsOf(store).jobs.filter((j) => j.pipeline_id === pipelineId && !j.retried);

/**
 * A pipeline's retry, as the service does it: each failed or canceled job is retried, and the jobs it had skipped
 * wait to run again, each until its stage comes (the runner queues it then). A manual job then waits for a person
 * (the service clones it without enqueueing it; only a job's own retry starts a manual job at once). Returns the jobs
 * retried.
 */
export function retryPipelineJobs(store: Store, pipelineId: number, userId: number): Job[] {
  const now = new Date(store.clock.now());
  const latest = latestOf(store, pipelineId);
  const retried = latest
    .filter((j) => j.status === 'failed' || j.status === 'canceled')
    .map((j) => {
      const retry = retryJob(store, j, userId, now);
      retry.status = 'created';
      retry.queued_at = null;
      return retry;
    });
  for (const job of latest) {
    if (job.status !== 'skipped') continue;
    job.status = 'created';
    manageJob(store, job);
  }
  return retried;
}

/** A pipeline's cancel: every job that has not ended is canceled. */
export function cancelPipelineJobs(store: Store, pipelineId: number): void {
  const now = new Date(store.clock.now());
  for (const job of latestOf(store, pipelineId)) {
    if (
      job.status === 'created' ||
      job.status === 'pending' ||
      job.status === 'running' ||
      job.status === 'waiting_for_resource'
    ) {
      job.status = 'canceled';
      job.finished_at = job.started_at ? now : null;
    }
  }
}

/** A pipeline's delete: its jobs and their logs go with it. */
export function forgetPipelineJobs(store: Store, pipelineId: number): void {
  const state = jobsOf(store);
  for (const job of state.jobs) if (job.pipeline_id === pipelineId) state.logs.delete(job.id);
  state.jobs = state.jobs.filter((j) => j.pipeline_id !== pipelineId);
}

/** The variables a person gave a manual job when playing it (job_variables_attributes), by job id. */
export const playVariablesOf = areaState(
  'job_play_variables',
  () => new Map<number, Array<{ key: string; value: string }>>(),
);
