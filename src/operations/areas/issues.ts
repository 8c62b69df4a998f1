// Issues area: list issues across the instance, a group (with its subgroups) or one project, with every filter.
import { z } from 'zod';
import { defineOperation, fields, defineArea, casesOn } from '../engine/define.js';
import { noneAny, presentWorkItems, searchIn, workItemFilters } from './shared/work-items.js';
import { exposureFacts, exposureReason, reasons } from './shared/exposure.js';
import {
  iid,
  ids,
  labels,
  noteOperations,
  overwrites,
  presentWorkItem,
  textChanges,
  tracedChanges,
} from './shared/work-item-writes.js';

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

const issuesOperations = [
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
    examples: [{ input: { scope: 'all' } }],
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
    examples: [{ input: { id: 'acme' } }],
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
    examples: [{ input: { id: 'acme/web' } }],
  }),
];

// Beyond the spec (the service's Issues and Notes APIs, v4): one issue, opening and updating it, and its comments.
const issueInput = z.object({ id: fields.projectId(), issue_iid: iid() });

const issueChangeOperations = [
  defineOperation({
    name: 'get_issue',
    chat: 'issue get',
    area: 'issues',
    outsideSpec: 'Issues API: Single project issue',
    title: 'Get issue',
    description: 'Read one issue: state, labels, people, description.',
    route: 'GET /projects/:id/issues/:issue_iid',
    input: issueInput,
    effect: 'read',
    present: presentWorkItem('Issue'),
    examples: [{ input: { id: 'acme/web', issue_iid: 1 } }],
  }),
  defineOperation({
    name: 'create_issue',
    chat: 'issue create',
    area: 'issues',
    outsideSpec: 'Issues API: New issue',
    title: 'Create issue',
    description: 'Open an issue (an incident, with issue_type incident), with labels and assignees.',
    route: 'POST /projects/:id/issues',
    input: z.object({
      id: fields.projectId(),
      title: z.string().min(1),
      description: z.string().optional(),
      labels: labels(),
      assignee_ids: ids(),
      confidential: z.boolean().optional(),
      issue_type: z.enum(['issue', 'incident', 'test_case', 'task']).optional(),
      due_date: z
        .string()
        .regex(/^\d{4}-\d{2}-\d{2}$/, 'YYYY-MM-DD')
        .optional(),
    }),
    effect: 'write',
    undo: 'Opens a new issue and changes nothing else; update_issue with state_event close closes it.',
    present: presentWorkItem('Issue'),
    decisions: {
      runs: [{ id: 'acme/web', title: 'main is red', issue_type: 'incident', labels: 'incident' }],
      asks: [],
    },
  }),
  defineOperation({
    name: 'update_issue',
    chat: 'issue update',
    area: 'issues',
    outsideSpec: 'Issues API: Edit an issue',
    title: 'Update issue',
    description: 'Change an issue: close or reopen, labels, assignees, title or description.',
    route: 'PUT /projects/:id/issues/:issue_iid',
    input: issueInput.extend({
      ...textChanges(),
      ...tracedChanges(),
      confidential: z.boolean().optional(),
      due_date: z
        .string()
        .regex(/^\d{4}-\d{2}-\d{2}$/, 'YYYY-MM-DD')
        .optional(),
    }),
    effect: 'write',
    undo:
      'Close and reopen undo each other, and label and people changes leave system notes; a new title or description replaces one kept nowhere, ' +
      'and making a confidential issue public lets everyone who sees the project read it at once, so those ask a human.',
    facts: exposureFacts('issue', '/projects/:id/issues/:issue_iid'),
    needsApproval: (input, now) =>
      reasons(exposureReason('issue', input, now), overwrites(input, ['title', 'description'], 'issue')),
    present: presentWorkItem('Issue'),
    decisions: casesOn(
      { id: 'acme/web', issue_iid: 1 },
      {
        runs: [{ state_event: 'close' }, { remove_labels: 'incident' }],
        asks: [{ title: 'New' }, { description: 'x' }],
      },
    ),
  }),
  ...noteOperations({
    name: 'issue',
    chat: 'issue',
    noun: 'issue',
    aNoun: 'an issue',
    area: 'issues',
    itemRoute: '/projects/:id/issues/:issue_iid',
    input: issueInput,
    outsideSpec: { list: 'List project issue notes', comment: 'Create new issue note' },
    listExample: { id: 'acme/web', issue_iid: 1 },
    commentCase: { id: 'acme/web', issue_iid: 1, body: 'Retried; green again.' },
  }),
];

export const area = defineArea({
  name: 'issues',
  operations: [...issuesOperations, ...issueChangeOperations],
  // Beyond the spec: what python-gitlab and gitbeaker (test/interop/) do not drive yet; each drives all of it today.
  interop: { notYetDriven: { pythonGitlab: [], gitbeaker: [] } },
});
