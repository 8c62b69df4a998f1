// Environments and deployments as the service derives them from deploy jobs: each run of a job with an
// `environment:` is a deployment whose status follows the job; an environment is made by its first deployment.
// Kept in the jobs area because a deployment is a view of a job (and its approvals gate the job's start).
import { areaState } from '../../core/area.js';
import type { Project, Store } from '../../core/store.js';
import { ciSlug } from './scenarios.js';
import { jobsOf, runnerOf, type Job } from './state.js';

export const DEPLOYMENT_STATUSES = [
  'created',
  'running',
  'success',
  'failed',
  'canceled',
  'skipped',
  'blocked',
] as const;
export type DeploymentStatus = (typeof DEPLOYMENT_STATUSES)[number];
export const ENVIRONMENT_STATES = ['available', 'stopping', 'stopped'] as const;
export const ENVIRONMENT_TIERS = ['production', 'staging', 'testing', 'development', 'other'] as const;

export interface Environment {
  id: number;
  project_id: number;
  name: string;
  slug: string;
  external_url: string | null;
  tier: (typeof ENVIRONMENT_TIERS)[number];
  state: (typeof ENVIRONMENT_STATES)[number];
  created_at: Date;
  updated_at: Date;
  /**
   * Approvals a deployment to it needs before its job may start (a protected environment's
   * required_approval_count); 0 for an unprotected one.
   */
  required_approvals: number;
}

export interface DeploymentApproval {
  user_id: number;
  status: 'approved' | 'rejected';
  comment: string | null;
  represented_as: string | null;
  created_at: Date;
}

export interface Deployment {
  id: number;
  /** Numbered per project, from 1. */
  iid: number;
  project_id: number;
  environment_id: number;
  job_id: number;
  ref: string;
  sha: string;
  /** Who triggered the job it runs (the retrier of a retry). */
  user_id: number;
  created_at: Date;
  /**
   * Approvals it needs before its job may start, as its environment asked when it was made. The seeded history
   * mostly predates production's protection: its deployments need none (and its manual deploys stay playable), but
   * bob's deploy of the culprit, which carries alice's approval (see ./seed.ts).
   */
  required_approvals: number;
  approvals: DeploymentApproval[];
}

/**
 * Protected environments of the demo: deploying to `production` takes one approval from a maintainer who did not
 * trigger the deployment (the service's default forbids approving one's own).
 */
const REQUIRED_APPROVALS: Readonly<Record<string, number>> = { production: 1 };

interface DeploymentsState {
  environments: Environment[];
  deployments: Deployment[];
  /** Deploy jobs already made into a deployment, so each run is one deployment. */
  seenJobs: Set<number>;
}

export const deploymentsOf = areaState(
  'deployments',
  (): DeploymentsState => ({ environments: [], deployments: [], seenJobs: new Set() }),
);

/** The tier the service guesses from an environment's name. */
function tierOf(name: string): Environment['tier'] {
  if (/^(prod|production|live)$/i.test(name)) return 'production';
  if (/^(staging|stage|pre-?prod|model|demo)$/i.test(name)) return 'staging';
  if (/^(test|testing|qa|acc)/i.test(name)) return 'testing';
  if (/^(dev|development|review)/i.test(name)) return 'development';
  return 'other';
}

/** Whether a deploy job's run goes to an environment that wants approvals before it starts. */
export function needsApprovalToStart(job: Job): boolean {
  return job.environment?.action === 'start' && (REQUIRED_APPROVALS[job.environment.name] ?? 0) > 0;
}

/**
 * Makes the deployments (and the environments they are the first to) of every deploy job not yet seen, in job
 * order: called before every read and change, so a job made anywhere (the seed, a new pipeline, a retry) has one.
 */
export function syncDeployments(store: Store): void {
  const state = deploymentsOf(store);
  const jobs = jobsOf(store).jobs;
  if (jobs.every((job) => state.seenJobs.has(job.id) || !job.environment)) return;
  for (const job of [...jobs].sort((a, b) => a.id - b.id)) {
    if (state.seenJobs.has(job.id) || !job.environment) continue;
    state.seenJobs.add(job.id);
    if (job.environment.action !== 'start') continue;
    const project = store.projects.find((p) => p.id === job.project_id);
    const pipeline = project?.pipelines.find((p) => p.id === job.pipeline_id);
    if (!project || !pipeline) continue;
    let environment = state.environments.find((e) => e.project_id === project.id && e.name === job.environment!.name);
    if (!environment) {
      environment = {
        id: store.nextId('environment'),
        project_id: project.id,
        name: job.environment.name,
        slug: ciSlug(job.environment.name),
        external_url: job.environment.url,
        tier: tierOf(job.environment.name),
        state: 'available',
        created_at: job.created_at,
        updated_at: job.created_at,
        required_approvals: REQUIRED_APPROVALS[job.environment.name] ?? 0,
      };
      state.environments.push(environment);
    } else if (environment.state === 'stopped') {
      // A new deployment to a stopped environment makes it available again, as on the service.
      environment.state = 'available';
      environment.updated_at = job.created_at;
    }
    state.deployments.push({
      id: store.nextId('deployment'),
      iid: state.deployments.filter((d) => d.project_id === project.id).length + 1,
      project_id: project.id,
      environment_id: environment.id,
      job_id: job.id,
      ref: pipeline.ref,
      sha: pipeline.sha,
      user_id: job.user_id,
      created_at: job.created_at,
      required_approvals: runnerOf(store).managed.has(job.id) ? environment.required_approvals : 0,
      approvals: [],
    });
  }
}

