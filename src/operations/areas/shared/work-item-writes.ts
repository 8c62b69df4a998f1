// What issue and merge request writes share (outside the spec, the service's Merge requests, Issues and Notes
// APIs, v4): their ids, label changes, state events, the overwrite warning, and how one item and its notes read.
import { z } from 'zod';
import type { Presentation } from '../../engine/define.js';
import { asRecord, shortSha, show } from '../../engine/present.js';

export const iid = () => z.number().int().positive();
export const ids = () => z.array(z.number().int().positive()).optional();
export const labels = () => z.string().optional().describe('Comma-separated; replaces all labels.');
export const labelChanges = {
  add_labels: z.string().optional().describe('Comma-separated.'),
  remove_labels: z.string().optional().describe('Comma-separated.'),
};
export const stateEvent = () => z.enum(['close', 'reopen']).optional();

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
