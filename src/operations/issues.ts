// Issues area: list issues across the instance, a group (with its subgroups) or one project, with every filter.
import { z } from 'zod';
import { defineOperation, fields } from './define.js';
import { noneAny, presentWorkItems, searchIn, workItemFilters } from './work-items.js';

const NEGATABLE = [
  'labels',
  'milestone',
  'author_id',
  'author_username',
  'assignee_id',
  'assignee_username',
  'my_reaction_emoji',
  'search',
  'in',
] as const;

const issueFilters = {
  state: z.enum(['opened', 'closed']).optional(),
  ...workItemFilters,
  author_username: z.string().optional().describe('Not with author_id.'),
  assignee_username: z.array(z.string()).optional().describe('One username; not with assignee_id.'),
  weight: z.union([z.number().int(), noneAny()]).optional().describe('Higher tier.'),
  iids: z.array(z.number().int()).optional(),
  in: searchIn(),
  confidential: z.boolean().optional(),
  order_by: z
    .enum([
      'created_at',
      'updated_at',
      'priority',
      'due_date',
      'relative_position',
      'label_priority',
      'milestone_due',
      'popularity',
      'weight',
    ])
    .optional(),
  not: z.partialRecord(z.enum(NEGATABLE), z.string()).optional().describe('Exclude, e.g. {"labels":"bug,ux"}.'),
};

const present = presentWorkItems('issue', '#');

/** The spec: author_id and author_username are mutually exclusive, and so are assignee_id and assignee_username. */
const rules = [
  { kind: 'at_most_one', keys: ['author_id', 'author_username'] },
  { kind: 'at_most_one', keys: ['assignee_id', 'assignee_username'] },
] as const;

export const issuesOperations = [
  defineOperation({
    name: 'list_issues',
    chat: 'issue list-all',
    area: 'issues',
    title: 'List issues everywhere',
    description: 'List issues across all projects you can see; only those you created unless scope=all.',
    route: 'GET /issues',
    input: z.object(issueFilters),
    effect: 'read',
    rules,
    pagination: 'offset',
    present,
  }),
  defineOperation({
    name: 'list_group_issues',
    chat: 'issue list-group',
    area: 'issues',
    title: 'List group issues',
    description: "List the issues of a group's projects, subgroups included.",
    route: 'GET /groups/:id/issues',
    input: z.object({
      id: fields.groupId(),
      ...issueFilters,
      non_archived: z.boolean().optional().describe('Default true.'),
    }),
    effect: 'read',
    rules,
    pagination: 'offset',
    present,
  }),
  defineOperation({
    name: 'list_project_issues',
    chat: 'issue list',
    area: 'issues',
    title: 'List project issues',
    description: "List a project's issues, newest first, filtered by state, labels, people, dates or text.",
    route: 'GET /projects/:id/issues',
    input: z.object({ id: fields.projectId(), ...issueFilters }),
    effect: 'read',
    rules,
    pagination: 'offset',
    present,
  }),
];
