// What issue and merge request writes share (outside the spec, the service's Merge requests, Issues and Notes
// APIs, v4): their ids, label changes, state events, the overwrite warning, and how one item and its notes read.
import { z } from 'zod';
import { defineOperation } from '../../engine/define.js';
import type { Area, Presentation } from '../../engine/define.js';
import { asRecord, presentList, shortSha, show } from '../../engine/present.js';

export const iid = () => z.number().int().positive();
export const ids = () => z.array(z.number().int().positive()).optional();
export const labels = () => z.string().optional().describe('Comma-separated; replaces all labels.');
export const labelChanges = {
  add_labels: z.string().optional().describe('Comma-separated.'),
  remove_labels: z.string().optional().describe('Comma-separated.'),
};
export const stateEvent = () => z.enum(['close', 'reopen']).optional();

/** The text an issue or merge request update replaces, kept nowhere afterwards (so a change of it asks a human). */
export const textChanges = () => ({
  title: z.string().min(1).optional(),
  description: z.string().optional(),
});

/** What an issue or merge request update changes leaving a trace: close or reopen, labels (events), assignees (notes). */
export const tracedChanges = () => ({
  state_event: stateEvent(),
  labels: labels(),
  ...labelChanges,
  assignee_ids: ids(),
});

/** The fields an update overwrites with no history of the old text: those ask a human first. */
export function overwrites(input: Record<string, unknown>, keys: readonly string[], what: string): string | undefined {
  const set = keys.filter((key) => input[key] !== undefined);
  return set.length > 0
    ? `It overwrites the ${what}'s ${set.join(', ')}; the current text is kept nowhere (read it first if it may be needed).`
    : undefined;
}

export function presentWorkItem(kind: string) {
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

/** How a list of comments (notes) is ordered: the same two choices on issues and merge requests. */
export const noteOrder = {
  sort: z.enum(['asc', 'desc']).optional(),
  order_by: z.enum(['created_at', 'updated_at']).optional(),
};

export const noteRow = (note: Record<string, unknown>): [string, string] => [
  `@${show(asRecord(note.author).username)} ${show(note.created_at)}`,
  show(note.body).split('\n')[0],
];

/** Which item's comments: the names, words and demo inputs that differ between issues and merge requests. */
interface NotesOf<S extends z.ZodObject> {
  /** The item as a name part (`issue`, `merge_request`), in chat (`issue`, `mr`) and in words, with its article. */
  name: string;
  chat: string;
  noun: string;
  aNoun: string;
  area: Area;
  /** The item's route (`/projects/:id/issues/:issue_iid`) and input (its project and iid). */
  itemRoute: string;
  input: S;
  /** The service's Notes API entries the two operations follow. */
  outsideSpec: { list: string; comment: string };
  listExample: Record<string, unknown>;
  commentCase: Record<string, unknown>;
}

/** An item's comments: list them (system notes too) and add one, the same two operations on issues and merge requests. */
export function noteOperations<S extends z.ZodObject>(of: NotesOf<S>) {
  return [
    defineOperation({
      name: `list_${of.name}_notes`,
      chat: `${of.chat} notes`,
      area: of.area,
      outsideSpec: `Notes API: ${of.outsideSpec.list}`,
      title: `List ${of.noun} comments`,
      description: `List ${of.aNoun}'s comments and system notes, newest first.`,
      route: `GET ${of.itemRoute}/notes`,
      input: of.input.extend(noteOrder),
      effect: 'read',
      pagination: 'offset',
      present: presentList('comment', noteRow),
      examples: [{ input: of.listExample }],
    }),
    defineOperation({
      name: `comment_on_${of.name}`,
      chat: `${of.chat} comment`,
      area: of.area,
      outsideSpec: `Notes API: ${of.outsideSpec.comment}`,
      title: `Comment on ${of.noun}`,
      description: `Add a comment (a note) to ${of.aNoun}, as you.`,
      route: `POST ${of.itemRoute}/notes`,
      input: of.input.extend({ body: z.string().min(1) }),
      effect: 'write',
      undo: 'Adds a comment and replaces nothing; its author can delete it.',
      decisions: { runs: [of.commentCase], asks: [] },
    }),
  ];
}
