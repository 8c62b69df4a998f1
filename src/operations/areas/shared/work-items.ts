// What issue and merge request lists share: one filter shape (the spec lists one set of parameters for both) and
// one chat presentation (reference, title, state, labels, assignee, age).
import { z } from 'zod';
import { fields } from '../../engine/define.js';
import { asRecord, presentList, show } from '../../engine/present.js';
import type { Fields } from '../../engine/present.js';
import { assigneesOf, labelNamesOf } from '../../engine/rows.js';

const NONE_ANY = ['None', 'Any'] as const;
// Plain numbers: a filter's JSON Schema is paid by every assistant in every conversation, and the service itself
// refuses an ID that is not a whole number.
const userId = () => z.number().int();
export const noneAny = () => z.enum(NONE_ANY);

/** Filters of every issue and merge request list. */
export const workItemFilters = {
  labels: z.string().optional().describe('Comma-separated, all must match; None or Any.'),
  with_labels_details: z.boolean().optional(),
  milestone: z.string().optional().describe('Title, None or Any.'),
  scope: z.enum(['created_by_me', 'assigned_to_me', 'all']).optional(),
  author_id: userId().optional(),
  assignee_id: z.union([userId(), noneAny()]).optional(),
  my_reaction_emoji: z.string().optional().describe('Emoji name, None or Any.'),
  search: z.string().optional(),
  created_after: fields.dateTime().optional(),
  created_before: fields.dateTime().optional(),
  updated_after: fields.dateTime().optional(),
  updated_before: fields.dateTime().optional(),
  sort: z.enum(['asc', 'desc']).optional(),
};

/** `in` of a search (the spec's values): where `search` looks, both when left out. */
export const searchIn = () => z.enum(['title', 'description', 'title,description']).optional();

/** How old something is, as people say it in chat: 45m, 5h, 3d, 2mo, 1y. */
export function age(value: unknown, now = Date.now()): string {
  const time = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(time)) return show(value);
  const minutes = Math.max(0, Math.floor((now - time) / 60_000));
  if (minutes < 60) return `${minutes}m`;
  if (minutes < 48 * 60) return `${Math.floor(minutes / 60)}h`;
  const days = Math.floor(minutes / (24 * 60));
  if (days < 60) return `${days}d`;
  return days < 730 ? `${Math.floor(days / 30)}mo` : `${Math.floor(days / 365)}y`;
}

function labelNames(labels: unknown): string {
  const names = labelNamesOf(labels);
  return names.length > 0 ? names.join(', ') : 'no labels';
}

function assigneeOf(item: Fields): string {
  const [first, ...others] = assigneesOf(item);
  return first !== undefined ? `@${first}${others.length > 0 ? ` +${others.length}` : ''}` : 'unassigned';
}

/** One line per issue or merge request: its reference, then title · state · labels · assignee · age. */
export function presentWorkItems(noun: string, sigil: '#' | '!') {
  return presentList(noun, (item) => {
    const refs = asRecord(item.references);
    const reference = typeof refs.relative === 'string' ? refs.relative : `${sigil}${show(item.iid)}`;
    const line = [show(item.title), show(item.state)];
    // view=simple has neither labels nor people.
    if ('labels' in item) line.push(labelNames(item.labels), assigneeOf(item));
    line.push(age(item.created_at));
    return [reference, line.join(' · ')];
  });
}
