// Issues and merge requests: the list filters, visibility, ordering and list machinery they share (how each is shown is
// ./item-views.ts).
//
// One filter for both kinds, as the spec lists one set of query parameters for both (issues add a few, merge
// requests others): labels all-of and case-insensitive (`None`, `Any`, deprecated `No+Label`), milestone by title
// (`None`, `Any`), scope, author and assignee (ids, usernames, `None`, `Any`), reactions, iids, search within
// title and/or description, inclusive date ranges, confidential, weight, and each of them negated under not[...].
import { z } from 'zod';
import { paramError } from '../../core/errors.js';
import { paginate } from '../../core/paginate.js';
import { optionalParams, param } from '../../core/params.js';
import type { SandboxContext } from '../../core/context.js';
import type { Reply, Router, SandboxRequest } from '../../core/router.js';
import { ACCESS, type Project, type Store, type User } from '../../core/store.js';
import { labelsFor, type Issue, type MergeRequest, type WorkItem } from './state.js';
import { isDraft, type ReferenceContext } from './item-views.js';

const _iso = (date: Date | null): string | null => (date ? date.toISOString() : null);

/** `None` and `Any` are read case-insensitively, as the service's validator does. */
const noneAny = z.preprocess(
  (v) => (typeof v === 'string' && /^(none|any)$/i.test(v) ? `${v[0].toUpperCase()}${v.slice(1).toLowerCase()}` : v),
  z.enum(['None', 'Any']),
);
const integerNoneAny = () => z.union([param.integer(), noneAny]);
/** Comma-separated, or as an array (labels[]=a&labels[]=b). */
export const nameList = () => z.union([z.string(), z.array(z.string())]);
const usernames = () => z.union([z.string(), z.array(z.string())]);
const idList = () => z.union([param.array(param.integer()), noneAny]);

/** Filters every list of issues or merge requests reads (the negatable ones also live under not[...]). */
const negatableShape = {
  labels: nameList().optional(),
  milestone: z.string().optional(),
  author_id: param.integer().optional(),
  assignee_id: integerNoneAny().optional(),
  my_reaction_emoji: z.string().optional(),
  search: z.string().optional(),
};

const workItemParamsShape = {
  ...negatableShape,
  with_labels_details: param.boolean().optional(),
  // The hyphenated names are deprecated spellings the service still reads.
  scope: param.enum(['created_by_me', 'assigned_to_me', 'all', 'created-by-me', 'assigned-to-me']).optional(),
  sort: param.enum(['asc', 'desc']).optional(),
  ...optionalParams(param.datetime, 'created_after', 'created_before', 'updated_after', 'updated_before'),
};

const inParam = () => z.string().optional();

export const issueParamsShape = {
  ...workItemParamsShape,
  // 'all' is not in the spec's list, but the service reads it as its default (both states).
  state: param.enum(['opened', 'closed', 'all']).optional(),
  author_username: z.string().optional(),
  assignee_username: usernames().optional(),
  weight: integerNoneAny().optional(),
  iids: param.array(param.integer()).optional(),
  in: inParam(),
  confidential: param.boolean().optional(),
  order_by: param
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
  not: z
    .strictObject({
      ...negatableShape,
      author_username: z.string().optional(),
      assignee_username: usernames().optional(),
      in: inParam(),
    })
    .optional(),
};
export type IssueParams = z.output<z.ZodObject<typeof issueParamsShape>>;

export const mergeRequestParamsShape = {
  ...workItemParamsShape,
  state: param.enum(['opened', 'closed', 'locked', 'merged', 'all']).optional(),
  order_by: param.enum(['created_at', 'updated_at']).optional(),
  view: param.enum(['simple']).optional(),
  approver_ids: idList().optional(),
  approved_by_ids: idList().optional(),
  source_branch: z.string().optional(),
  target_branch: z.string().optional(),
  wip: param.enum(['yes', 'no']).optional(),
};
export type MergeRequestParams = z.output<z.ZodObject<typeof mergeRequestParamsShape>> & {
  in?: string;
  iids?: number[];
};

export type Predicate<T> = (item: T) => boolean;

/** Whose items a list shows when no scope is given: the caller's own, or all the caller may see. */
type DefaultScope = 'created_by_me' | 'all';

