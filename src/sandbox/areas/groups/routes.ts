// Groups: the group and subgroup lists (visibility per caller, all_available, owned, min_access_level, statistics
// for administrators), a group's projects, group details (at most 100 projects and 100 shared ones) and creation.
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { forbidden, validationError } from '../../core/errors.js';
import { paginate } from '../../core/paginate.js';
import { optionalParams, param } from '../../core/params.js';
import { filterProjects, projectListParams, renderProjects, sortProjects } from '../../core/project-list.js';
import type { Router, SandboxRequest } from '../../core/router.js';
import { ACCESS, type Group, type Project, type User } from '../../core/store.js';
import { groupWebUrl, pickFields, projectStatistics } from '../../core/views.js';
import { ownEntry } from '../../core/own-key.js';

/** Group details list at most this many projects, and as many shared ones (the spec's limit). */
const GROUP_DETAILS_PROJECT_CAP = 100;

const VISIBILITY = ['private', 'internal', 'public'] as const;

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

const groupProjectsParams = z.object({
  ...projectListParams,
  ...optionalParams(param.boolean, 'with_shared', 'include_subgroups', 'with_security_reports'),
});

const createParams = z.object({
  name: z.string().min(1),
  path: z.string().min(1),
  description: z.string().optional(),
  visibility: param.enum(VISIBILITY).optional(),
  share_with_group_lock: param.boolean().optional(),
  require_two_factor_authentication: param.boolean().optional(),
  two_factor_grace_period: param.integer().optional(),
  project_creation_level: param.enum(['noone', 'maintainer', 'developer']).optional(),
  auto_devops_enabled: param.boolean().optional(),
  // Not in the spec's table, but in the service's Groups API: without it a script's subgroup would land at the top.
  parent_id: param.integer().optional(),
});

const PATH_PATTERN = /^[a-zA-Z0-9_][a-zA-Z0-9_.-]*$/;

/** The group's own fields a group view starts with, in the service's order. */
const GROUP_SETTINGS = [
  'id',
  'name',
  'path',
  'description',
  'visibility',
  'share_with_group_lock',
  'require_two_factor_authentication',
  'two_factor_grace_period',
  'project_creation_level',
  'auto_devops_enabled',
  'subgroup_creation_level',
  'emails_disabled',
  'mentions_disabled',
  'lfs_enabled',
] as const;

function groupView(ctx: SandboxContext, group: Group) {
  return {
    ...pickFields(group, GROUP_SETTINGS),
    avatar_url: null,
    web_url: groupWebUrl(ctx.store, group),
    ...pickFields(group, ['request_access_enabled', 'full_name', 'full_path']),
    file_template_project_id: null,
    parent_id: group.parent_id,
    created_at: group.created_at.toISOString(),
  };
}

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

const attributeList = (group: Group) => Object.entries(group.custom_attributes).map(([key, value]) => ({ key, value }));

/** Projects of the group (and, with `deep`, of its subgroups). The sandbox shares no project with a group. */
function projectsOf(ctx: SandboxContext, group: Group, deep: boolean): Project[] {
  const groups = new Set(deep ? [group, ...ctx.store.descendantGroups(group)] : [group]);
  return ctx.store.projects.filter((p) => p.namespace.kind === 'group' && groups.has(p.namespace.group));
}

export function register(router: Router, ctx: SandboxContext): void {
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

  router.route(
    'GET',
    '/groups/:id/projects',
    { params: groupProjectsParams, pagination: 'offset' },
    async (req, reply) => {
      const { user, params } = req;
      const group = ctx.findGroupFor(req, req.pathParams.id);
      // No project of the sandbox has security reports.
      const candidates = params.with_security_reports ? [] : projectsOf(ctx, group, params.include_subgroups === true);
      const projects = sortProjects(filterProjects(ctx, user, candidates, params), params.order_by, params.sort);
      reply.json(await renderProjects(ctx, user, paginate(req, reply, projects), params));
    },
  );

  router.route(
    'GET',
    '/groups/:id',
    {
      params: z.object({
        with_custom_attributes: param.boolean().optional(),
        with_projects: param.boolean().optional(),
      }),
    },
    async (req, reply) => {
      const { user, params } = req;
      const group = ctx.findGroupFor(req, req.pathParams.id);
      const withProjects = params.with_projects ?? true;
      const projects = withProjects
        ? sortProjects(filterProjects(ctx, user, projectsOf(ctx, group, false), {}), 'id', 'asc').slice(
            0,
            GROUP_DETAILS_PROJECT_CAP,
          )
        : [];
      reply.json({
        ...groupView(ctx, group),
        ...(ctx.groupAccess(user, group) >= ACCESS.owner ? { runners_token: `GR1348941group${group.id}` } : {}),
        ...(withProjects ? { projects: await renderProjects(ctx, user, projects, {}), shared_projects: [] } : {}),
        ...(user?.is_admin && params.with_custom_attributes ? { custom_attributes: attributeList(group) } : {}),
      });
    },
  );

  router.route('POST', '/groups', { auth: 'user', params: createParams }, (req, reply) => {
    const user = ctx.requireUser(req);
    const { parent_id: parentId, ...params } = req.params;
    // A subgroup needs the parent's subgroup creation level (maintainer by default); a top-level group, the user's right.
    const parent = parentId === undefined ? undefined : ctx.findGroupFor(req, String(parentId));
    if (parent) {
      if (
        ctx.groupAccess(user, parent) < (parent.subgroup_creation_level === 'owner' ? ACCESS.owner : ACCESS.maintainer)
      )
        throw forbidden();
    } else if (!user.can_create_group && !user.is_admin) throw forbidden();
    const problems: Record<string, string[]> = {};
    if (!PATH_PATTERN.test(params.path))
      problems.path = ["can contain only letters, digits, '_', '-' and '.'. Cannot start with '-'"];
    else if (
      ctx.store.groups.some(
        (g) => g.parent_id === (parent?.id ?? null) && g.path.toLowerCase() === params.path.toLowerCase(),
      )
    ) {
      problems.path = ['has already been taken'];
    }
    if (Object.keys(problems).length > 0) throw validationError(problems);
    // Parameters left out keep the store's defaults.
    const given = Object.fromEntries(
      Object.entries(params).filter(([, value]) => value !== undefined),
    ) as typeof params;
    const group = ctx.store.addGroup({ ...given, parent });
    group.members.set(user.id, { access_level: ACCESS.owner, expires_at: null, created_at: new Date() });
    reply.json(groupView(ctx, group), 201);
  });
}
