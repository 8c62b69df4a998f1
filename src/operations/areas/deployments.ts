// Deployments area (beyond the spec; the service's Deployments API, v4): each run of a deploy job, its status
// (blocked while a protected environment waits for approvals), and approving or rejecting one.
import { z } from 'zod';
import { defineOperation, fields, defineArea, demoLookup } from '../engine/define.js';
import type { FollowUp, Presentation, RunContext } from '../engine/define.js';
import { buildPath } from '../../http/route.js';
import { serviceGet } from '../engine/effect-facts.js';
import { asRecord, presentList, shortSha, show } from '../engine/present.js';

export const DEPLOYMENT_STATUSES = [
  'created',
  'running',
  'success',
  'failed',
  'canceled',
  'skipped',
  'blocked',
] as const;

const deploymentId = () => z.number().int().positive();

/** What a deployment is, in words: "#12 of 1a2b3c4d (main) to production, blocked". */
export function deploymentWords(deployment: Record<string, unknown>): string {
  return `#${show(deployment.id)} of ${shortSha(deployment.sha)} (${show(deployment.ref)}) to ${show(asRecord(deployment.environment).name)}, ${show(deployment.status)}`;
}

/**
 * Approve and Reject for a deployment that waits for approvals (none for any other): the steps a chat shows under
 * it, and what a Slack message about a blocked deployment puts on its buttons.
 */
export function deploymentApprovalActions(projectId: unknown, deployment: Record<string, unknown>): FollowUp[] {
  if (deployment.status !== 'blocked') return [];
  const input = { id: projectId, deployment_id: deployment.id };
  return [
    {
      label: 'Approve',
      operation: 'approve_deployment',
      input: { ...input, status: 'approved' },
      style: 'primary',
    },
    { label: 'Reject', operation: 'approve_deployment', input: { ...input, status: 'rejected' }, style: 'danger' },
  ];
}

function presentDeployment(data: unknown, input: { id: string | number }): Presentation {
  const deployment = asRecord(data);
  const job = asRecord(deployment.deployable);
  const pending = Number(deployment.pending_approval_count ?? 0);
  return {
    title: `Deployment #${show(deployment.id)} to ${show(asRecord(deployment.environment).name)}: ${show(deployment.status)}`,
    fields: [
      ['commit', `${shortSha(deployment.sha)} ${show(asRecord(job.commit).title)}`],
      ['ref', show(deployment.ref)],
      ['by', show(asRecord(deployment.user).username)],
      ['job', `#${show(job.id)} ${show(job.name)}: ${show(job.status)}`],
      ...(pending > 0 ? [['waiting for', `${pending} approval${pending === 1 ? '' : 's'}`] as [string, string]] : []),
    ],
    actions: deploymentApprovalActions(input.id, deployment),
  };
}

/** The deployment an approval is about, read so that the human who confirms sees what it lets run. */
async function readDeployment(
  ctx: RunContext,
  input: { id: string | number; deployment_id: number },
): Promise<Record<string, unknown>> {
  return asRecord(await serviceGet(ctx, buildPath('/projects/:id/deployments/:deployment_id', input)));
}

