// Demo epics beyond seed.ts's two: a closed child epic with fixed dates in acme, and one in acme/platform whose
// start date is fixed, so that state, parent, date and label filters each have something to tell apart.
import type { Store, User } from '../../core/store.js';
import { setLabels, type Epic, workItemsOf } from './state.js';

const DAY = 24 * 60 * 60 * 1000;

const EPICS: Array<{
  group: string;
  title: string;
  author: string;
  labels: string[];
  created: number;
  description: string;
  parent?: string;
  closed?: number;
  start?: number;
  due?: number;
}> = [
  {
    group: 'acme',
    title: 'Checkout redesign',
    author: 'bob',
    labels: ['frontend', 'UX'],
    created: 30,
    closed: 5,
    parent: 'Storefront 2.0',
    start: -28,
    due: -6,
    description: 'One page, fewer fields.',
  },
  {
    group: 'acme/platform',
    title: 'Self-serve refunds',
    author: 'alice',
    labels: ['backend'],
    created: 20,
    start: 10,
    description: 'Support no longer refunds by hand.',
  },
];

/** Runs after seedWorkItems (the parents and labels it seeds must exist). */
export function seedEpics(store: Store, users: Map<string, User>, epoch: number): void {
  const ago = (days: number) => new Date(epoch - days * DAY + 9 * 60 * 60 * 1000);
  const day = (offset: number) => new Date(epoch + offset * DAY).toISOString().slice(0, 10);
  for (const spec of EPICS) {
    const group = store.findGroup(spec.group)!;
    const author = users.get(spec.author)!;
    const epic: Epic = {
      id: store.nextId('epic'),
      iid:
        Math.max(
          0,
          ...workItemsOf(store)
            .epics.filter((e) => e.group_id === group.id)
            .map((e) => e.iid),
        ) + 1,
      group_id: group.id,
      title: spec.title,
      description: spec.description,
      state: 'opened',
      author_id: author.id,
      labels: [],
      start_date_is_fixed: spec.start !== undefined,
      start_date_fixed: spec.start === undefined ? null : day(spec.start),
      due_date_is_fixed: spec.due !== undefined,
      due_date_fixed: spec.due === undefined ? null : day(spec.due),
      parent_id: spec.parent ? workItemsOf(store).epics.find((e) => e.title === spec.parent)!.id : null,
      created_at: ago(spec.created),
      updated_at: ago(spec.created),
      closed_at: null,
    };
    workItemsOf(store).epics.push(epic);
    setLabels(store, { kind: 'Epic', item: epic }, spec.labels, author, ago(spec.created));
    if (spec.closed !== undefined)
      [epic.state, epic.closed_at, epic.updated_at] = ['closed', ago(spec.closed), ago(spec.closed)];
  }
}
