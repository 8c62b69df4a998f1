// Jobs (the service's Jobs API, v4): a pipeline's and a project's jobs, newest first, one job, its log with Range,
// retry, cancel, play and erase.
//
// Access, as the service's API and permission table have it:
//   the Jobs API (/projects/:id/jobs…)  a token, always (401 without one, whatever the project)
//   a pipeline's jobs                  no token on a public project
//   list, read, log                    who may see the project's jobs: everyone who sees the project while its
//                                      pipelines are public (public_jobs, the default), else reporters and up (403)
//   retry, cancel, play                developer (30); on a protected branch, only who may push or merge to it;
//                                      a retry of a deploy job to a protected environment (production), maintainer
//   erase                              maintainer, or the developer who started the job on an unprotected ref
// A private project is a 404 to an outsider. Archived projects are read-only (403 on writes).
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { forbidden, messageError, recordNotFound } from '../../core/errors.js';
import { paginate } from '../../core/paginate.js';
import { param } from '../../core/params.js';
import { branchPermissions } from '../../core/protected-branches.js';
import { integerPathParam, type Router, type SandboxRequest, signedInList } from '../../core/router.js';
import { ACCESS, type Pipeline, type Project, type Store, type User } from '../../core/store.js';
import { jobViews as views } from './job-view.js';
import { needsApprovalToStart, syncDeployments, waitsForApproval } from './deployments.js';
import {
  announcePipelineChange,
  catchUp,
  endIfIdle,
  prepareFacts,
  requeueLaterStages,
  resumePipeline,
  startPushPipeline,
  stopRunner,
} from './runner.js';
import {
  FINISHED_JOB,
  JOB_STATUSES,
  jobLog,
  jobsOf,
  playVariablesOf,
  queueJob,
  retryJob,
  setJobLog,
  type Job,
} from './state.js';

const scopeParam = z.union([param.enum(JOB_STATUSES), z.array(param.enum(JOB_STATUSES))]).optional();

const playParams = z.object({
  job_variables_attributes: param.array(z.strictObject({ key: z.string(), value: z.string() })).optional(),
});

const pipelineOf = (project: Project, job: Job) => project.pipelines.find((p) => p.id === job.pipeline_id)!;

function scopeOf(scope: string | string[] | undefined): Set<string> | undefined {
  if (scope === undefined) return undefined;
  return new Set(Array.isArray(scope) ? scope : [scope]);
}

/** The project's jobs whose pipeline still exists, newest first. */
function projectJobs(store: Store, project: Project): Job[] {
  const pipelines = new Set(project.pipelines.map((p) => p.id));
  return jobsOf(store)
    .jobs.filter((j) => j.project_id === project.id && pipelines.has(j.pipeline_id))
    .sort((a, b) => b.id - a.id);
}

function findJob(store: Store, project: Project, req: SandboxRequest<unknown>): Job {
  const id = integerPathParam(req, 'job_id');
  const job = projectJobs(store, project).find((j) => j.id === id);
  if (!job) throw recordNotFound();
  return job;
}

function findPipeline(project: Project, req: SandboxRequest<unknown>): Pipeline {
  const id = integerPathParam(req, 'pipeline_id');
  const pipeline = project.pipelines.find((p) => p.id === id);
  if (!pipeline) throw recordNotFound();
  return pipeline;
}

/** Statuses a cancel stops; any other job is answered as it is (the service's cancel changes nothing then). */
const CANCELABLE: readonly string[] = ['created', 'waiting_for_resource', 'pending', 'running'];

/** `bytes=-N`, `bytes=S-` or `bytes=S-E` of a body of `total` bytes; undefined for no (or an unreadable) Range. */
function byteRange(
  header: string | undefined,
  total: number,
): { start: number; end: number } | 'unsatisfiable' | undefined {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (total === 0) return undefined; // nothing to cut: the whole (empty) log, 200
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(0, total - suffix), end: total - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? total - 1 : Math.min(Number(match[2]), total - 1);
  if (start >= total || end < start) return 'unsatisfiable';
  return { start, end };
}

const projectListParams = z.object({
  scope: scopeParam,
  order_by: param.enum(['id']).optional(),
  sort: param.enum(['asc', 'desc']).optional(),
});

