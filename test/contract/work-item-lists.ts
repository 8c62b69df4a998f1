// The three lists of issues or merge requests (everywhere, group acme, project acme/web) and the filter check of each.
import { expect, it } from 'vitest';
import { firstHundred, WEB } from './builders.js';
import type { ContractSuite, Role } from './harness.js';

/** What issues and merge requests both carry as their lists answer them; each suite adds its own fields. */
export interface ListedWorkItem {
  iid: number;
  title: string;
  description: string;
  state: string;
  labels: Array<string | { name: string }>;
  milestone: { title: string } | null;
  author: { username: string };
  assignees: Array<{ username: string }>;
  upvotes: number;
  created_at: string;
  updated_at: string;
  references: { short: string; relative: string; full: string };
}

/** The item's label names, lower-cased, whether the list answered plain names or label objects. */
export const labelNames = (item: Pick<ListedWorkItem, 'labels'>) =>
  item.labels.map((label) => (typeof label === 'string' ? label : label.name).toLowerCase());

/** A filter: its name, its input (a function: some are ids the sandbox hands out), what every item it keeps passes. */
export type ListFilter<T> = [what: string, input: () => Record<string, unknown>, check: (item: T) => boolean];

/**
 * The instance-wide, group and project lists named `names`, each with the input that reads it where the seed has
 * items worth filtering (`lists`, for describe.each); `list` reads a list's first hundred items as `as` (default the
 * maintainer), and the checks both kinds of work item pass are run on it.
 */
export function workItemLists<T extends ListedWorkItem>(
  suite: ContractSuite,
  [everywhere, inGroup, inProject]: readonly [string, string, string],
) {
  const lists = [
    [everywhere, {}],
    [inGroup, { id: 'acme' }],
    [inProject, { id: WEB }],
  ] as const;
  const list = (name: string, input: Record<string, unknown>, as?: Role) => firstHundred<T>(suite, name, input, as);
  return {
    lists,
    list,
    /**
     * One test per filter of list `name` read from `base`: a non-empty answer, every item in it passing the filter,
     * and fewer items than without it (so the filter reached the service and did something).
     */
    itFiltersEach(name: string, base: Record<string, unknown>, filters: ListFilter<T>[]) {
      it.each(filters)('%s', async (_what, input, check) => {
        // scope=all so that the instance-wide list (created_by_me by default) has items of other people to filter.
        const everything = await list(name, { ...base, scope: 'all' });
        const filtered = await list(name, { ...base, scope: 'all', ...input() });
        expect(filtered.length).toBeGreaterThan(0);
        expect(filtered.length).toBeLessThan(everything.length);
        for (const item of filtered) expect(check(item), `${item.references.full}: ${item.title}`).toBe(true);
      });
    },
    /** The instance-wide list answers only the caller's own items by default (alice's), fewer than with scope=all. */
    async expectOnlyOwnByDefault() {
      const mine = await list(everywhere, {});
      expect(mine.length).toBeGreaterThan(0);
      expect(new Set(mine.map((item) => item.author.username))).toEqual(new Set(['alice']));
      expect((await list(everywhere, { scope: 'all' })).length).toBeGreaterThan(mine.length);
    },
  };
}

/**
 * The filters both kinds of work item take, on values the seed has for the kind: a state, two labels typed in mixed
 * case (all of them kept, whatever their case), a milestone, and an author looked up by id.
 */
export function sharedFilters<T extends ListedWorkItem>(seeded: {
  state: string;
  labels: string;
  milestone: string;
  author: string;
  userId: (username: string) => number;
}): ListFilter<T>[] {
  const wanted = seeded.labels.toLowerCase().split(',');
  return [
    ['state', () => ({ state: seeded.state }), (item) => item.state === seeded.state],
    [
      'labels all-of, case-insensitively',
      () => ({ labels: seeded.labels }),
      (item) => wanted.every((label) => labelNames(item).includes(label)),
    ],
    ['labels None', () => ({ labels: 'None' }), (item) => item.labels.length === 0],
    ['milestone', () => ({ milestone: seeded.milestone }), (item) => item.milestone?.title === seeded.milestone],
    [
      'scope assigned_to_me',
      () => ({ scope: 'assigned_to_me' }),
      (item) => item.assignees.some((a) => a.username === 'alice'),
    ],
    [
      'author_id',
      () => ({ author_id: seeded.userId(seeded.author) }),
      (item) => item.author.username === seeded.author,
    ],
    ['my_reaction_emoji', () => ({ my_reaction_emoji: 'thumbsup' }), (item) => item.upvotes > 0],
  ];
}
