// Epics area (higher licence tier): list, read, create, update (close, reopen), delete a group's epics, and mark one as a to-do.
import { z } from 'zod';
import { defineOperation, fields, defineArea, demoLookup, casesOn } from '../engine/define.js';
import type { Presentation } from '../engine/define.js';
import { asRecord, presentList, show } from '../engine/present.js';
import { age, workItemFilters } from './shared/work-items.js';

const epicIid = () => z.number().int().positive().describe('The &number.');
const target = { id: fields.groupId(), epic_iid: epicIid() };
// No pattern in the schema: every assistant pays for it in every conversation, and the service names a bad date itself.
const day = () => z.string().describe('YYYY-MM-DD.');

/** The issue and merge request list filters an epic list takes too, in the order its schema lists them. */
const epicFilters = z.object(workItemFilters).pick({
  labels: true,
  with_labels_details: true,
  author_id: true,
  search: true,
  created_after: true,
  created_before: true,
  updated_after: true,
  updated_before: true,
}).shape;

/** Epics take their dates either fixed here or inherited from their issues' milestones. */
const changeShape = {
  description: z.string().max(1_048_576).optional().describe('Markdown.'),
  labels: z.string().optional().describe('Comma-separated.'),
  start_date_is_fixed: z.boolean().optional().describe('Else inherited from milestones.'),
  start_date_fixed: day().optional(),
  due_date_is_fixed: z.boolean().optional().describe('Else inherited from milestones.'),
  due_date_fixed: day().optional(),
};

function dates(epic: Record<string, unknown>): string {
  return `${show(epic.start_date)} → ${show(epic.due_date)}`;
}

function presentEpic(data: unknown): Presentation {
  const epic = asRecord(data);
  const refs = asRecord(epic.references);
  return {
    title: `Epic ${show(refs.full ?? epic.reference)}: ${show(epic.title)}`,
    fields: [
      ['state', show(epic.state)],
      [
        'labels',
        Array.isArray(epic.labels) && epic.labels.length > 0
          ? epic.labels.map((l) => (typeof l === 'string' ? l : show(asRecord(l).name))).join(', ')
          : 'none',
      ],
      ['dates', dates(epic)],
      ['author', show(asRecord(epic.author).username)],
    ],
  };
}

// Overwritten values (title, description, fixed dates) are kept nowhere a client can read them back; labels keep
// their history as label events, state is undone by the opposite state_event, *_is_fixed only picks a source.
const OVERWRITES = ['title', 'description', 'start_date_fixed', 'due_date_fixed'] as const;

