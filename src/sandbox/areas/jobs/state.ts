// The jobs of the sandbox's pipelines: kept in the area's own slot, by id, each with its log (the "trace").
import { areaState } from '../../core/area.js';
import type { Store } from '../../core/store.js';

export const JOB_STATUSES = ['created', 'pending', 'running', 'failed', 'success', 'canceled', 'skipped', 'waiting_for_resource', 'manual'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** Statuses of a job that has ended (a retry or an erase needs one of them). */
export const FINISHED_JOB: readonly JobStatus[] = ['success', 'failed', 'canceled'];

export interface JobArtifact {
  file_type: 'archive' | 'metadata' | 'trace' | 'junit';
  size: number;
  filename: string;
  file_format: string | null;
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
  started_at: Date | null;
  finished_at: Date | null;
  erased_at: Date | null;
  coverage: number | null;
  /** Replaced by a retry (shown only with include_retried). */
  retried: boolean;
  artifacts: JobArtifact[];
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
