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
import { forbidden } from '../../core/errors.js';
import { paginate } from '../../core/paginate.js';
import { param } from '../../core/params.js';
import { type Router, signedInList } from '../../core/router.js';
import { jobViews as views } from './job-view.js';
import { findJob, findPipeline, jobsProject, projectJobs, readsJobs } from './job-lookups.js';
import { registerJobWrites } from './job-write-routes.js';
import { catchUp, startPushPipeline, stopRunner } from './runner.js';
import { JOB_STATUSES, jobLog } from './state.js';

const scopeParam = z.union([param.enum(JOB_STATUSES), z.array(param.enum(JOB_STATUSES))]).optional();

function scopeOf(scope: string | string[] | undefined): Set<string> | undefined {
  if (scope === undefined) return undefined;
  return new Set(Array.isArray(scope) ? scope : [scope]);
}

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

export function register(router: Router, ctx: SandboxContext): void {
  runWithRequests(ctx);
  registerJobReads(router, ctx);
  registerJobWrites(router, ctx);
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
