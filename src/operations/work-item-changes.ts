// Beyond the spec (the service's Merge requests, Issues and Notes APIs, v4): what on-call work needs on top of the
// spec's lists — one issue or merge request, opening, updating, merging and approving them, and comments (notes) on
// both.
import { z } from 'zod';
import { defineOperation, fields } from './define.js';
import type { EffectFacts, Presentation } from './define.js';
import { buildPath } from '../http/route.js';
import { serviceGet } from './effect-facts.js';
import { exposureFacts, exposureReason, reasons } from './exposure.js';
import { asRecord, presentList, shortSha, show } from './present.js';

const iid = () => z.number().int().positive();
const ids = () => z.array(z.number().int().positive()).optional();
const labels = () => z.string().optional().describe('Comma-separated; replaces all labels.');
const labelChanges = {
  add_labels: z.string().optional().describe('Comma-separated.'),
  remove_labels: z.string().optional().describe('Comma-separated.'),
};
const stateEvent = () => z.enum(['close', 'reopen']).optional();

const mrInput = z.object({ id: fields.projectId(), merge_request_iid: iid() });
const issueInput = z.object({ id: fields.projectId(), issue_iid: iid() });

/** The fields an update overwrites with no history of the old text: those ask a human first. */
function overwrites(input: Record<string, unknown>, keys: readonly string[], what: string): string | undefined {
  const set = keys.filter((key) => input[key] !== undefined);
  return set.length > 0
    ? `It overwrites the ${what}'s ${set.join(', ')}; the current text is kept nowhere (read it first if it may be needed).`
    : undefined;
}

function presentWorkItem(kind: string) {
  return (data: unknown): Presentation => {
    const item = asRecord(data);
    const people = (list: unknown) =>
      Array.isArray(list) && list.length > 0 ? list.map((p) => `@${show(asRecord(p).username)}`).join(', ') : '—';
    return {
      title: `${kind} !${show(item.iid)}: ${show(item.title)} (${show(item.state)})`.replace(/^Issue !/, 'Issue #'),
      fields: [
        ...(item.source_branch !== undefined
          ? [['branches', `${show(item.source_branch)} → ${show(item.target_branch)}`] as [string, string]]
          : []),
        ['author', `@${show(asRecord(item.author).username)}`],
        ['assignees', people(item.assignees)],
        ['labels', Array.isArray(item.labels) && item.labels.length > 0 ? item.labels.join(', ') : '—'],
        ...(item.sha !== undefined ? [['head', shortSha(item.sha)] as [string, string]] : []),
        ...(item.merge_status !== undefined
          ? [['mergeable', show(item.detailed_merge_status ?? item.merge_status)] as [string, string]]
          : []),
      ],
    };
  };
}

const noteRow = (note: Record<string, unknown>): [string, string] => [
  `@${show(asRecord(note.author).username)} ${show(note.created_at)}`,
  show(note.body).split('\n')[0],
];

/**
 * A merge or an approval acts on the merge request's head as shown: without a sha it would act on whatever the head
 * is when it runs, and the service compares a given sha whole, so a short one would always be refused. The head is
 * read before asking and the full sha sent; a short sha that is not the head's start is sent as given, and the
 * service's own 409 says the branch moved.
 */
function pinnedToHead<I extends { id: unknown; merge_request_iid: unknown; sha?: string }>(): EffectFacts<
  I,
  { sha: string }
> {
  return {
    what: "the merge request's head commit",
    needed: (input) => input.sha === undefined || input.sha.length < 40,
    read: async (ctx, input) => {
      const mr = asRecord(await serviceGet(ctx, buildPath('/projects/:id/merge_requests/:merge_request_iid', input)));
      if (typeof mr.sha !== 'string') throw new Error("the service did not say the merge request's head");
      return { sha: mr.sha };
    },
    pin: (input, head) => ({ sha: input.sha === undefined || head.sha.startsWith(input.sha) ? head.sha : input.sha }),
  };
}

