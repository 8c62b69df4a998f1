// Projects area: find projects — every project visible to the caller, or those of one user — with the spec's
// filters, every order, and offset pages (keyset on request, the way past 10,000 projects); and read one project.
import { z } from 'zod';
import { defineOperation, fields, defineArea } from '../engine/define.js';
import { asRecord, presentList, show } from '../engine/present.js';
import { flag, projectFilters } from './shared/project-filters.js';

/** What the instance and user lists add. */
const listFilters = {
  ...projectFilters,
  membership: flag(),
  statistics: flag(),
  with_programming_language: z.string().optional(),
  id_after: z.number().int().optional(),
  id_before: z.number().int().optional(),
  custom_attributes: z.record(z.string(), z.string()).optional().describe('Administrators.'),
  // Offset pages stop at 10,000 projects; keyset pages (order_by=id only) go on.
  pagination: z.literal('keyset').optional().describe('Needed past 10,000 projects; only with order_by=id.'),
};

const presentProjects = presentList('project', (p) => [show(p.path_with_namespace), show(p.description)]);

const projectsOperations = [
  defineOperation({
    name: 'list_projects',
    chat: 'project list',
    area: 'projects',
    title: 'List projects',
    description: "List the projects visible to you, newest first; use it to find a project's ID or full path.",
    route: 'GET /projects',
    input: z.object({
      ...listFilters,
      wiki_checksum_failed: flag('Higher tier.'),
      repository_checksum_failed: flag('Higher tier.'),
    }),
    effect: 'read',
    pagination: 'offset',
    present: presentProjects,
    examples: [{ input: { statistics: true } }],
  }),
  defineOperation({
    name: 'list_user_projects',
    chat: 'project list-user',
    area: 'projects',
    title: 'List user projects',
    description: "List the projects in one user's personal namespace that you can see.",
    route: 'GET /users/:user_id/projects',
    input: z.object({
      user_id: z.union([z.number().int().positive(), z.string().min(1)]).describe('User ID or username.'),
      ...listFilters,
    }),
    effect: 'read',
    pagination: 'offset',
    present: presentProjects,
    examples: [{ input: { user_id: '@alice' } }],
  }),
];

/** Beyond the spec (the service's Projects API, v4): one project, which on-call work reads first. */
const projectReadOperations = [
  defineOperation({
    name: 'get_project',
    chat: 'project get',
    area: 'projects',
    outsideSpec: 'Projects API: Get a single project',
    title: 'Get project',
    description: 'Read one project: default branch, visibility, URLs, and your access.',
    route: 'GET /projects/:id',
    input: z.object({
      id: fields.projectId(),
      statistics: z.boolean().optional().describe('Add storage and commit counts.'),
      license: z.boolean().optional(),
    }),
    effect: 'read',
    present: (data) => {
      const project = asRecord(data);
      return {
        title: `${show(project.path_with_namespace)}`,
        fields: [
          ['default branch', show(project.default_branch)],
          ['visibility', show(project.visibility)],
          ['url', show(project.web_url)],
        ],
      };
    },
    examples: [{ input: { id: 'acme/web', statistics: true, license: true } }],
  }),
];

export const area = defineArea({
  name: 'projects',
  operations: [...projectsOperations, ...projectReadOperations],
  // Beyond the spec: what python-gitlab and gitbeaker (test/interop/) do not drive yet; each drives all of it today.
  interop: { notYetDriven: { pythonGitlab: [], gitbeaker: [] } },
});
