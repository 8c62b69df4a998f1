// Deployments (the service's Deployments API, v4): list and read them, approve or reject one that waits for
// approvals. The records come from deploy jobs (./deployments.ts); an approval that completes a deployment's
// approvals starts its job, a rejection fails it. Environments are ./environment-routes.ts.
//
// Access, as the service's permission table has it:
//   list, read                   who may read the project's code (reporters and up on a private project); a token
//   approve or reject            who may deploy to the protected environment (maintainers), never the deployment's
//                                own triggerer (the service's default); a developer gets 403
import { z } from 'zod';
import { CODE_ACCESS, type SandboxContext } from '../../core/context.js';
import { forbidden, messageError } from '../../core/errors.js';
import { paginate } from '../../core/paginate.js';
import { optionalParams, param } from '../../core/params.js';
import { pathRecord, type Router, type SandboxRequest, signedInList } from '../../core/router.js';
import { ACCESS, type Project } from '../../core/store.js';
import {
  DEPLOYMENT_STATUSES,
  approvalsGiven,
  deploymentStatus,
  jobOfDeployment,
  listDeployments,
  projectDeployments,
  syncDeployments,
  type Deployment,
} from './deployments.js';
import { approvalView, deploymentViews } from './deployment-view.js';
import { endIfIdle, prepareFacts, resumePipeline } from './runner.js';
import { queueJob } from './state.js';

const NO_PERMISSION =
  "You don't have permission to approve this deployment. Contact the project or group owner for help.";
const SELF_APPROVAL =
  'You cannot approve your own deployment. This configuration can be adjusted in the protected environment settings.';
const NOT_WAITING = 'This deployment is not waiting for approvals.';

const deploymentListParams = z.object({
  order_by: param.enum(['id', 'iid', 'created_at', 'updated_at', 'finished_at', 'ref']).optional(),
  sort: param.enum(['asc', 'desc']).optional(),
  ...optionalParams(param.datetime, 'updated_after', 'updated_before', 'finished_after', 'finished_before'),
  environment: z.string().optional(),
  status: param.enum(DEPLOYMENT_STATUSES).optional(),
});
const approvalParams = z.object({
  status: param.enum(['approved', 'rejected']),
  comment: z.string().optional(),
  represented_as: z.string().optional(),
});

/** The project of a read: its code readable to the caller (404 when hidden, 403 below reporter on a private one). */
export function readProject(ctx: SandboxContext, req: SandboxRequest<unknown>): Project {
  const { store } = ctx;
  const project = ctx.findProjectFor(req, req.pathParams.id, { minAccess: CODE_ACCESS });
  syncDeployments(store);
  return project;
}

function findDeployment(ctx: SandboxContext, project: Project, req: SandboxRequest<unknown>): Deployment {
  return pathRecord(req, 'deployment_id', projectDeployments(ctx.store, project));
}

/** Deployments: list, read, approve or reject. */
export function registerDeploymentRoutes(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;
  router.route('GET', '/projects/:id/deployments', signedInList(deploymentListParams), async (req, reply) => {
    const project = readProject(ctx, req);
    const deployments = listDeployments(store, project, req.params);
    reply.json(await deploymentViews(store, project, paginate(req, reply, deployments)));
  });

  router.route('GET', '/projects/:id/deployments/:deployment_id', { auth: 'user' }, async (req, reply) => {
    const project = readProject(ctx, req);
    reply.json((await deploymentViews(store, project, [findDeployment(ctx, project, req)]))[0]);
  });

  router.route(
    'POST',
    '/projects/:id/deployments/:deployment_id/approval',
    { params: approvalParams, auth: 'user' },
    async (req, reply) => {
      const user = ctx.requireUser(req);
      const project = readProject(ctx, req);
      const deployment = findDeployment(ctx, project, req);
      if (project.archived) throw forbidden('the project is archived and read-only');
      if (ctx.projectAccess(user, project) < ACCESS.maintainer) throw messageError(403, NO_PERMISSION);
      if (deploymentStatus(store, deployment) !== 'blocked') throw messageError(400, NOT_WAITING);
      if (deployment.user_id === user.id) throw messageError(400, SELF_APPROVAL);
      const now = new Date(store.clock.now());
      const approval = {
        user_id: user.id,
        status: req.params.status,
        comment: req.params.comment ?? null,
        represented_as: req.params.represented_as ?? null,
        created_at: now,
      };
      // One approval per person: a second answer replaces the first, as on the service.
      deployment.approvals = [...deployment.approvals.filter((a) => a.user_id !== user.id), approval];
      const job = jobOfDeployment(store, deployment)!;
      const pipeline = project.pipelines.find((p) => p.id === job.pipeline_id)!;
      const before = pipeline.status;
      if (approval.status === 'rejected') {
        // The service drops the job: it fails with deployment_rejected, and so does its deployment.
        job.status = 'failed';
        job.failure_reason = 'deployment_rejected';
        job.finished_at = now;
        endIfIdle(store, project, pipeline);
      } else if (approvalsGiven(deployment) >= deployment.required_approvals) {
        // Every approval is in: the job goes on, as the person who triggered it started it.
        await prepareFacts(store, project, pipeline.sha);
        queueJob(store, job, now);
        resumePipeline(store, project, pipeline, { status: 'running', before, at: now });
      }
      reply.json(approvalView(store, approval), 201);
    },
  );
}