const deploymentsOperations = [
  defineOperation({
    name: 'list_deployments',
    chat: 'deployment list',
    area: 'deployments',
    outsideSpec: 'Deployments API: List project deployments',
    title: 'List deployments',
    description:
      "List a project's deployments (oldest first unless sort=desc); filter by environment, status or update time.",
    route: 'GET /projects/:id/deployments',
    input: z.object({
      id: fields.projectId(),
      environment: z.string().min(1).optional().describe('Environment name.'),
      status: z.enum(DEPLOYMENT_STATUSES).optional(),
      updated_after: fields.dateTime().optional(),
      updated_before: fields.dateTime().optional(),
      order_by: z
        .enum(['id', 'iid', 'created_at', 'updated_at', 'finished_at', 'ref'])
        .optional()
        .describe('Default id.'),
      sort: z.enum(['asc', 'desc']).optional().describe('Default asc.'),
    }),
    effect: 'read',
    pagination: 'offset',
    present: presentList('deployment', (d) => [
      `#${show(d.id)} ${show(asRecord(d.environment).name)}`,
      `${show(d.status)} · ${shortSha(d.sha)} (${show(d.ref)}) · ${show(asRecord(d.user).username)}`,
    ]),
    rowActions: (item, input) => deploymentApprovalActions(input.id, item),
    examples: [{ input: { id: 'acme/web' } }],
  }),
  defineOperation({
    name: 'get_deployment',
    chat: 'deployment get',
    area: 'deployments',
    outsideSpec: 'Deployments API: Get a specific deployment',
    title: 'Get deployment',
    description: 'Read one deployment: commit, environment, status, its deploy job and approvals.',
    route: 'GET /projects/:id/deployments/:deployment_id',
    input: z.object({ id: fields.projectId(), deployment_id: deploymentId() }),
    effect: 'read',
    present: presentDeployment,
    examples: [{ input: { id: 'acme/web', deployment_id: demoLookup('/projects/:id/deployments') } }],
  }),
  defineOperation({
    name: 'approve_deployment',
    chat: 'deployment approve',
    area: 'deployments',
    outsideSpec: 'Deployments API: Approve or reject a blocked deployment',
    title: 'Approve or reject deployment',
    description:
      'Approve (status approved) or reject (status rejected) a deployment blocked on a protected environment; once approved enough, its deploy job runs.',
    route: 'POST /projects/:id/deployments/:deployment_id/approval',
    input: z.object({
      id: fields.projectId(),
      deployment_id: deploymentId(),
      status: z.enum(['approved', 'rejected']),
      comment: z.string().min(1).optional(),
      represented_as: z
        .string()
        .min(1)
        .optional()
        .describe('The user, group or role to approve as, when the approver is in several approval rules.'),
    }),
    effect: 'write',
    undo: 'An approval cannot be taken back: with the last one needed the deploy job starts (what it deploys is undone by a rollback); a rejection fails the job, and only a new deployment tries again.',
    facts: {
      what: 'the deployment: its commit and environment',
      read: readDeployment,
      // Only a blocked deployment takes an answer: asking about another would only end in the service's 400.
      refuse: (input, deployment) =>
        deployment.status === undefined || deployment.status === 'blocked'
          ? undefined
          : `Deployment #${input.deployment_id} of ${shortSha(deployment.sha)} to ${show(asRecord(deployment.environment).name)} is not waiting for approvals (its status is ${show(deployment.status)}); nothing was sent.`,
    },
    alwaysAsks: true,
    needsApproval: (input, deployment) => {
      const what = deployment ? `deployment ${deploymentWords(deployment)}` : `deployment #${input.deployment_id}`;
      return input.status === 'approved'
        ? `It approves ${what}: with the approvals it needs, its deploy job starts.`
        : `It rejects ${what}: its deploy job fails and the commit is not deployed.`;
    },
    present: (data, input) => {
      const approval = asRecord(data);
      return {
        title: `Deployment #${input.deployment_id} ${show(approval.status)} by ${show(asRecord(approval.user).username)}`,
        fields: approval.comment ? [['comment', show(approval.comment)]] : [],
      };
    },
    // An approval may start a production deploy; a rejection fails it: either way a person decides.
    decisions: {
      runs: [],
      asks: [
        { id: 'acme/web', deployment_id: 1, status: 'approved' },
        { id: 'acme/web', deployment_id: 1, status: 'rejected' },
      ],
    },
  }),
];

export const area = defineArea({
  name: 'deployments',
  operations: deploymentsOperations,
  // Beyond the spec: what python-gitlab and gitbeaker (test/interop/) do not drive yet; each drives all of it today.
  interop: { notYetDriven: { pythonGitlab: [], gitbeaker: [] } },
});
