// Epics of a group (higher licence tier): list (with ancestor and descendant groups) and read, and how each epic route
// finds its group and epic; creating, updating and deleting one are in ./epic-change-routes.ts, the caller's to-do in
// ./epic-todo-routes.ts.
//
// Every call needs a token (401); a group the caller may not see is 404; a group whose top-level group's plan lacks
// epics is 403, after those two. Who may do what the spec leaves out, so as on the service: anyone who sees the group
// reads its epics, reporters and up create and edit them (and only they see the *_is_fixed and *_fixed date fields),
// owners delete them.
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { forbidden, notFound } from '../../core/errors.js';
import { paginate } from '../../core/paginate.js';
import { optionalParams, param } from '../../core/params.js';
import { integerPathParam, type Reply, type Router, type SandboxRequest, signedInList } from '../../core/router.js';
import { ACCESS, type Group, type User } from '../../core/store.js';
import { labelsPredicate, nameList, periodPredicates, sortItems, type Predicate } from './shared.js';
import { type Epic, workItemsOf } from './state.js';
import { epicStateOf } from './epic-state.js';
import { epicView } from './epic-view.js';

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
export function groupOf(
  ctx: SandboxContext,
  req: SandboxRequest<unknown>,
): { user: User; group: Group; access: number } {
  const { store } = ctx;
  const state = epicStateOf(store);
  const user = ctx.requireUser(req);
  const group = ctx.findGroupFor(req, req.pathParams.id);
  if (store.groupChain(group).some((g) => state.unlicensed.has(g.id))) throw forbidden();
  return { user, group, access: ctx.groupAccess(user, group) };
}

export function epicOf(ctx: SandboxContext, req: SandboxRequest<unknown>) {
  const { store } = ctx;
  const found = groupOf(ctx, req);
  const iid = integerPathParam(req, 'epic_iid');
  const epic = workItemsOf(store).epics.find((e) => e.group_id === found.group.id && e.iid === iid);
  if (!epic) throw notFound('Epic');
  return { ...found, epic };
}

/** Listing epics and reading one. */
export function registerEpicReads(router: Router, ctx: SandboxContext): void {
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
