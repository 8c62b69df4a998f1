// Epics of a group (higher licence tier): list (with ancestor and descendant groups), read, create, update (close and
// reopen), delete and the caller's to-do.
//
// Every call needs a token (401); a group the caller may not see is 404; a group whose top-level group's plan lacks
// epics is 403, after those two. Who may do what the spec leaves out, so as on the service: anyone who sees the group
// reads its epics, reporters and up create and edit them (and only they see the *_is_fixed and *_fixed date fields),
// owners delete them. Start and due dates are fixed or inherited; the sandbox links no issues, so an inherited date
// is null. Label changes are recorded as label events (setLabels in state.ts). A to-do exists once per user and epic: a
// second POST is 304 with no body.
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { forbidden, notFound, paramError, validationError } from '../../core/errors.js';
import { paginate } from '../../core/paginate.js';
import { optionalParams, param } from '../../core/params.js';
import {
  integerPathParam,
  type Reply,
  type Router,
  type SandboxRequest,
  registerAll,
  signedInList,
} from '../../core/router.js';
import { ACCESS, type Group, type User } from '../../core/store.js';
import { userBasic } from '../../core/views.js';
import { labelsPredicate, nameList, periodPredicates, sortItems, splitNames, type Predicate } from './shared.js';
import { setLabels, type Epic, workItemsOf } from './state.js';
import { nextIid } from './changes.js';
import { epicStateOf } from './epic-state.js';
import { epicView } from './epic-view.js';

/** The spec's limit on an epic's description. */
const MAX_DESCRIPTION = 1_048_576;

const _iso = (date: Date | null): string | null => (date ? date.toISOString() : null);
/** A calendar date, as the fixed dates are stored and sent. */
const date = () =>
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/)
    .refine((s) => !Number.isNaN(Date.parse(s)));

const listParams = z.object({
  author_id: param.integer().optional(),
  labels: nameList().optional(),
  with_labels_details: param.boolean().optional(),
  order_by: param.enum(['created_at', 'updated_at']).optional(),
  sort: param.enum(['asc', 'desc']).optional(),
  search: z.string().optional(),
  state: param.enum(['opened', 'closed', 'all']).optional(),
  ...optionalParams(param.datetime, 'created_after', 'created_before', 'updated_after', 'updated_before'),
  include_ancestor_groups: param.boolean().optional(),
  include_descendant_groups: param.boolean().optional(),
});
type ListParams = z.output<typeof listParams>;

const changeShape = {
  description: z.string().optional(),
  labels: nameList().optional(),
  start_date_is_fixed: param.boolean().optional(),
  start_date_fixed: date().optional(),
  due_date_is_fixed: param.boolean().optional(),
  due_date_fixed: date().optional(),
};
const createParams = z.object({
  title: z.string(),
  ...changeShape,
  parent_id: z.union([param.integer(), z.string()]).optional(),
});
const updateParams = z.object({
  title: z.string().optional(),
  ...changeShape,
  state_event: param.enum(['close', 'reopen']).optional(),
});
const UPDATABLE = [
  'title',
  'description',
  'labels',
  'start_date_is_fixed',
  'start_date_fixed',
  'due_date_is_fixed',
  'due_date_fixed',
  'state_event',
] as const;

function listPredicates(params: ListParams): Array<Predicate<Epic>> {
  const tests: Array<Predicate<Epic>> = [];
  const state = params.state ?? 'all';
  if (state !== 'all') tests.push((epic) => epic.state === state);
  if (params.author_id !== undefined) tests.push((epic) => epic.author_id === params.author_id);
  if (params.labels !== undefined) tests.push(labelsPredicate(params.labels));
  if (params.search) {
    const text = params.search.toLowerCase();
    tests.push((epic) => epic.title.toLowerCase().includes(text) || epic.description.toLowerCase().includes(text));
  }
  tests.push(...periodPredicates(params));
  return tests;
}