export const jobOfDeployment = (store: Store, deployment: Deployment): Job | undefined =>
  jobsOf(store).jobs.find((j) => j.id === deployment.job_id);

export const approvalsGiven = (deployment: Deployment) =>
  deployment.approvals.filter((a) => a.status === 'approved').length;

/** A deployment's status, from its job's, as the service keeps the two in step; blocked while it waits for approvals. */
export function deploymentStatus(store: Store, deployment: Deployment): DeploymentStatus {
  const job = jobOfDeployment(store, deployment);
  if (!job) return 'canceled';
  switch (job.status) {
    case 'running':
      return 'running';
    case 'success':
    case 'failed':
    case 'canceled':
    case 'skipped':
      return job.status;
    case 'manual': {
      const waiting = deployment.approvals.every((a) => a.status === 'approved');
      return waiting && approvalsGiven(deployment) < deployment.required_approvals ? 'blocked' : 'created';
    }
    default:
      return 'created';
  }
}

/** When a deployment last changed: its job's last move (waiting for a person included) or its last approval. */
export function deploymentUpdatedAt(store: Store, deployment: Deployment): Date {
  const job = jobOfDeployment(store, deployment);
  const times = [
    deployment.created_at,
    job?.manual_at,
    job?.queued_at,
    job?.started_at,
    job?.finished_at,
    ...deployment.approvals.map((a) => a.created_at),
  ].filter((t): t is Date => t instanceof Date);
  return new Date(Math.max(...times.map((t) => t.getTime())));
}

/** When a deployment's job ended; null while it has not. */
export function deploymentFinishedAt(store: Store, deployment: Deployment): Date | null {
  return jobOfDeployment(store, deployment)?.finished_at ?? null;
}

export function environmentOf(store: Store, deployment: Deployment): Environment | undefined {
  return deploymentsOf(store).environments.find((e) => e.id === deployment.environment_id);
}

/** A project's deployments, oldest first. */
export function projectDeployments(store: Store, project: Project): Deployment[] {
  return deploymentsOf(store).deployments.filter((d) => d.project_id === project.id);
}

/** The environment's last successful deployment (the service's `last_deployment`); undefined before one. */
/** What a deployments list asks for (the Deployments API's list parameters). */
export interface DeploymentQuery {
  order_by?: 'id' | 'iid' | 'created_at' | 'updated_at' | 'finished_at' | 'ref';
  sort?: 'asc' | 'desc';
  updated_after?: Date;
  updated_before?: Date;
  finished_after?: Date;
  finished_before?: Date;
  environment?: string;
  status?: DeploymentStatus;
}

/** A project's deployments that `query` asks for, in its order (ascending unless told otherwise, as the service). */
export function listDeployments(store: Store, project: Project, query: DeploymentQuery): Deployment[] {
  const after = (date: Date | null | undefined, bound: Date | undefined) =>
    bound === undefined || (date !== null && date !== undefined && date.getTime() > bound.getTime());
  const before = (date: Date | null | undefined, bound: Date | undefined) =>
    bound === undefined || (date !== null && date !== undefined && date.getTime() < bound.getTime());
  const deployments = projectDeployments(store, project).filter(
    (d) =>
      (query.environment === undefined || environmentOf(store, d)?.name === query.environment) &&
      (query.status === undefined || deploymentStatus(store, d) === query.status) &&
      after(deploymentUpdatedAt(store, d), query.updated_after) &&
      before(deploymentUpdatedAt(store, d), query.updated_before) &&
      after(deploymentFinishedAt(store, d), query.finished_after) &&
      before(deploymentFinishedAt(store, d), query.finished_before),
  );
  const key = (d: Deployment): number | string => {
    switch (query.order_by ?? 'id') {
      case 'iid':
        return d.iid;
      case 'created_at':
        return d.created_at.getTime();
      case 'updated_at':
        return deploymentUpdatedAt(store, d).getTime();
      case 'finished_at':
        return deploymentFinishedAt(store, d)?.getTime() ?? Number.MAX_SAFE_INTEGER;
      case 'ref':
        return d.ref;
      default:
        return d.id;
    }
  };
  deployments.sort((a, b) => {
    const [ka, kb] = [key(a), key(b)];
    return (ka < kb ? -1 : ka > kb ? 1 : 0) || a.id - b.id;
  });
  // The service sorts ascending unless told otherwise.
  if (query.sort === 'desc') deployments.reverse();
  return deployments;
}

export function lastDeployment(store: Store, environment: Environment): Deployment | undefined {
  return deploymentsOf(store)
    .deployments.filter((d) => d.environment_id === environment.id && deploymentStatus(store, d) === 'success')
    .sort((a, b) => {
      const [fa, fb] = [deploymentFinishedAt(store, a), deploymentFinishedAt(store, b)];
      return (fa?.getTime() ?? 0) - (fb?.getTime() ?? 0) || a.id - b.id;
    })
    .at(-1);
}

/** The deployment a deploy job's run is; undefined for a job that deploys nothing. */
export function deploymentOfJob(store: Store, job: Job): Deployment | undefined {
  syncDeployments(store);
  return deploymentsOf(store).deployments.find((d) => d.job_id === job.id);
}

/** Whether a job may not start yet: its deployment waits for approvals (play answers it as unplayable). */
export function waitsForApproval(store: Store, job: Job): boolean {
  const deployment = deploymentOfJob(store, job);
  return deployment !== undefined && deploymentStatus(store, deployment) === 'blocked';
}
