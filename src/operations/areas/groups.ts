// Groups area: list groups and subgroups, a group's projects, one group's details, and create a group.
import { z } from 'zod';
import { defineOperation, fields, defineArea } from '../engine/define.js';
import { presentList, show } from '../engine/present.js';
import { accessLevel, projectFilters } from './shared/project-filters.js';

const VISIBILITY = ['private', 'internal', 'public'] as const;

/** Filters of the group list and the subgroup list (the spec gives them one parameter set). */
const groupFilters = {
  skip_groups: z.array(z.number().int()).optional(),
  all_available: z.boolean().optional().describe('Every group you can see, not only yours.'),
  search: z.string().optional().describe('In name or path.'),
  order_by: z.enum(['name', 'path', 'id']).optional(),
  sort: z.enum(['asc', 'desc']).optional(),
  statistics: z.boolean().optional().describe('Administrators.'),
  with_custom_attributes: z.boolean().optional().describe('Administrators.'),
  owned: z.boolean().optional(),
  min_access_level: accessLevel().optional(),
  custom_attributes: z.record(z.string(), z.string()).optional().describe('Administrators.'),
};

const presentGroups = presentList('group', (g) => [show(g.full_path), [show(g.name), show(g.visibility)].join(' · ')]);

const groupsOperations = [
  defineOperation({
    name: 'list_groups',
    chat: 'group list',
    area: 'groups',
    title: 'List groups',
    description: 'List the groups you belong to, or with all_available every group you can see.',
    route: 'GET /groups',
    input: z.object(groupFilters),
    effect: 'read',
    pagination: 'offset',
    present: presentGroups,
    examples: [{ input: { statistics: true } }],
  }),
  defineOperation({
    name: 'list_subgroups',
    chat: 'group subgroups',
    area: 'groups',
    title: 'List subgroups',
    description: 'List the direct subgroups of a group that you can see.',
    route: 'GET /groups/:id/subgroups',
    input: z.object({ id: fields.groupId(), ...groupFilters }),
    effect: 'read',
    pagination: 'offset',
    present: presentGroups,
    examples: [{ input: { id: 'acme' } }],
  }),
  defineOperation({
    name: 'list_group_projects',
    chat: 'group projects',
    area: 'groups',
    title: 'List group projects',
    description: "List a group's projects, newest first; with include_subgroups its subgroups' too.",
    route: 'GET /groups/:id/projects',
    input: z.object({
      id: fields.groupId(),
      ...projectFilters,
      with_shared: z.boolean().optional().describe('Default true: with projects shared with it.'),
      include_subgroups: z.boolean().optional(),
      with_security_reports: z.boolean().optional().describe('Higher tier.'),
    }),
    effect: 'read',
    pagination: 'offset',
    present: presentList('project', (p) => [show(p.path_with_namespace), show(p.description)]),
    examples: [{ input: { id: 'acme' } }],
  }),
  defineOperation({
    name: 'get_group',
    chat: 'group get',
    area: 'groups',
    title: 'Get group',
    description: "Read a group's settings and up to 100 of its projects and 100 shared with it.",
    route: 'GET /groups/:id',
    input: z.object({
      id: fields.groupId(),
      with_custom_attributes: z.boolean().optional().describe('Administrators.'),
      with_projects: z.boolean().optional().describe('Default true.'),
    }),
    effect: 'read',
    examples: [{ input: { id: 'acme' } }],
  }),
  defineOperation({
    name: 'create_group',
    chat: 'group create',
    area: 'groups',
    title: 'Create group',
    description: 'Create a top-level group; you become its owner.',
    route: 'POST /groups',
    input: z.object({
      name: z.string().min(1),
      path: z.string().min(1).describe('URL path, e.g. "platform-team".'),
      description: z.string().optional(),
      visibility: z.enum(VISIBILITY).optional().describe('Default private.'),
      share_with_group_lock: z.boolean().optional().describe('Forbid sharing its projects with other groups.'),
      require_two_factor_authentication: z.boolean().optional(),
      two_factor_grace_period: z.number().int().optional().describe('Hours.'),
      project_creation_level: z
        .enum(['noone', 'maintainer', 'developer'])
        .optional()
        .describe('Who may create projects.'),
      auto_devops_enabled: z.boolean().optional(),
    }),
    effect: 'write',
    undo: "Adds a new, empty group and replaces nothing; an owner deletes it again in the service's web interface.",
    decisions: { runs: [{ name: 'Lab', path: 'lab', visibility: 'private' }], asks: [] },
  }),
];

export const area = defineArea({ name: 'groups', operations: groupsOperations });