/** The group of the path, checked in the service's order: 401, 404, then 403 when its plan lacks epics. */
function groupOf(ctx: SandboxContext, req: SandboxRequest<unknown>): { user: User; group: Group; access: number } {
  const { store } = ctx;
  const state = epicStateOf(store);
  const user = ctx.requireUser(req);
  const group = ctx.findGroupFor(req, req.pathParams.id);
  if (store.groupChain(group).some((g) => state.unlicensed.has(g.id))) throw forbidden();
  return { user, group, access: ctx.groupAccess(user, group) };
}

function epicOf(ctx: SandboxContext, req: SandboxRequest<unknown>) {
  const { store } = ctx;
  const found = groupOf(ctx, req);
  const iid = integerPathParam(req, 'epic_iid');
  const epic = workItemsOf(store).epics.find((e) => e.group_id === found.group.id && e.iid === iid);
  if (!epic) throw notFound('Epic');
  return { ...found, epic };
}

function requireAccess(access: number, level: number): void {
  if (access < level) throw forbidden();
}

/** Checks the values of a create or update before anything changes: a refused call leaves the epic as it was. */
function checkChange(params: { title?: string; description?: string }): void {
  if (params.title !== undefined && params.title.trim() === '') throw validationError({ title: ["can't be blank"] });
  if (params.description !== undefined && params.description.length > MAX_DESCRIPTION) {
    throw validationError({ description: [`is too long (maximum is ${MAX_DESCRIPTION} characters)`] });
  }
}

function applyDates(epic: Epic, params: z.output<typeof updateParams>): void {
  if (params.start_date_is_fixed !== undefined) epic.start_date_is_fixed = params.start_date_is_fixed;
  if (params.start_date_fixed !== undefined) epic.start_date_fixed = params.start_date_fixed;
  if (params.due_date_is_fixed !== undefined) epic.due_date_is_fixed = params.due_date_is_fixed;
  if (params.due_date_fixed !== undefined) epic.due_date_fixed = params.due_date_fixed;
}

/** A parent is an epic of the same group or of an ancestor group, by id (a number or a numeric string). */
function parentFor(ctx: SandboxContext, group: Group, value: number | string): Epic {
  const { store } = ctx;
  const id = typeof value === 'number' ? value : /^\d+$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  const chain = store.groupChain(group).map((g) => g.id);
  const parent = workItemsOf(store).epics.find((e) => e.id === id);
  if (!parent || !chain.includes(parent.group_id))
    throw validationError({ parent: ['must be an epic of this group or of one of its ancestors'] });
  return parent;
}

export const register = registerAll(registerEpicReads, registerEpicChanges, registerEpicTodos);

/** Listing epics and reading one. */
function registerEpicReads(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;
  router.route('GET', '/groups/:id/epics', signedInList(listParams), (req, reply: Reply) => {
    const { user, group } = groupOf(ctx, req);
    const p = req.params;
    const groups = [group];
    if (p.include_descendant_groups ?? true) groups.push(...store.descendantGroups(group));
    if (p.include_ancestor_groups ?? false) groups.push(...store.groupChain(group).slice(1));
    const visible = new Set(groups.filter((g) => store.canSeeGroup(user, g)).map((g) => g.id));
    const tests = listPredicates(p);
    const epics = workItemsOf(store).epics.filter(
      (epic) => visible.has(epic.group_id) && tests.every((test) => test(epic)),
    );
    const sorted = sortItems(
      epics,
      (epic) => (p.order_by === 'updated_at' ? epic.updated_at : epic.created_at),
      p.sort ?? 'desc',
    );
    const canEdit = (epic: Epic) => ctx.groupAccess(user, store.findGroup(String(epic.group_id))!) >= ACCESS.reporter;
    reply.json(
      paginate(req, reply, sorted).map((epic) =>
        epicView(store, epic, { from: group, canEdit: canEdit(epic), withLabelsDetails: p.with_labels_details }),
      ),
    );
  });

  router.route('GET', '/groups/:id/epics/:epic_iid', { auth: 'user' }, (req, reply) => {
    const { user, group, access, epic } = epicOf(ctx, req);
    reply.json(epicView(store, epic, { from: group, canEdit: access >= ACCESS.reporter, subscribedFor: user }));
  });
}

