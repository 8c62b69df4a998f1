// Pipelines: list with filters, read, variables, create, retry, cancel, delete (the last three act on the
// pipeline's jobs too: a retry retries its failed jobs, a cancel cancels those not ended, a delete removes them).
//
// Access levels (the spec is silent; these follow the service's usual roles):
//   list, read                  anyone who can see a public or internal project; reporter (20) on private ones
//   variables                   developer (30): variables may hold secrets
//   create, retry, cancel       developer (30)
//   delete                      maintainer (40)
// Archived projects are read-only: every write is refused with 403.
// A new pipeline needs the CI configuration file `.ci.yml` at the ref, as the service needs its own.
import { z } from 'zod';
import { CODE_ACCESS, type SandboxContext } from '../../core/context.js';
import { notFound, validationError } from '../../core/errors.js';
import { paginate } from '../../core/paginate.js';
import { optionalParams, param } from '../../core/params.js';
import { integerPathParam, type Router, type SandboxRequest } from '../../core/router.js';
import { ACCESS, PIPELINE_STATUSES, type Pipeline, type PipelineStatus, type Project } from '../../core/store.js';
import { pipelineBasic, pipelineFull } from '../../core/views.js';
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

export { CI_CONFIG_PATH };
const FINISHED: readonly PipelineStatus[] = ['success', 'failed', 'canceled', 'skipped'];
const ORDER_BY = ['id', 'status', 'ref', 'updated_at', 'user_id'] as const;

const listParams = z.object({
  scope: param.enum(['running', 'pending', 'finished', 'branches', 'tags']).optional(),
  status: param.enum(PIPELINE_STATUSES).optional(),
  ...optionalParams(param.string, 'ref', 'sha'),
  yaml_errors: param.boolean().optional(),
  ...optionalParams(param.string, 'name', 'username'),
  ...optionalParams(param.datetime, 'updated_after', 'updated_before'),
  order_by: param.enum(ORDER_BY).optional(),
  sort: param.enum(['asc', 'desc']).optional(),
});
type ListParams = z.output<typeof listParams>;

const variableParam = z.strictObject({
  key: z.string().regex(/^[A-Za-z0-9_]{1,255}$/),
  variable_type: param.enum(['env_var', 'file']).optional(),
  value: z.string(),
});

/** For scope=branches / tags: only the newest pipeline of each branch or tag. */
function latestPerRef(pipelines: Pipeline[], tags: boolean): Pipeline[] {
  const newest = new Map<string, Pipeline>();
  for (const pipeline of pipelines) {
    if (pipeline.tag !== tags) continue;
    const current = newest.get(pipeline.ref);
    if (!current || pipeline.id > current.id) newest.set(pipeline.ref, pipeline);
  }
  return [...newest.values()];
}

function filterPipelines(ctx: SandboxContext, project: Project, params: ListParams): Pipeline[] {
  let pipelines = project.pipelines;
  if (params.scope === 'branches' || params.scope === 'tags')
    pipelines = latestPerRef(pipelines, params.scope === 'tags');
  const username = params.username?.toLowerCase();
  const checks: Array<(p: Pipeline) => boolean> = [
    (p) => params.scope !== 'running' || p.status === 'running',
    (p) => params.scope !== 'pending' || p.status === 'pending',
    (p) => params.scope !== 'finished' || FINISHED.includes(p.status),
    (p) => params.status === undefined || p.status === params.status,
    (p) => params.ref === undefined || p.ref === params.ref,
    (p) => params.sha === undefined || p.sha === params.sha,
    (p) => params.yaml_errors === undefined || (p.yaml_errors !== null) === params.yaml_errors,
    (p) => params.name === undefined || p.name === params.name,
    (p) => username === undefined || ctx.store.findUser(String(p.user_id))?.username.toLowerCase() === username,
    (p) => params.updated_after === undefined || p.updated_at >= params.updated_after,
    (p) => params.updated_before === undefined || p.updated_at <= params.updated_before,
  ];
  return pipelines.filter((p) => checks.every((check) => check(p)));
}

function sortValue(pipeline: Pipeline, orderBy: (typeof ORDER_BY)[number]): string | number {
  switch (orderBy) {
    case 'id':
      return pipeline.id;
    case 'status':
      return pipeline.status;
    case 'ref':
      return pipeline.ref;
    case 'updated_at':
      return pipeline.updated_at.getTime();
    case 'user_id':
      return pipeline.user_id;
  }
}

function findPipeline(project: Project, req: SandboxRequest<unknown>): Pipeline {
  const id = integerPathParam(req, 'pipeline_id');
  const pipeline = project.pipelines.find((p) => p.id === id);
  if (!pipeline) throw notFound('Pipeline');
  return pipeline;
}

export function register(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;

  router.route('GET', '/projects/:id/pipelines', { params: listParams, pagination: 'offset' }, (req, reply) => {
    const project = ctx.findProjectFor(req, req.pathParams.id, { minAccess: CODE_ACCESS });
    const orderBy = req.params.order_by ?? 'id';
    const direction = (req.params.sort ?? 'desc') === 'asc' ? 1 : -1;
    const pipelines = filterPipelines(ctx, project, req.params).sort((a, b) => {
      const [va, vb] = [sortValue(a, orderBy), sortValue(b, orderBy)];
      return (va < vb ? -1 : va > vb ? 1 : a.id - b.id) * direction;
    });
    reply.json(paginate(req, reply, pipelines).map((p) => pipelineBasic(store, project, p)));
  });

  router.route('GET', '/projects/:id/pipelines/:pipeline_id', {}, (req, reply) => {
    const project = ctx.findProjectFor(req, req.pathParams.id, { minAccess: CODE_ACCESS });
    reply.json(pipelineFull(store, project, findPipeline(project, req)));
  });

  router.route('GET', '/projects/:id/pipelines/:pipeline_id/variables', {}, (req, reply) => {
    const project = ctx.findProjectFor(req, req.pathParams.id, { minAccess: ACCESS.developer });
    reply.json(findPipeline(project, req).variables.map((v) => ({ ...v })));
  });

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