const epicsOperations = [
  defineOperation({
    name: 'list_epics',
    chat: 'epic list',
    area: 'epics',
    title: 'List epics',
    description: "List a group's epics, subgroups included, newest first, with filters.",
    route: 'GET /groups/:id/epics',
    input: z.object({
      id: fields.groupId(),
      state: z.enum(['opened', 'closed', 'all']).optional(),
      ...epicFilters,
      order_by: z.enum(['created_at', 'updated_at']).optional(),
      sort: workItemFilters.sort,
      include_ancestor_groups: z.boolean().optional(),
      include_descendant_groups: z.boolean().optional().describe('Default true.'),
    }),
    effect: 'read',
    pagination: 'offset',
    present: presentList('epic', (epic) => {
      const refs = asRecord(epic.references);
      return [
        show(refs.relative ?? epic.reference),
        `${show(epic.title)} · ${show(epic.state)} · ${dates(epic)} · ${age(epic.created_at)}`,
      ];
    }),
    examples: [{ input: { id: 'acme' } }],
  }),
  defineOperation({
    name: 'get_epic',
    chat: 'epic get',
    area: 'epics',
    title: 'Get epic',
    description: 'Read one epic: title, description, state, labels, dates and parent.',
    route: 'GET /groups/:id/epics/:epic_iid',
    input: z.object(target),
    effect: 'read',
    present: presentEpic,
    examples: [{ input: { id: 'acme', epic_iid: demoLookup('/groups/:id/epics', { field: 'iid' }) } }],
  }),
  defineOperation({
    name: 'create_epic',
    chat: 'epic create',
    area: 'epics',
    title: 'Create epic',
    description: 'Create an epic in a group, optionally under a parent epic. Needs Reporter access.',
    route: 'POST /groups/:id/epics',
    input: z.object({
      id: fields.groupId(),
      title: z.string().min(1),
      ...changeShape,
      parent_id: z
        .union([z.number().int().positive(), z.string().min(1)])
        .optional()
        .describe("The parent epic's ID, not iid."),
    }),
    effect: 'write',
    undo: 'Adds an epic and changes nothing else; delete_epic removes it.',
    present: presentEpic,
    decisions: {
      runs: [{ id: 'acme', title: 't', description: 'd', labels: 'a', start_date_fixed: '2030-01-01' }],
      asks: [],
    },
  }),
  defineOperation({
    name: 'update_epic',
    chat: 'epic update',
    area: 'epics',
    title: 'Update epic',
    description: 'Change, close or reopen an epic; fields left out stay.',
    route: 'PUT /groups/:id/epics/:epic_iid',
    input: z.object({
      ...target,
      title: z.string().min(1).optional(),
      ...changeShape,
      labels: z.string().optional().describe('Comma-separated; replace the current ones.'),
      state_event: z.enum(['close', 'reopen']).optional(),
    }),
    effect: 'write',
    undo:
      'A new title, description or fixed date replaces one kept nowhere, so those ask a human; labels keep their ' +
      'history as label events, and close and reopen undo each other.',
    needsApproval: (input) => {
      const replaced = OVERWRITES.filter((key) => input[key] !== undefined);
      if (replaced.length === 0) return undefined;
      return (
        `It overwrites the epic's ${replaced.join(', ')}; the current values are kept nowhere, so read them ` +
        'with get_epic first if they may be needed.'
      );
    },
    present: presentEpic,
    // Title, description and fixed dates are kept nowhere; labels keep label events, close and reopen undo each other.
    decisions: casesOn(
      { id: 'acme', epic_iid: 1 },
      {
        runs: [{ labels: 'a' }, { state_event: 'close' }, { due_date_is_fixed: false }],
        asks: [
          { title: 't' },
          { description: 'd' },
          { start_date_fixed: '2030-01-01' },
          { due_date_fixed: '2030-01-01' },
        ],
      },
    ),
  }),
  defineOperation({
    name: 'delete_epic',
    chat: 'epic delete',
    area: 'epics',
    title: 'Delete epic',
    description: 'Delete an epic for good; its issues and child epics stay, unlinked. Needs Owner access.',
    route: 'DELETE /groups/:id/epics/:epic_iid',
    input: z.object(target),
    effect: 'destructive',
    undo: 'Cannot be undone: the epic, its description and its links to issues and child epics are gone for good.',
    decisions: { runs: [], asks: [{ id: 'acme', epic_iid: 1 }] },
  }),
  defineOperation({
    name: 'create_epic_todo',
    chat: 'epic todo',
    area: 'epics',
    title: 'Add epic to-do',
    description: 'Add an epic to your to-do list; status 304 means it was already there.',
    route: 'POST /groups/:id/epics/:epic_iid/todo',
    input: z.object(target),
    effect: 'write',
    // A repeat finds the to-do and answers 304: sending it twice never makes two.
    idempotent: true,
    undo: 'Adds a to-do for you alone; marking it done removes it.',
    present: (data) =>
      data === null
        ? { title: 'Already on your to-do list; nothing changed.' }
        : { title: `To-do added: ${show(asRecord(data).body)}`, fields: [['url', show(asRecord(data).target_url)]] },
    decisions: { runs: [{ id: 'acme', epic_iid: 1 }], asks: [] },
  }),
];

export const area = defineArea({ name: 'epics', operations: epicsOperations });