export const mergeRequestChangeOperations = [
  defineOperation({
    name: 'get_merge_request',
    chat: 'mr get',
    area: 'merge_requests',
    outsideSpec: 'Merge requests API: Get single MR',
    title: 'Get merge request',
    description: 'Read one merge request: branches, state, head SHA, mergeability, pipeline, people.',
    route: 'GET /projects/:id/merge_requests/:merge_request_iid',
    input: mrInput,
    effect: 'read',
    present: presentWorkItem('Merge request'),
  }),
  defineOperation({
    name: 'create_merge_request',
    chat: 'mr create',
    area: 'merge_requests',
    outsideSpec: 'Merge requests API: Create MR',
    title: 'Create merge request',
    description: 'Open a merge request from a source branch into a target branch.',
    route: 'POST /projects/:id/merge_requests',
    input: z.object({
      id: fields.projectId(),
      source_branch: z.string().min(1),
      target_branch: z.string().min(1),
      title: z.string().min(1),
      description: z.string().optional(),
      assignee_ids: ids(),
      reviewer_ids: ids(),
      labels: labels(),
      remove_source_branch: z.boolean().optional(),
      squash: z.boolean().optional(),
    }),
    effect: 'write',
    undo: 'Opens a new merge request and changes no branch; update_merge_request with state_event close closes it.',
    present: presentWorkItem('Merge request'),
  }),
  defineOperation({
    name: 'update_merge_request',
    chat: 'mr update',
    area: 'merge_requests',
    outsideSpec: 'Merge requests API: Update MR',
    title: 'Update merge request',
    description: 'Change a merge request: close or reopen, labels, people, title, description or target branch.',
    route: 'PUT /projects/:id/merge_requests/:merge_request_iid',
    input: mrInput.extend({
      title: z.string().min(1).optional(),
      description: z.string().optional(),
      target_branch: z.string().min(1).optional(),
      state_event: stateEvent(),
      labels: labels(),
      ...labelChanges,
      assignee_ids: ids(),
      reviewer_ids: ids(),
      remove_source_branch: z.boolean().optional(),
      squash: z.boolean().optional(),
    }),
    effect: 'write',
    undo: 'Close and reopen undo each other, and label and people changes leave system notes; a new title, description or target branch replaces one kept nowhere, so those ask a human.',
    confirm: (input) => overwrites(input, ['title', 'description', 'target_branch'], 'merge request'),
    present: presentWorkItem('Merge request'),
  }),
  defineOperation({
    name: 'merge_merge_request',
    chat: 'mr merge',
    area: 'merge_requests',
    outsideSpec: 'Merge requests API: Merge a merge request',
    title: 'Merge merge request',
    description: 'Merge a merge request, only if its head is still the sha given or shown (what you reviewed).',
    route: 'PUT /projects/:id/merge_requests/:merge_request_iid/merge',
    input: mrInput.extend({
      sha: z
        .string()
        .regex(/^[0-9a-f]{7,64}$/, 'a commit SHA (hex)')
        .optional()
        .describe('The head SHA you reviewed (default: the head shown in the confirmation).'),
      squash: z.boolean().optional(),
      should_remove_source_branch: z.boolean().optional(),
      merge_commit_message: z.string().optional(),
      squash_commit_message: z.string().optional(),
      merge_when_pipeline_succeeds: z.boolean().optional().describe('Merge once the pipeline passes.'),
    }),
    effect: 'write',
    undo: 'The target branch gains the changes at once (and deploys may follow); only a revert commit takes them back, so a human approves the exact head SHA merged.',
    facts: pinnedToHead(),
    confirm: (input) =>
      `It merges into the target branch the head ${input.sha === undefined ? 'as it is now' : input.sha.slice(0, 8)} exactly; a revert commit is the only way back.`,
    present: presentWorkItem('Merge request'),
  }),
  defineOperation({
    name: 'approve_merge_request',
    chat: 'mr approve',
    area: 'merge_requests',
    outsideSpec: 'Merge request approvals API: Approve merge request',
    title: 'Approve merge request',
    description: 'Approve a merge request as you; with sha, only if its head is still that commit.',
    route: 'POST /projects/:id/merge_requests/:merge_request_iid/approve',
    input: mrInput.extend({
      sha: z
        .string()
        .regex(/^[0-9a-f]{7,64}$/, 'a commit SHA (hex)')
        .optional()
        .describe('The head SHA you reviewed.'),
    }),
    effect: 'write',
    undo: "An approval says a person reviewed the change, and may let it merge; it is signed with your name, so a human approves it; the service's unapprove withdraws it.",
    facts: pinnedToHead(),
    confirm: (input) =>
      `It records your approval of this merge request at head ${input.sha === undefined ? 'now' : input.sha.slice(0, 8)}, under your name ` +
      '(the service refuses it if the branch has moved since); approvals can let it be merged.',
  }),
  defineOperation({
    name: 'list_merge_request_notes',
    chat: 'mr notes',
    area: 'merge_requests',
    outsideSpec: 'Notes API: List all merge request notes',
    title: 'List merge request comments',
    description: "List a merge request's comments and system notes, newest first.",
    route: 'GET /projects/:id/merge_requests/:merge_request_iid/notes',
    input: mrInput.extend({
      sort: z.enum(['asc', 'desc']).optional(),
      order_by: z.enum(['created_at', 'updated_at']).optional(),
    }),
    effect: 'read',
    pagination: 'offset',
    present: presentList('comment', noteRow),
  }),
  defineOperation({
    name: 'comment_on_merge_request',
    chat: 'mr comment',
    area: 'merge_requests',
    outsideSpec: 'Notes API: Create new merge request note',
    title: 'Comment on merge request',
    description: 'Add a comment (a note) to a merge request, as you.',
    route: 'POST /projects/:id/merge_requests/:merge_request_iid/notes',
    input: mrInput.extend({ body: z.string().min(1) }),
    effect: 'write',
    undo: 'Adds a comment and replaces nothing; its author can delete it.',
  }),
];

export const issueChangeOperations = [
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
      title: z.string().min(1).optional(),
      description: z.string().optional(),
      state_event: stateEvent(),
      labels: labels(),
      ...labelChanges,
      assignee_ids: ids(),
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
    confirm: (input, now) =>
      reasons(exposureReason('issue', input, now), overwrites(input, ['title', 'description'], 'issue')),
    present: presentWorkItem('Issue'),
  }),
  defineOperation({
    name: 'list_issue_notes',
    chat: 'issue notes',
    area: 'issues',
    outsideSpec: 'Notes API: List project issue notes',
    title: 'List issue comments',
    description: "List an issue's comments and system notes, newest first.",
    route: 'GET /projects/:id/issues/:issue_iid/notes',
    input: issueInput.extend({
      sort: z.enum(['asc', 'desc']).optional(),
      order_by: z.enum(['created_at', 'updated_at']).optional(),
    }),
    effect: 'read',
    pagination: 'offset',
    present: presentList('comment', noteRow),
  }),
  defineOperation({
    name: 'comment_on_issue',
    chat: 'issue comment',
    area: 'issues',
    outsideSpec: 'Notes API: Create new issue note',
    title: 'Comment on issue',
    description: 'Add a comment (a note) to an issue, as you.',
    route: 'POST /projects/:id/issues/:issue_iid/notes',
    input: issueInput.extend({ body: z.string().min(1) }),
    effect: 'write',
    undo: 'Adds a comment and replaces nothing; its author can delete it.',
  }),
];
