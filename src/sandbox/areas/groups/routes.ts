// Groups: a group's projects, group details (at most 100 projects and 100 shared ones) and creation; the group and
// subgroup lists are in ./group-list-routes.ts.
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { forbidden, validationError } from '../../core/errors.js';
import { paginate } from '../../core/paginate.js';
import { optionalParams, param } from '../../core/params.js';
import { filterProjects, projectListParams, renderProjects, sortProjects } from '../../core/project-list.js';
import type { Router } from '../../core/router.js';
import { ACCESS, type Group, type Project } from '../../core/store.js';
import { groupWebUrl, pickFields } from '../../core/views.js';

/** Group details list at most this many projects, and as many shared ones (the spec's limit). */
const GROUP_DETAILS_PROJECT_CAP = 100;

const VISIBILITY = ['private', 'internal', 'public'] as const;

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

export function groupView(ctx: SandboxContext, group: Group) {
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

export const attributeList = (group: Group) =>
  Object.entries(group.custom_attributes).map(([key, value]) => ({ key, value }));

/** Projects of the group (and, with `deep`, of its subgroups). The sandbox shares no project with a group. */
function projectsOf(ctx: SandboxContext, group: Group, deep: boolean): Project[] {
  const groups = new Set(deep ? [group, ...ctx.store.descendantGroups(group)] : [group]);
  return ctx.store.projects.filter((p) => p.namespace.kind === 'group' && groups.has(p.namespace.group));
}

export function register(router: Router, ctx: SandboxContext): void {
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