/** Creating, updating and deleting an epic. */
function registerEpicChanges(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;
  const state = epicStateOf(store);
  router.route('POST', '/groups/:id/epics', { params: createParams, auth: 'user' }, (req, reply) => {
    const { user, group, access } = groupOf(ctx, req);
    requireAccess(access, ACCESS.reporter);
    const p = req.params;
    checkChange(p);
    const parent = p.parent_id === undefined ? null : parentFor(ctx, group, p.parent_id);
    const now = new Date();
    const epic: Epic = {
      id: store.nextId('epic'),
      iid: nextIid(workItemsOf(store).epics.filter((e) => e.group_id === group.id)),
      group_id: group.id,
      title: p.title,
      description: p.description ?? '',
      state: 'opened',
      author_id: user.id,
      labels: [],
      start_date_is_fixed: false,
      start_date_fixed: null,
      due_date_is_fixed: false,
      due_date_fixed: null,
      parent_id: parent?.id ?? null,
      created_at: now,
      updated_at: now,
      closed_at: null,
    };
    applyDates(epic, p);
    workItemsOf(store).epics.push(epic);
    if (p.labels !== undefined) setLabels(store, { kind: 'Epic', item: epic }, splitNames(p.labels), user, now);
    reply.json(epicView(store, epic, { from: group, canEdit: true }), 201);
  });

  router.route('PUT', '/groups/:id/epics/:epic_iid', { params: updateParams, auth: 'user' }, (req, reply) => {
    const { user, group, access, epic } = epicOf(ctx, req);
    requireAccess(access, ACCESS.reporter);
    const p = req.params;
    if (UPDATABLE.every((name) => p[name] === undefined)) {
      throw paramError(`${UPDATABLE.join(', ')} are missing, at least one parameter must be provided`);
    }
    checkChange(p);
    const now = new Date();
    if (p.title !== undefined) epic.title = p.title;
    if (p.description !== undefined) epic.description = p.description;
    applyDates(epic, p);
    if (p.state_event === 'close' && epic.state === 'opened') [epic.state, epic.closed_at] = ['closed', now];
    if (p.state_event === 'reopen' && epic.state === 'closed') [epic.state, epic.closed_at] = ['opened', null];
    if (p.labels !== undefined) setLabels(store, { kind: 'Epic', item: epic }, splitNames(p.labels), user, now);
    epic.updated_at = now;
    reply.json(epicView(store, epic, { from: group, canEdit: true }));
  });

  router.route('DELETE', '/groups/:id/epics/:epic_iid', { auth: 'user' }, (req, reply) => {
    const { access, epic } = epicOf(ctx, req);
    requireAccess(access, ACCESS.owner);
    workItemsOf(store).epics.splice(workItemsOf(store).epics.indexOf(epic), 1);
    // Its children stay, without a parent; its to-dos go with it.
    for (const child of workItemsOf(store).epics) if (child.parent_id === epic.id) child.parent_id = null;
    for (let i = state.todos.length - 1; i >= 0; i--) if (state.todos[i].epic_id === epic.id) state.todos.splice(i, 1);
    reply.empty(204);
  });
}

/** A to-do for an epic. */
function registerEpicTodos(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;
  const state = epicStateOf(store);
  router.route('POST', '/groups/:id/epics/:epic_iid/todo', { auth: 'user' }, (req, reply) => {
    const { user, group, access, epic } = epicOf(ctx, req);
    if (state.todos.some((t) => t.user_id === user.id && t.epic_id === epic.id)) {
      reply.empty(304);
      return;
    }
    const todo = { id: store.nextId('todo'), user_id: user.id, epic_id: epic.id, created_at: new Date() };
    state.todos.push(todo);
    const target = epicView(store, epic, { from: group, canEdit: access >= ACCESS.reporter });
    reply.json(
      {
        id: todo.id,
        group: {
          id: group.id,
          name: group.name,
          path: group.path,
          kind: 'group',
          full_path: group.full_path,
          parent_id: group.parent_id,
        },
        // The author of a to-do one marks oneself is oneself.
        author: userBasic(store, user),
        action_name: 'marked',
        target_type: 'Epic',
        target,
        target_url: target.web_url,
        body: epic.title,
        state: 'pending',
        created_at: todo.created_at.toISOString(),
      },
      201,
    );
  });
}
