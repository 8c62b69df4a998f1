// Pipelines: list with filters, read, variables; create, retry, cancel, delete are ./pipeline-write-routes.ts (the
// last three act on the pipeline's jobs too: a retry retries its failed jobs, a cancel cancels those not ended, a
// delete removes them).
//
// Access levels (the spec is silent; these follow the service's usual roles):
//   list, read                  anyone who can see a public or internal project; reporter (20) on private ones
//   variables                   developer (30): variables may hold secrets
//   create, retry, cancel       developer (30)
//   delete                      maintainer (40)
// Archived projects are read-only: every write is refused with 403.
import { z } from 'zod';
import { CODE_ACCESS, type SandboxContext } from '../../core/context.js';
import { notFound } from '../../core/errors.js';
import { paginate } from '../../core/paginate.js';
import { optionalParams, param } from '../../core/params.js';
import { integerPathParam, type Router, type SandboxRequest } from '../../core/router.js';
import { ACCESS, PIPELINE_STATUSES, type Pipeline, type PipelineStatus, type Project } from '../../core/store.js';
import { pipelineBasic, pipelineFull } from '../../core/views.js';

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

export function findPipeline(project: Project, req: SandboxRequest<unknown>): Pipeline {
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
}