/** What a filter is evaluated against: the store, the caller, and the project of each item. */
interface FilterContext {
  store: Store;
  user: User;
  projectOf(item: WorkItem): Project;
}

/** Comma-separated names, or an array of them (whose items may hold commas too), as the service coerces both. */
export function splitNames(value: string | string[]): string[] {
  return (Array.isArray(value) ? value : [value])
    .flatMap((item) => item.split(','))
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function userIdByName(store: Store, username: string): number {
  return store.findUser(username)?.id ?? -1;
}

/** `in`: title, description, or both joined by a comma (default both); anything else is refused. */
function searchFields(value: string | undefined, name: string): Array<'title' | 'description'> {
  if (value === undefined) return ['title', 'description'];
  const fields = splitNames(value);
  if (fields.length === 0 || fields.some((f) => f !== 'title' && f !== 'description')) {
    throw paramError(`${name} does not have a valid value`);
  }
  return fields as Array<'title' | 'description'>;
}

/**
 * `labels`: all of the names (case-insensitive), or `None` / `Any`; negated, none of them. Epics filter the same way.
 */
export function labelsPredicate<T extends { labels: string[] }>(
  value: string | string[],
  negated = false,
): Predicate<T> {
  const names = splitNames(value).map((n) => n.toLowerCase());
  const has = (item: T) => new Set(item.labels.map((l) => l.toLowerCase()));
  const none = names.length === 1 && (names[0] === 'none' || names[0] === 'no+label' || names[0] === 'no label');
  if (none) return (item) => (item.labels.length === 0) !== negated;
  if (names.length === 1 && names[0] === 'any') return (item) => item.labels.length > 0 !== negated;
  if (negated) return (item) => names.every((n) => !has(item).has(n));
  return (item) => names.every((n) => has(item).has(n));
}

/**
 * The predicates of the negatable filters, each one a test an item must pass. Negated (under not[...]) each
 * test is inverted, except labels: `not[labels]=a,b` keeps the items that have none of them, as on the service.
 */
function negatablePredicates(
  f: z.output<z.ZodObject<typeof negatableShape>> & {
    author_username?: string;
    assignee_username?: string | string[];
    in?: string;
  },
  ctx: FilterContext,
  negated: boolean,
): Array<Predicate<WorkItem>> {
  const tests: Array<Predicate<WorkItem>> = [];
  if (f.labels !== undefined) tests.push(labelsPredicate(f.labels, negated));
  const add = (test: Predicate<WorkItem>) => tests.push(negated ? (item) => !test(item) : test);
  if (f.milestone !== undefined) {
    const title = f.milestone;
    add((item) => {
      if (/^none$/i.test(title)) return item.milestone_id === null;
      if (/^any$/i.test(title)) return item.milestone_id !== null;
      return ctx.projectOf(item).milestones.find((m) => m.id === item.milestone_id)?.title === title;
    });
  }
  if (f.author_id !== undefined) add((item) => item.author_id === f.author_id);
  if (f.author_username !== undefined) {
    const id = userIdByName(ctx.store, f.author_username);
    add((item) => item.author_id === id);
  }
  if (f.assignee_id !== undefined) {
    const wanted = f.assignee_id;
    add((item) =>
      wanted === 'None'
        ? item.assignee_ids.length === 0
        : wanted === 'Any'
          ? item.assignee_ids.length > 0
          : item.assignee_ids.includes(wanted),
    );
  }
  if (f.assignee_username !== undefined) {
    const ids = splitNames(f.assignee_username).map((name) => userIdByName(ctx.store, name));
    add((item) => ids.some((id) => item.assignee_ids.includes(id)));
  }
  if (f.my_reaction_emoji !== undefined) {
    const emoji = f.my_reaction_emoji;
    add((item) => {
      const mine = item.awards.filter((a) => a.user_id === ctx.user.id);
      if (/^none$/i.test(emoji)) return mine.length === 0;
      if (/^any$/i.test(emoji)) return mine.length > 0;
      return mine.some((a) => a.name === emoji);
    });
  }
  if (f.search !== undefined && f.search !== '') {
    const text = f.search.toLowerCase();
    const fields = searchFields(f.in, negated ? 'not[in]' : 'in');
    add((item) => fields.some((field) => item[field].toLowerCase().includes(text)));
  } else if (f.in !== undefined) {
    searchFields(f.in, negated ? 'not[in]' : 'in');
  }
  return tests;
}

function exclusive(params: Record<string, unknown>, a: string, b: string): void {
  if (params[a] !== undefined && params[b] !== undefined) throw paramError(`${a}, ${b} are mutually exclusive`);
}

/** The community edition filters by one assignee username only. */
function checkAssigneeCount(value: string | string[] | undefined, name: string): void {
  if (value === undefined) return;
  const names = splitNames(value);
  if (names.length > 1) throw paramError(`${name} allows one value, but found ${names.length}: ${names.join(', ')}`);
}

/** Parameter rules zod alone cannot state: exclusive pairs and the one-assignee limit (400 before anything is read). */
export function checkIssueParams(params: IssueParams): void {
  exclusive(params, 'author_id', 'author_username');
  exclusive(params, 'assignee_id', 'assignee_username');
  checkAssigneeCount(params.assignee_username, 'assignee_username');
  if (params.not) {
    exclusive(params.not, 'author_id', 'author_username');
    exclusive(params.not, 'assignee_id', 'assignee_username');
    checkAssigneeCount(params.not.assignee_username, 'not[assignee_username]');
  }
}

/** The spec's limit: approved_by_ids takes at most 5 IDs (approver_ids has none). */
export function checkMergeRequestParams(params: MergeRequestParams): void {
  const value = params.approved_by_ids;
  if (Array.isArray(value) && value.length > 5) throw paramError('approved_by_ids does not have a valid value');
}

/** The filters both kinds share, for the caller: scope, the negatable ones (and not[...]) and the date ranges. */
function sharedPredicates(
  params: z.output<z.ZodObject<typeof workItemParamsShape>> & {
    not?: Record<string, unknown>;
    in?: string;
    state?: string;
    iids?: number[];
  },
  ctx: FilterContext,
  defaultScope: DefaultScope,
): Array<Predicate<WorkItem & { state: string }>> {
  const scope = (params.scope ?? defaultScope).replace(/-/g, '_');
  const tests: Array<Predicate<WorkItem & { state: string }>> = [];
  const state = params.state ?? 'all';
  if (state !== 'all') tests.push((item) => item.state === state);
  if (params.iids) tests.push((item) => params.iids!.includes(item.iid));
  if (scope === 'created_by_me') tests.push((item) => item.author_id === ctx.user.id);
  if (scope === 'assigned_to_me') tests.push((item) => item.assignee_ids.includes(ctx.user.id));
  tests.push(...negatablePredicates(params, ctx, false));
  if (params.not) tests.push(...negatablePredicates(params.not as typeof params, ctx, true));
  tests.push(...periodPredicates(params));
  return tests;
}

interface Period {
  created_after?: Date;
  created_before?: Date;
  updated_after?: Date;
  updated_before?: Date;
}

/** created_after … updated_before of a list of issues, merge requests or epics: inclusive on both ends, as the spec says. */
export function periodPredicates(period: Period): Array<Predicate<{ created_at: Date; updated_at: Date }>> {
  const { created_after, created_before, updated_after, updated_before } = period;
  const tests: Array<Predicate<{ created_at: Date; updated_at: Date }>> = [];
  if (created_after) tests.push((item) => item.created_at >= created_after);
  if (created_before) tests.push((item) => item.created_at <= created_before);
  if (updated_after) tests.push((item) => item.updated_at >= updated_after);
  if (updated_before) tests.push((item) => item.updated_at <= updated_before);
  return tests;
}

export function issuePredicates(params: IssueParams, ctx: FilterContext, scope: DefaultScope): Array<Predicate<Issue>> {
  const tests: Array<Predicate<Issue>> = sharedPredicates(params, ctx, scope);
  if (params.confidential !== undefined) tests.push((issue) => issue.confidential === params.confidential);
  const weight = params.weight;
  if (weight !== undefined) {
    tests.push((issue) =>
      weight === 'None' ? issue.weight === null : weight === 'Any' ? issue.weight !== null : issue.weight === weight,
    );
  }
  return tests;
}

export function mergeRequestPredicates(
  params: MergeRequestParams,
  ctx: FilterContext,
  scope: DefaultScope,
): Array<Predicate<MergeRequest>> {
  const tests: Array<Predicate<MergeRequest>> = sharedPredicates(params, ctx, scope);
  if (params.source_branch !== undefined) tests.push((mr) => mr.source_branch === params.source_branch);
  if (params.target_branch !== undefined) tests.push((mr) => mr.target_branch === params.target_branch);
  if (params.wip !== undefined) tests.push((mr) => isDraft(mr.title) === (params.wip === 'yes'));
  for (const [name, field] of [
    ['approver_ids', 'approver_ids'],
    ['approved_by_ids', 'approved_by_ids'],
  ] as const) {
    const wanted = params[name];
    if (wanted === undefined) continue;
    // All of the given users, as the service matches these lists.
    tests.push((mr) =>
      wanted === 'None'
        ? mr[field].length === 0
        : wanted === 'Any'
          ? mr[field].length > 0
          : wanted.every((id) => mr[field].includes(id)),
    );
  }
  return tests;
}

/**
 * Whether the caller may see this issue: the project is visible to them with issues enabled, and a confidential
 * issue shows only to its author, its assignees, reporters and up, and administrators.
 */
export function canSeeIssue(ctx: SandboxContext, user: User | null, project: Project, issue: Issue): boolean {
  if (!project.issues_enabled || !ctx.store.canSeeProject(user, project)) return false;
  if (!issue.confidential) return true;
  if (user === null) return false;
  return (
    issue.author_id === user.id ||
    issue.assignee_ids.includes(user.id) ||
    ctx.projectAccess(user, project) >= ACCESS.reporter
  );
}

/** Merge requests show what the code is: reporters and up on private projects, anyone who sees the others. */
export function canSeeMergeRequests(ctx: SandboxContext, user: User | null, project: Project): boolean {
  return project.merge_requests_enabled && ctx.store.canSeeProject(user, project) && ctx.canReadCode(user, project);
}

type Sortable = Date | number | string | null;

/** Sorts by a key (nulls always last, whatever the direction), ties broken by id in the same direction. */
export function sortItems<T extends { id: number }>(
  items: T[],
  key: (item: T) => Sortable,
  direction: 'asc' | 'desc',
): T[] {
  const sign = direction === 'asc' ? 1 : -1;
  const value = (v: Sortable) => (v instanceof Date ? v.getTime() : v);
  return [...items].sort((a, b) => {
    const [va, vb] = [value(key(a)), value(key(b))];
    if (va === null && vb !== null) return 1;
    if (vb === null && va !== null) return -1;
    if (va !== null && vb !== null && va !== vb) return (va < vb ? -1 : 1) * sign;
    return (a.id - b.id) * sign;
  });
}

export function issueSortKey(
  store: Store,
  project: (issue: Issue) => Project,
  orderBy: NonNullable<IssueParams['order_by']>,
): (issue: Issue) => Sortable {
  const labelPriority = (issue: Issue) => {
    const labels = labelsFor(store, { kind: 'project', project: project(issue) });
    const priorities = issue.labels
      .map((name) => labels.find((l) => l.name === name)?.priority)
      .filter((p): p is number => typeof p === 'number');
    return priorities.length ? Math.min(...priorities) : null;
  };
  const milestoneDue = (issue: Issue) =>
    project(issue).milestones.find((m) => m.id === issue.milestone_id)?.due_date ?? null;
  switch (orderBy) {
    case 'created_at':
      return (issue) => issue.created_at;
    case 'updated_at':
      return (issue) => issue.updated_at;
    case 'due_date':
      return (issue) => issue.due_date;
    case 'relative_position':
      return (issue) => issue.relative_position;
    case 'weight':
      return (issue) => issue.weight;
    case 'popularity':
      return (issue) => issue.awards.filter((a) => a.name === 'thumbsup').length;
    case 'milestone_due':
      return milestoneDue;
    // Priority is the label priority first, then the milestone's due date; label_priority only the former.
    case 'priority':
      return (issue) => labelPriority(issue) ?? (milestoneDue(issue) === null ? null : 1e9);
    case 'label_priority':
      return labelPriority;
  }
}

/** The projects a list reads from: one project, a group and its subgroups, or every project. */
export function projectsIn(store: Store, from: ReferenceContext): Project[] {
  if (from.kind === 'project') return [from.project];
  if (from.kind === 'instance') return store.projects;
  const groups = new Set([from.group, ...store.descendantGroups(from.group)]);
  return store.projects.filter((p) => p.namespace.kind === 'group' && groups.has(p.namespace.group));
}

export function filterContext(store: Store, user: User): FilterContext {
  const byId = new Map(store.projects.map((p) => [p.id, p]));
  return { store, user, projectOf: (item) => byId.get(item.project_id)! };
}

/** What sets one kind of work item's list apart; the rest (scope, visibility, order, pages) is the same for both. */
export interface ItemListSpec<P, T extends WorkItem> {
  /** Refuses parameters that do not go together (400), before anything is read. */
  check: (params: P) => void;
  /** Whether the caller's list reads this project's items at all (merge requests need code access). */
  readsProject: (params: P, user: User, project: Project, from: ReferenceContext) => boolean;
  items: () => readonly T[];
  predicates: (params: P, filters: FilterContext, scope: DefaultScope) => Array<Predicate<T>>;
  /** Whether the caller sees one item of a project read (a confidential issue); every one when absent. */
  sees?: (user: User, project: Project, item: T) => boolean;
  sortKey: (params: P, projectOf: (item: T) => Project) => (item: T) => Sortable;
  view: (params: P, project: Project, item: T, from: ReferenceContext, details: boolean) => unknown;
}

/**
 * One list of issues or merge requests, as the service answers both: the items of the projects in reach that the
 * caller may see and the filters keep (the instance-wide list only the caller's own unless a scope says otherwise),
 * sorted newest first unless asked, one page of them in their view.
 */
export function itemList<P extends { sort?: 'asc' | 'desc'; with_labels_details?: boolean }, T extends WorkItem>(
  ctx: SandboxContext,
  spec: ItemListSpec<P, T>,
): (req: SandboxRequest<P>, reply: Reply, from: ReferenceContext) => void {
  const { store } = ctx;
  return (req, reply, from) => {
    const user = ctx.requireUser(req);
    spec.check(req.params);
    const projects = new Map(
      projectsIn(store, from)
        .filter((p) => spec.readsProject(req.params, user, p, from))
        .map((p) => [p.id, p]),
    );
    const scope = from.kind === 'instance' ? 'created_by_me' : 'all';
    const tests = spec.predicates(req.params, filterContext(store, user), scope);
    const listed = spec.items().filter((item) => {
      const project = projects.get(item.project_id);
      return project !== undefined && (spec.sees?.(user, project, item) ?? true) && tests.every((test) => test(item));
    });
    const projectOf = (item: T) => projects.get(item.project_id)!;
    const sorted = sortItems(listed, spec.sortKey(req.params, projectOf), req.params.sort ?? 'desc');
    const details = req.params.with_labels_details ?? false;
    reply.json(paginate(req, reply, sorted).map((item) => spec.view(req.params, projectOf(item), item, from, details)));
  };
}

/**
 * The three lists of issues or of merge requests: instance-wide, a group's (its subgroups included) and a project's.
 * `params` are each list's parameters; `projectFor` finds the project and refuses the caller who may not list its
 * items.
 */
export function registerItemLists<S extends z.ZodObject>(
  router: Router,
  ctx: SandboxContext,
  resource: 'issues' | 'merge_requests',
  params: { instance: S; group: S; project: S },
  list: (req: SandboxRequest<z.output<S>>, reply: Reply, from: ReferenceContext) => void,
  projectFor: (req: SandboxRequest<unknown>) => Project,
): void {
  const options = (schema: S) => ({ params: schema, pagination: 'offset' as const, auth: 'user' as const });
  router.route('GET', `/${resource}`, options(params.instance), (req, reply) => {
    list(req, reply, { kind: 'instance' });
  });
  router.route('GET', `/groups/:id/${resource}`, options(params.group), (req, reply) => {
    list(req, reply, { kind: 'group', group: ctx.findGroupFor(req, req.pathParams.id) });
  });
  router.route('GET', `/projects/:id/${resource}`, options(params.project), (req, reply) => {
    list(req, reply, { kind: 'project', project: projectFor(req) });
  });
}
