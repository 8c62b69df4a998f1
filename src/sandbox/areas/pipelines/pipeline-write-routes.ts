// The Pipelines API's writes: create, retry, cancel and delete, with the access levels the table in ./routes.ts gives.
// A new pipeline needs the CI configuration file `.ci.yml` at the ref, as the service needs its own.
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { validationError } from '../../core/errors.js';
import { param } from '../../core/params.js';
import type { Router } from '../../core/router.js';
import { ACCESS } from '../../core/store.js';
import { pipelineFull } from '../../core/views.js';
import {
  CI_CONFIG_PATH,
  announcePipelineChange,
  cancelPipelineJobs,
  catchUp,
  createRunningPipeline,
  endIfIdle,
  forgetPipelineJobs,
  prepareFacts,
  retryPipelineJobs,
} from '../jobs/index.js';
import { findPipeline } from './routes.js';

export { CI_CONFIG_PATH };

const variableParam = z.strictObject({
  key: z.string().regex(/^[A-Za-z0-9_]{1,255}$/),
  variable_type: param.enum(['env_var', 'file']).optional(),
  value: z.string(),
});

/** Creating a pipeline, and retrying, cancelling or deleting one with its jobs. */
export function registerPipelineWrites(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;

  router.route(
    'POST',
    '/projects/:id/pipeline',
    { auth: 'user', params: z.object({ ref: z.string(), variables: z.array(variableParam).optional() }) },
    async (req, reply) => {
      const user = ctx.requireUser(req);
      const project = ctx.findProjectFor(req, req.pathParams.id, { minAccess: ACCESS.developer, write: true });
      const { ref } = req.params;
      const [isBranch, isTag] = await Promise.all([project.repo.branchExists(ref), project.repo.tagExists(ref)]);
      const sha = isBranch || isTag ? await project.repo.resolveCommit(ref) : null;
      if (sha === null) throw validationError({ base: ['Reference not found'] });
      if (!(await project.repo.listFiles(sha)).has(CI_CONFIG_PATH))
        throw validationError({ base: ['Missing CI config file'] });
      const commit = await project.repo.getCommit(sha);
      // Its jobs are the project's scenario's, run by the sandbox's runner from now on.
      const pipeline = await createRunningPipeline(store, project, {
        ref,
        sha,
        tag: !isBranch,
        userId: user.id,
        source: 'api',
        committedAt: new Date(commit.committed_date),
        variables: (req.params.variables ?? []).map((v) => ({
          key: v.key,
          variable_type: v.variable_type ?? 'env_var',
          value: v.value,
        })),
      });
      reply.json(pipelineFull(store, project, pipeline), 201);
    },
  );

  router.route('POST', '/projects/:id/pipelines/:pipeline_id/retry', { auth: 'user' }, async (req, reply) => {
    const project = ctx.findProjectFor(req, req.pathParams.id, { minAccess: ACCESS.developer, write: true });
    const user = ctx.requireUser(req);
    const pipeline = findPipeline(project, req);
    await prepareFacts(store, project, pipeline.sha);
    retryPipelineJobs(store, pipeline.id, user.id);
    const before = pipeline.status;
    pipeline.status = 'pending';
    pipeline.finished_at = null;
    pipeline.duration = null;
    pipeline.updated_at = new Date(store.clock.now());
    announcePipelineChange(store, project, pipeline, before);
    catchUp(store);
    // The answer says `pending`, as the spec's state table sets it; with nothing retried the pipeline then ends
    // again from its jobs, or every waiter on it would hang.
    const body = pipelineFull(store, project, pipeline);
    endIfIdle(store, project, pipeline);
    reply.json(body, 201);
  });

  router.route('POST', '/projects/:id/pipelines/:pipeline_id/cancel', { auth: 'user' }, (req, reply) => {
    const project = ctx.findProjectFor(req, req.pathParams.id, { minAccess: ACCESS.developer, write: true });
    const pipeline = findPipeline(project, req);
    cancelPipelineJobs(store, pipeline.id);
    const now = new Date(store.clock.now());
    const before = pipeline.status;
    pipeline.status = 'canceled';
    pipeline.finished_at = now;
    pipeline.duration = pipeline.started_at ? Math.round((now.getTime() - pipeline.started_at.getTime()) / 1000) : null;
    pipeline.updated_at = now;
    announcePipelineChange(store, project, pipeline, before);
    catchUp(store, pipeline.id);
    reply.json(pipelineFull(store, project, pipeline), 201);
  });

  router.route('DELETE', '/projects/:id/pipelines/:pipeline_id', { auth: 'user' }, (req, reply) => {
    const project = ctx.findProjectFor(req, req.pathParams.id, { minAccess: ACCESS.maintainer, write: true });
    const pipeline = findPipeline(project, req);
    project.pipelines.splice(project.pipelines.indexOf(pipeline), 1);
    forgetPipelineJobs(store, pipeline.id);
    reply.empty(204);
  });
}
