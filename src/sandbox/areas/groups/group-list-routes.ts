// The group and subgroup lists: visibility per caller, all_available, owned, min_access_level, statistics for
// administrators.
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { paginate } from '../../core/paginate.js';
import { optionalParams, param } from '../../core/params.js';
import { projectListParams } from '../../core/project-list.js';
import type { Router, SandboxRequest } from '../../core/router.js';
import { ACCESS, type Group, type User } from '../../core/store.js';
import { projectStatistics } from '../../core/views.js';
import { ownEntry } from '../../core/own-key.js';
import { attributeList, groupView } from './routes.js';

const groupListParams = z.object({
  skip_groups: param.array(param.integer()).optional(),
  all_available: param.boolean().optional(),
  search: z.string().optional(),
  order_by: param.enum(['name', 'path', 'id']).optional(),
  sort: param.enum(['asc', 'desc']).optional(),
  ...optionalParams(param.boolean, 'statistics', 'with_custom_attributes', 'owned'),
  // The same access levels as the project lists take.
  min_access_level: projectListParams.min_access_level,
  custom_attributes: param.hash().optional(),
});
type GroupListParams = z.output<typeof groupListParams>;

/** Storage of every project in the group and below it. */
async function groupStatistics(ctx: SandboxContext, group: Group) {
  const below = new Set([group, ...ctx.store.descendantGroups(group)]);
  const projects = ctx.store.projects.filter((p) => p.namespace.kind === 'group' && below.has(p.namespace.group));
  const each = await Promise.all(projects.map(projectStatistics));
  const sum = (key: keyof (typeof each)[number]) => each.reduce((total, s) => total + s[key], 0);
  return {
    storage_size: sum('storage_size'),
    repository_size: sum('repository_size'),
    wiki_size: sum('wiki_size'),
    lfs_objects_size: sum('lfs_objects_size'),
    job_artifacts_size: sum('job_artifacts_size'),
    packages_size: sum('packages_size'),
  };
}

/**
 * The groups of `candidates` this caller gets. Anonymous: public ones. Signed in: those they are a member of
 * (here or above), or every visible one with all_available (the default for administrators); owned and
 * min_access_level take precedence over all_available.
 */
function selectGroups(
  ctx: SandboxContext,
  user: User | null,
  candidates: readonly Group[],
  params: GroupListParams,
): Group[] {
  const access = (g: Group) => ctx.store.groupAccess(user, g);
  const minimum = params.owned ? ACCESS.owner : params.min_access_level;
  const allAvailable = params.all_available ?? user?.is_admin ?? true;
  const search = params.search?.toLowerCase();
  const skip = new Set(params.skip_groups ?? []);
  const attributes = user?.is_admin ? Object.entries(params.custom_attributes ?? {}) : [];
  const chosen = candidates.filter(
    (g) =>
      ctx.store.canSeeGroup(user, g) &&
      (minimum !== undefined ? access(g) >= minimum : user === null || allAvailable || access(g) > 0) &&
      !skip.has(g.id) &&
      (search === undefined || [g.name, g.path].some((text) => text.toLowerCase().includes(search))) &&
      attributes.every(([key, value]) => ownEntry(g.custom_attributes, key) === value),
  );
  const key = (g: Group) =>
    params.order_by === 'id' ? g.id : params.order_by === 'path' ? g.path.toLowerCase() : g.name.toLowerCase();
  const direction = params.sort === 'desc' ? -1 : 1;
  return chosen.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.id - b.id) * direction);
}

async function groupListReply(ctx: SandboxContext, req: SandboxRequest<GroupListParams>, groups: Group[]) {
  const { user, params } = req;
  const admin = user?.is_admin === true;
  return Promise.all(
    groups.map(async (group) => ({
      ...groupView(ctx, group),
      // Statistics and custom attributes are administrator data; others asking get the plain form.
      ...(admin && params.statistics ? { statistics: await groupStatistics(ctx, group) } : {}),
      ...(admin && params.with_custom_attributes ? { custom_attributes: attributeList(group) } : {}),
    })),
  );
}

/** The group list and a group's subgroups. */
export function registerGroupLists(router: Router, ctx: SandboxContext): void {
  router.route('GET', '/groups', { params: groupListParams, pagination: 'offset' }, async (req, reply) => {
    const groups = selectGroups(ctx, req.user, ctx.store.groups, req.params);
    reply.json(await groupListReply(ctx, req, paginate(req, reply, groups)));
  });

  router.route(
    'GET',
    '/groups/:id/subgroups',
    { params: groupListParams, pagination: 'offset' },
    async (req, reply) => {
      const parent = ctx.findGroupFor(req, req.pathParams.id);
      const children = ctx.store.groups.filter((g) => g.parent_id === parent.id);
      reply.json(
        await groupListReply(ctx, req, paginate(req, reply, selectGroups(ctx, req.user, children, req.params))),
      );
    },
  );
}
