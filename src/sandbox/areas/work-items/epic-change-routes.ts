// Creating, updating (closing and reopening) and deleting a group's epic, by the rules of ./epics-routes.ts. Start and
// due dates are fixed or inherited; the sandbox links no issues, so an inherited date is null. Label changes are
// recorded as label events (setLabels in state.ts).
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { forbidden, paramError, validationError } from '../../core/errors.js';
import { param } from '../../core/params.js';
import type { Router } from '../../core/router.js';
import { ACCESS, type Group } from '../../core/store.js';
import { nameList, splitNames } from './shared.js';
import { setLabels, type Epic, workItemsOf } from './state.js';
import { nextIid } from './changes.js';
import { epicStateOf } from './epic-state.js';
import { epicView } from './epic-view.js';
import { epicOf, groupOf } from './epics-routes.js';

/** The spec's limit on an epic's description. */
const MAX_DESCRIPTION = 1_048_576;

/** A calendar date, as the fixed dates are stored and sent. */
const date = () =>
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/)
    .refine((s) => !Number.isNaN(Date.parse(s)));

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

/** Creating, updating and deleting an epic. */
export function registerEpicChanges(router: Router, ctx: SandboxContext): void {
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