/** The runner moves with the requests: it catches up before each, stops with the sandbox, and starts push pipelines. */
function runWithRequests(ctx: SandboxContext): void {
  const { store } = ctx;
  store.beforeRequest.push(() => catchUp(store));
  store.onClose.push(() => stopRunner(store));
  // A pipeline that could not be started must not fail the push that already happened: it is logged instead.
  store.onBranchMoved.push((project, branch, sha, before) =>
    startPushPipeline(store, project, branch, sha, before).catch((error: unknown) => {
      ctx.log(
        `sandbox: no pipeline for ${project.full_path}@${branch} ${sha}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }),
  );
}

/** Whether the caller sees the project's jobs: everyone who sees it while its pipelines are public, else reporters. */
function readsJobs(ctx: SandboxContext, user: User | null, project: Project): boolean {
  return project.jobs_enabled && ((project.public_jobs ?? true) || ctx.projectAccess(user, project) >= ACCESS.reporter);
}

/** The project of a Jobs API read: 404 when hidden, 403 when its jobs are not the caller's to see. */
function jobsProject(ctx: SandboxContext, req: SandboxRequest<unknown>): Project {
  const project = ctx.findProjectFor(req, req.pathParams.id);
  if (!readsJobs(ctx, req.user, project)) throw forbidden();
  return project;
}

/**
 * A job the caller may change: developer access, and on a protected branch the right to push or merge to it
 * (the service keeps a protected ref's jobs to those who may update it). A tag's job has no such rule here.
 */
function writable(ctx: SandboxContext, req: SandboxRequest<unknown>, user: User): { project: Project; job: Job } {
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

export function register(router: Router, ctx: SandboxContext): void {
  runWithRequests(ctx);
  registerJobReads(router, ctx);
  registerJobActions(router, ctx);
  registerJobPlayAndErase(router, ctx);
}

/** Reading jobs: a pipeline's, a project's, one, and its log. */
function registerJobReads(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;
  router.route(
    'GET',
    '/projects/:id/pipelines/:pipeline_id/jobs',
    { params: z.object({ scope: scopeParam, include_retried: param.boolean().optional() }), pagination: 'offset' },
    async (req, reply) => {
      // The Pipelines API: no token needed on a public project; newest first, as the Jobs API lists them. Who may
      // see a public or internal project's pipelines but not its jobs gets none; on a private one, 403.
      const project = ctx.findProjectFor(req, req.pathParams.id);
      const hidden = !readsJobs(ctx, req.user, project);
      if (hidden && project.visibility === 'private') throw forbidden();
      const pipeline = findPipeline(project, req);
      if (hidden) {
        reply.json(paginate(req, reply, []));
        return;
      }
      const scope = scopeOf(req.params.scope);
      const jobs = projectJobs(store, project).filter(
        (j) =>
          j.pipeline_id === pipeline.id &&
          (req.params.include_retried || !j.retried) &&
          (!scope || scope.has(j.status)),
      );
      reply.json(await views(store, project, paginate(req, reply, jobs)));
    },
  );

  router.route('GET', '/projects/:id/jobs', signedInList(projectListParams), async (req, reply) => {
    const project = jobsProject(ctx, req);
    const scope = scopeOf(req.params.scope);
    const jobs = projectJobs(store, project).filter((j) => !scope || scope.has(j.status));
    if (req.params.sort === 'asc') jobs.reverse();
    // The service pages a project's jobs without counting them.
    reply.json(await views(store, project, paginate(req, reply, jobs, { withoutCount: true })));
  });

  router.route('GET', '/projects/:id/jobs/:job_id', { auth: 'user' }, async (req, reply) => {
    const project = jobsProject(ctx, req);
    reply.json((await views(store, project, [findJob(store, project, req)]))[0]);
  });

  router.route('GET', '/projects/:id/jobs/:job_id/trace', { auth: 'user' }, (req, reply) => {
    const project = jobsProject(ctx, req);
    const job = findJob(store, project, req);
    const log = jobLog(store, job.id);
    const range = byteRange(req.headers.range, log.length);
    reply.header('accept-ranges', 'bytes');
    reply.header('content-disposition', `infile; filename="${job.id}.log"`);
    if (range === 'unsatisfiable') {
      reply.header('content-range', `bytes */${log.length}`);
      reply.send(416, '', 'text/plain; charset=utf-8');
    } else if (range) {
      reply.header('content-range', `bytes ${range.start}-${range.end}/${log.length}`);
      reply.send(206, log.subarray(range.start, range.end + 1), 'text/plain; charset=utf-8');
    } else {
      reply.send(200, log, 'text/plain; charset=utf-8');
    }
  });
}

/** Retrying and canceling a job. */
function registerJobActions(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;
  router.route('POST', '/projects/:id/jobs/:job_id/retry', { auth: 'user' }, async (req, reply) => {
    const user = ctx.requireUser(req);
    const { project, job } = writable(ctx, req, user);
    // A protected environment is deployed to again only by who may deploy there (its deploy access: maintainers): a
    // developer's retry of its deploy job (a rollback) is refused, as the service's job policy refuses it.
    if (needsApprovalToStart(job) && ctx.projectAccess(user, project) < ACCESS.maintainer) throw forbidden();
    if (!FINISHED_JOB.includes(job.status) || job.retried)
      throw messageError(403, '403 Forbidden - Job is not retryable');
    const now = new Date(store.clock.now());
    const pipeline = pipelineOf(project, job);
    await prepareFacts(store, project, pipeline.sha);
    const retry = retryJob(store, job, user.id, now);
    if (needsApprovalToStart(retry)) {
      // A deploy to a protected environment that wants approvals waits for them, a retry too: its new deployment is
      // blocked and the job stays manual until the approvals are in (see ./deployment-routes.ts).
      retry.status = 'manual';
      retry.manual_at = now;
      retry.queued_at = null;
      syncDeployments(store);
      endIfIdle(store, project, pipeline);
      reply.json((await views(store, project, [retry]))[0], 201);
      return;
    }
    requeueLaterStages(store, project, retry);
    resumePipeline(store, project, pipeline, { status: 'pending', before: pipeline.status, at: now });
    reply.json((await views(store, project, [retry]))[0], 201);
  });

  router.route(
    'POST',
    '/projects/:id/jobs/:job_id/cancel',
    { auth: 'user', params: z.object({ force: param.boolean().optional() }) },
    async (req, reply) => {
      const user = ctx.requireUser(req);
      const { project, job } = writable(ctx, req, user);
      // force cancels a job stuck in `canceling`, which the sandbox's jobs never are: it takes a maintainer, and does nothing more.
      if (req.params.force === true && ctx.projectAccess(user, project) < ACCESS.maintainer) throw forbidden();
      // The service answers a job that has ended (or waits for a person) with the job as it is, 201.
      if (!CANCELABLE.includes(job.status)) {
        reply.json((await views(store, project, [job]))[0], 201);
        return;
      }
      const now = new Date(store.clock.now());
      job.status = 'canceled';
      job.finished_at = job.started_at ? now : null;
      const pipeline = pipelineOf(project, job);
      const before = pipeline.status;
      const active = projectJobs(store, project).some(
        (j) => j.pipeline_id === pipeline.id && !j.retried && ['pending', 'running'].includes(j.status),
      );
      if (!active && (pipeline.status === 'running' || pipeline.status === 'pending')) {
        // The vendor skips the jobs of later stages behind a canceled one; only a pipeline's cancel cancels them.
        for (const other of projectJobs(store, project))
          if (other.pipeline_id === pipeline.id && other.status === 'created') other.status = 'skipped';
        pipeline.status = 'canceled';
        pipeline.finished_at = now;
        pipeline.duration = pipeline.started_at
          ? Math.round((now.getTime() - pipeline.started_at.getTime()) / 1000)
          : null;
        pipeline.updated_at = now;
      }
      announcePipelineChange(store, project, pipeline, before);
      catchUp(store, pipeline.id);
      reply.json((await views(store, project, [job]))[0], 201);
    },
  );
}

/** Starting a manual job, and erasing a finished one. */
function registerJobPlayAndErase(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;
  router.route('POST', '/projects/:id/jobs/:job_id/play', { auth: 'user', params: playParams }, async (req, reply) => {
    const user = ctx.requireUser(req);
    const project = jobsProject(ctx, req);
    const job = findJob(store, project, req);
    writable(ctx, req, user);
    // A deploy job whose deployment waits for approvals is not playable until they are in.
    if (job.status !== 'manual' || waitsForApproval(store, job))
      throw messageError(400, '400 Bad request - Unplayable Job');
    // The variables the person gave this run (the runner would see them; the job's answer does not show them).
    playVariablesOf(store).set(
      job.id,
      (req.params.job_variables_attributes ?? []).map(({ key, value }) => ({ key, value })),
    );
    const now = new Date(store.clock.now());
    const pipeline = pipelineOf(project, job);
    await prepareFacts(store, project, pipeline.sha);
    job.user_id = user.id;
    queueJob(store, job, now);
    resumePipeline(store, project, pipeline, { status: 'running', before: pipeline.status, at: now });
    reply.json((await views(store, project, [job]))[0], 200);
  });

  router.route('POST', '/projects/:id/jobs/:job_id/erase', { auth: 'user' }, async (req, reply) => {
    const user = ctx.requireUser(req);
    const { project, job } = writable(ctx, req, user);
    // A maintainer's; or the developer's who started it, on an unprotected ref.
    const pipeline = pipelineOf(project, job);
    const refProtected =
      !pipeline.tag &&
      branchPermissions(store, project, user, ctx.projectAccess(user, project), pipeline.ref).protected;
    if (ctx.projectAccess(user, project) < ACCESS.maintainer && (job.user_id !== user.id || refProtected))
      throw forbidden();
    // Only a finished job with a log or artifacts left can be erased.
    const erasable =
      FINISHED_JOB.includes(job.status) && (jobLog(store, job.id).length > 0 || job.artifacts.length > 0);
    if (!erasable) throw forbidden('Job is not erasable!');
    job.erased_at = new Date(store.clock.now());
    job.artifacts = [];
    setJobLog(store, job.id, Buffer.alloc(0));
    reply.json((await views(store, project, [job]))[0], 201);
  });
}
