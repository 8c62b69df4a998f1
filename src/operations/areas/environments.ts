// Environments area (beyond the spec; the service's Environments API, v4): where a project deploys (staging,
// production, review apps), what each runs now (last_deployment), and stopping one.
import { z } from 'zod';
import { defineOperation, fields, defineArea, demoLookup } from '../engine/define.js';
import type { FollowUp, Presentation } from '../engine/define.js';
import { asRecord, presentList, shortSha, show } from '../engine/present.js';

export const ENVIRONMENT_STATES = ['available', 'stopping', 'stopped'] as const;

const environmentId = () => z.number().int().positive();

/** What an environment runs now, in words: the commit and ref of its last successful deployment. */
export function runningNow(environment: Record<string, unknown>): string {
  const last = asRecord(environment.last_deployment);
  if (last.id === undefined) return 'nothing deployed yet';
  return `${shortSha(last.sha)} (${show(last.ref)}), deployment #${show(last.id)} by ${show(asRecord(last.user).username)}`;
}

function environmentActions(projectId: unknown, environment: Record<string, unknown>): FollowUp[] {
  if (environment.state !== 'available') return [];
  const target = { id: projectId, environment: environment.name };
  return [
    {
      label: 'Deployments',
      operation: 'list_deployments',
      input: { id: projectId, environment: environment.name, sort: 'desc' },
    },
    { label: 'Roll back', operation: 'rollback_environment', input: target, style: 'danger' },
  ];
}

function presentEnvironment(data: unknown, input: { id: string | number }): Presentation {
  const environment = asRecord(data);
  return {
    title: `Environment ${show(environment.name)}: ${show(environment.state)}`,
    fields: [
      ['tier', show(environment.tier)],
      ['url', show(environment.external_url)],
      ['running', runningNow(environment)],
    ],
    actions: environmentActions(input.id, environment),
  };
}

const environmentsOperations = [
  defineOperation({
    name: 'list_environments',
    chat: 'environment list',
    area: 'environments',
    outsideSpec: 'Environments API: List environments',
    title: 'List environments',
    description: "List a project's environments (staging, production, review apps); filter by name, search or state.",
    route: 'GET /projects/:id/environments',
    input: z.object({
      id: fields.projectId(),
      name: z.string().min(1).optional().describe('Exact name; not with search.'),
      search: z.string().min(3).optional().describe('Part of the name, 3 characters or more; not with name.'),
      states: z.enum(ENVIRONMENT_STATES).optional(),
    }),
    effect: 'read',
    pagination: 'offset',
    present: presentList('environment', (e) => [
      `#${show(e.id)} ${show(e.name)}`,
      `${show(e.state)} · ${show(e.tier)}${e.external_url ? ` · ${show(e.external_url)}` : ''}`,
    ]),
    examples: [{ input: { id: 'acme/web' } }],
  }),
  defineOperation({
    name: 'get_environment',
    chat: 'environment get',
    area: 'environments',
    outsideSpec: 'Environments API: Get a specific environment',
    title: 'Get environment',
    description: 'Read one environment with its last successful deployment: which commit it runs now.',
    route: 'GET /projects/:id/environments/:environment_id',
    input: z.object({ id: fields.projectId(), environment_id: environmentId() }),
    effect: 'read',
    present: presentEnvironment,
    examples: [{ input: { id: 'acme/web', environment_id: demoLookup('/projects/:id/environments') } }],
  }),
  defineOperation({
    name: 'stop_environment',
    chat: 'environment stop',
    area: 'environments',
    outsideSpec: 'Environments API: Stop an environment',
    title: 'Stop environment',
    description: 'Stop an environment: its on_stop job, if any, takes it down (force: stop without running that job).',
    route: 'POST /projects/:id/environments/:environment_id/stop',
    input: z.object({
      id: fields.projectId(),
      environment_id: environmentId(),
      force: z.boolean().optional().describe('Stop without running its on_stop job.'),
    }),
    effect: 'write',
    undo: 'A stopped environment serves nothing until the next deployment to it starts it again (its on_stop job may have torn it down).',
    alwaysAsks: true,
    needsApproval: (input) =>
      input.force
        ? 'It stops the environment without running its on_stop job: what runs there is left as it is but no longer tracked, until the next deployment.'
        : 'It stops the environment: its on_stop job takes down what runs there, until the next deployment.',
    present: presentEnvironment,
    // Stopping takes down what runs there (its on_stop job), forced or not.
    decisions: {
      runs: [],
      asks: [
        { id: 'acme/web', environment_id: 1 },
        { id: 'acme/web', environment_id: 1, force: true },
      ],
    },
  }),
];

export const area = defineArea({
  name: 'environments',
  operations: environmentsOperations,
  // Beyond the spec: what python-gitlab and gitbeaker (test/interop/) do not drive yet; each drives all of it today.
  interop: { notYetDriven: { pythonGitlab: [], gitbeaker: [] } },
});
