// Merge requests area: list merge requests across the instance, a group (with its subgroups) or one project.
import { z } from 'zod';
import { defineOperation, fields } from './define.js';
import { noneAny, presentWorkItems, searchIn, workItemFilters } from './work-items.js';

// All of the given users must match, or None / Any; the spec's limit of 5 IDs is approved_by_ids's alone.
const userIds = () => z.union([z.array(z.number().int()), noneAny()]);

const mergeRequestFilters = {
  state: z.enum(['opened', 'closed', 'locked', 'merged', 'all']).optional(),
  ...workItemFilters,
  order_by: z.enum(['created_at', 'updated_at']).optional(),
  view: z.enum(['simple']).optional().describe('Fewer fields.'),
  approver_ids: userIds().optional().describe('Higher tier.'),
  approved_by_ids: z
    .union([z.array(z.number().int()).max(5), noneAny()])
    .optional()
    .describe('Higher tier.'),
  source_branch: z.string().optional(),
  target_branch: z.string().optional(),
  wip: z.enum(['yes', 'no']).optional().describe('Drafts.'),
};

const present = presentWorkItems('merge request', '!');

export const mergeRequestsOperations = [
  defineOperation({
    name: 'list_merge_requests',
    chat: 'mr list-all',
    area: 'merge_requests',
    title: 'List merge requests everywhere',
    description: 'List merge requests across all projects you can see; only those you created unless scope=all.',
    route: 'GET /merge_requests',
    input: z.object({
      ...mergeRequestFilters,
      in: searchIn(),
    }),
    effect: 'read',
    pagination: 'offset',
    present,
  }),
  defineOperation({
    name: 'list_group_merge_requests',
    chat: 'mr list-group',
    area: 'merge_requests',
    title: 'List group merge requests',
    description: "List the merge requests of a group's projects, subgroups included.",
    route: 'GET /groups/:id/merge_requests',
    input: z.object({ id: fields.groupId(), ...mergeRequestFilters }),
    effect: 'read',
    pagination: 'offset',
    present,
  }),
  defineOperation({
    name: 'list_project_merge_requests',
    chat: 'mr list',
    area: 'merge_requests',
    title: 'List project merge requests',
    description: "List a project's merge requests, newest first, filtered by state, branches, labels, people or dates.",
    route: 'GET /projects/:id/merge_requests',
    input: z.object({
      id: fields.projectId(),
      ...mergeRequestFilters,
      iids: z.array(z.number().int()).optional(),
    }),
    effect: 'read',
    pagination: 'offset',
    present,
  }),
];
