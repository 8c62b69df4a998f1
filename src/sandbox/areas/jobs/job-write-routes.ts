// The Jobs API's writes: retry, cancel, play (with its variables) and erase, with the rules the routes' table in
// ./routes.ts gives (developer and up; a protected ref's jobs to who may update it; erase to maintainers or the
// developer who started the job on an unprotected ref).
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { forbidden, messageError } from '../../core/errors.js';
import { param } from '../../core/params.js';
import { branchPermissions } from '../../core/protected-branches.js';
import type { Router } from '../../core/router.js';
import { ACCESS } from '../../core/store.js';
import { jobViews as views } from './job-view.js';
import { needsApprovalToStart, syncDeployments, waitsForApproval } from './deployments.js';
import {
  announcePipelineChange,
  catchUp,
  endIfIdle,
  prepareFacts,
  requeueLaterStages,
  resumePipeline,
} from './runner.js';
import { FINISHED_JOB, jobLog, playVariablesOf, queueJob, retryJob, setJobLog } from './state.js';
import { findJob, jobsProject, pipelineOf, projectJobs, writable } from './job-lookups.js';

/** Statuses a cancel stops; any other job is answered as it is (the service's cancel changes nothing then). */
const CANCELABLE: readonly string[] = ['created', 'waiting_for_resource', 'pending', 'running'];

const playParams = z.object({
  job_variables_attributes: param.array(z.strictObject({ key: z.string(), value: z.string() })).optional(),
});

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

/** Every job write: retry and cancel, play and erase. */
export function registerJobWrites(router: Router, ctx: SandboxContext): void {
  registerJobActions(router, ctx);
  registerJobPlayAndErase(router, ctx);
}
