// How a Jobs API request finds its job and checks who may see or change it: the project's jobs (of pipelines that
// still exist), one job or pipeline by the path, who sees a project's jobs, and who may change a job on its ref.
import { forbidden } from '../../core/errors.js';
import { branchPermissions } from '../../core/protected-branches.js';
import type { SandboxContext } from '../../core/context.js';
import { pathRecord, type SandboxRequest } from '../../core/router.js';
import { ACCESS, type Pipeline, type Project, type Store, type User } from '../../core/store.js';
import { jobsOf, type Job } from './state.js';

export const pipelineOf = (project: Project, job: Job) => project.pipelines.find((p) => p.id === job.pipeline_id)!;

/** The project's jobs whose pipeline still exists, newest first. */
export function projectJobs(store: Store, project: Project): Job[] {
  const pipelines = new Set(project.pipelines.map((p) => p.id));
  return jobsOf(store)
    .jobs.filter((j) => j.project_id === project.id && pipelines.has(j.pipeline_id))
    .sort((a, b) => b.id - a.id);
}

export function findJob(store: Store, project: Project, req: SandboxRequest<unknown>): Job {
  return pathRecord(req, 'job_id', projectJobs(store, project));
}

export function findPipeline(project: Project, req: SandboxRequest<unknown>): Pipeline {
  return pathRecord(req, 'pipeline_id', project.pipelines);
}

/** Whether the caller sees the project's jobs: everyone who sees it while its pipelines are public, else reporters. */
export function readsJobs(ctx: SandboxContext, user: User | null, project: Project): boolean {
  return project.jobs_enabled && ((project.public_jobs ?? true) || ctx.projectAccess(user, project) >= ACCESS.reporter);
}

/** The project of a Jobs API read: 404 when hidden, 403 when its jobs are not the caller's to see. */
export function jobsProject(ctx: SandboxContext, req: SandboxRequest<unknown>): Project {
  const project = ctx.findProjectFor(req, req.pathParams.id);
  if (!readsJobs(ctx, req.user, project)) throw forbidden();
  return project;
}

/**
 * A job the caller may change: developer access, and on a protected branch the right to push or merge to it
 * (the service keeps a protected ref's jobs to those who may update it). A tag's job has no such rule here.
 */
export function writable(
  ctx: SandboxContext,
  req: SandboxRequest<unknown>,
  user: User,
): { project: Project; job: Job } {
  const { store } = ctx;
  const project = ctx.findProjectFor(req, req.pathParams.id, { minAccess: ACCESS.developer, write: true });
  const job = findJob(store, project, req);
  const pipeline = pipelineOf(project, job);
  if (!pipeline.tag) {
    const may = branchPermissions(store, project, user, ctx.projectAccess(user, project), pipeline.ref);
    if (!may.push && !may.merge) throw forbidden();
  }
  return { project, job };
}
