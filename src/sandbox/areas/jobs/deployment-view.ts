// Environments and deployments as the service shows them (its Environment and Deployment entities): a deployment
// with its deploy job, environment and approvals; an environment with its last deployment.
import type { Project, Store } from '../../core/store.js';
import { pickFields, userBasic } from '../../core/views.js';
import {
  approvalsGiven,
  deploymentFinishedAt,
  deploymentStatus,
  deploymentUpdatedAt,
  environmentOf,
  jobOfDeployment,
  lastDeployment,
  type Deployment,
  type Environment,
} from './deployments.js';
import { jobViews } from './job-view.js';

/** The environment as a deployment shows it (the service's basic environment entity). */
function environmentBasic(environment: Environment) {
  return {
    ...pickFields(environment, ['id', 'name', 'slug', 'external_url']),
    created_at: environment.created_at.toISOString(),
    updated_at: environment.updated_at.toISOString(),
    ...pickFields(environment, ['state', 'tier']),
  };
}

/** One approval (or rejection) of a deployment, as the service shows it. */
export function approvalView(store: Store, approval: Deployment['approvals'][number]) {
  const user = store.users.find((u) => u.id === approval.user_id);
  return {
    user: user ? userBasic(store, user) : null,
    status: approval.status,
    created_at: approval.created_at.toISOString(),
    comment: approval.comment,
  };
}

/** Deployments as the service shows them: who, which commit, their status, deploy job, environment and approvals. */
export async function deploymentViews(store: Store, project: Project, deployments: Deployment[]) {
  const jobs = deployments.map((d) => jobOfDeployment(store, d));
  const deployables = await jobViews(
    store,
    project,
    jobs.filter((j) => j !== undefined),
  );
  return deployments.map((deployment) => {
    const job = jobOfDeployment(store, deployment);
    const environment = environmentOf(store, deployment)!;
    const user = store.users.find((u) => u.id === deployment.user_id);
    const status = deploymentStatus(store, deployment);
    return {
      id: deployment.id,
      iid: deployment.iid,
      ref: deployment.ref,
      sha: deployment.sha,
      created_at: deployment.created_at.toISOString(),
      updated_at: deploymentUpdatedAt(store, deployment).toISOString(),
      finished_at: deploymentFinishedAt(store, deployment)?.toISOString() ?? null,
      status,
      user: user ? userBasic(store, user) : null,
      deployable: job ? (deployables.find((d) => d.id === job.id) ?? null) : null,
      environment: environmentBasic(environment),
      pending_approval_count:
        status === 'blocked' ? Math.max(0, deployment.required_approvals - approvalsGiven(deployment)) : 0,
      approvals: deployment.approvals.map((a) => approvalView(store, a)),
    };
  });
}

/** An environment as the service shows it, with its last deployment when asked. */
export async function environmentView(store: Store, project: Project, environment: Environment, withLast: boolean) {
  const last = withLast ? lastDeployment(store, environment) : undefined;
  return {
    id: environment.id,
    name: environment.name,
    slug: environment.slug,
    description: null,
    external_url: environment.external_url,
    state: environment.state,
    tier: environment.tier,
    created_at: environment.created_at.toISOString(),
    updated_at: environment.updated_at.toISOString(),
    auto_stop_at: null,
    ...(withLast ? { last_deployment: last ? (await deploymentViews(store, project, [last]))[0] : null } : {}),
  };
}
