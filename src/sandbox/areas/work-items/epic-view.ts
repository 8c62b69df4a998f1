// An epic as the service shows it: its references relative to the group a request named, its dates (fixed, or
// inherited: null in a sandbox that links no issues), its labels, and the fields only editors see.
import type { Group, Store, User } from '../../core/store.js';
import { groupWebUrl, iso, userBasic } from '../../core/views.js';
import { labelDetails } from './item-views.js';
import { labelsFor, type Epic, type Label } from './state.js';

/** `&iid`, written relative to the group a request named (`platform&1` from acme), full from the root. */
function references(group: Group, iid: number, from: Group) {
  const full = `${group.full_path}&${iid}`;
  let relative = full;
  if (from === group) relative = `&${iid}`;
  else if (group.full_path.startsWith(`${from.full_path}/`))
    relative = `${group.full_path.slice(from.full_path.length + 1)}&${iid}`;
  return { reference: `&${iid}`, references: { short: `&${iid}`, relative, full } };
}

export interface ViewOptions {
  from: Group;
  canEdit: boolean;
  withLabelsDetails?: boolean;
  /** The single read adds `subscribed` for the caller. */
  subscribedFor?: User;
}

export function epicView(store: Store, epic: Epic, options: ViewOptions) {
  const group = store.findGroup(String(epic.group_id))!;
  const author = store.findUser(String(epic.author_id));
  const startDate = epic.start_date_is_fixed ? epic.start_date_fixed : null;
  const dueDate = epic.due_date_is_fixed ? epic.due_date_fixed : null;
  const known = labelsFor(store, { kind: 'group', group });
  const fallback = (name: string): Label => ({ id: 0, name, color: '#6699cc', description: null, priority: null });
  return {
    id: epic.id,
    iid: epic.iid,
    group_id: epic.group_id,
    parent_id: epic.parent_id,
    title: epic.title,
    description: epic.description,
    state: epic.state,
    web_url: `${groupWebUrl(store, group)}/-/epics/${epic.iid}`,
    ...references(group, epic.iid, options.from),
    author: author ? userBasic(store, author) : null,
    start_date: startDate,
    ...(options.canEdit
      ? { start_date_is_fixed: epic.start_date_is_fixed, start_date_fixed: epic.start_date_fixed }
      : {}),
    start_date_from_inherited_source: null,
    start_date_from_milestones: null,
    end_date: dueDate,
    due_date: dueDate,
    ...(options.canEdit ? { due_date_is_fixed: epic.due_date_is_fixed, due_date_fixed: epic.due_date_fixed } : {}),
    due_date_from_inherited_source: null,
    due_date_from_milestones: null,
    created_at: iso(epic.created_at),
    updated_at: iso(epic.updated_at),
    closed_at: iso(epic.closed_at),
    labels: options.withLabelsDetails
      ? epic.labels.map((name) => labelDetails(known.find((l) => l.name === name) ?? fallback(name)))
      : [...epic.labels],
    upvotes: 0,
    downvotes: 0,
    ...(options.subscribedFor ? { subscribed: epic.author_id === options.subscribedFor.id } : {}),
  };
}
