// What the instance, user and group project lists share: their filters, orders and the per-caller project form
// (simple for anonymous callers and simple=true, full otherwise).
import { z } from 'zod';
import type { SandboxContext } from './context.js';
import { optionalParams, param } from './params.js';
import { ACCESS, ACCESS_LEVELS, type Project, type User } from './store.js';
import { findReadme, projectFull, projectSimple, projectStatistics } from './views.js';
import { ownEntry } from './own-key.js';

const PROJECT_ORDER_BY = ['id', 'name', 'path', 'created_at', 'updated_at', 'last_activity_at'] as const;
type OrderBy = (typeof PROJECT_ORDER_BY)[number];

/** Parameters every project list reads (the group list adds its own, the instance list the checksum filters). */
export const projectListParams = {
  archived: param.boolean().optional(),
  visibility: param.enum(['public', 'internal', 'private']).optional(),
  order_by: param.enum(PROJECT_ORDER_BY).optional(),
  sort: param.enum(['asc', 'desc']).optional(),
  search: z.string().optional(),
  ...optionalParams(param.boolean, 'simple', 'owned', 'starred'),
  ...optionalParams(param.boolean, 'with_custom_attributes', 'with_issues_enabled', 'with_merge_requests_enabled'),
  min_access_level: param
    .integer()
    .refine((level) => (ACCESS_LEVELS as readonly number[]).includes(level))
    .optional(),
};

interface ProjectFilters {
  archived?: boolean;
  visibility?: string;
  search?: string;
  owned?: boolean;
  membership?: boolean;
  starred?: boolean;
  with_issues_enabled?: boolean;
  with_merge_requests_enabled?: boolean;
  with_programming_language?: string;
  min_access_level?: number;
  id_after?: number;
  id_before?: number;
  custom_attributes?: Record<string, string>;
}

function sortKey(project: Project, orderBy: OrderBy): string | number {
  switch (orderBy) {
    case 'id':
      return project.id;
    case 'name':
      return project.name.toLowerCase();
    case 'path':
      return project.path.toLowerCase();
    case 'created_at':
      return project.created_at.getTime();
    case 'updated_at':
    case 'last_activity_at':
      return project.last_activity_at.getTime();
  }
}

/** Projects in the caller's personal namespace or in groups the caller owns. */
function isOwnedBy(ctx: SandboxContext, project: Project, user: User): boolean {
  const ns = project.namespace;
  return ns.kind === 'user' ? ns.user.id === user.id : ctx.store.groupAccess(user, ns.group) >= ACCESS.owner;
}

/** The projects of `candidates` the caller may see that pass every filter given. */
export function filterProjects(
  ctx: SandboxContext,
  user: User | null,
  candidates: readonly Project[],
  params: ProjectFilters,
): Project[] {
  const { store } = ctx;
  const search = params.search?.toLowerCase();
  const language = params.with_programming_language?.toLowerCase();
  // Custom attributes are administrator data: others' filters on them are ignored, as on the service.
  const attributeFilter = user?.is_admin ? Object.entries(params.custom_attributes ?? {}) : [];
  const checks: Array<(project: Project) => boolean> = [
    (p) => store.canSeeProject(user, p),
    (p) => params.archived === undefined || p.archived === params.archived,
    (p) => params.visibility === undefined || p.visibility === params.visibility,
    (p) =>
      search === undefined ||
      [p.name, p.path, p.full_path, p.description].some((text) => text.toLowerCase().includes(search)),
    (p) => !params.owned || (user !== null && isOwnedBy(ctx, p, user)),
    (p) => !params.membership || store.projectAccess(user, p) > 0,
    (p) => !params.starred || (user !== null && p.starred_by.has(user.id)),
    (p) => !params.with_issues_enabled || p.issues_enabled,
    (p) => !params.with_merge_requests_enabled || p.merge_requests_enabled,
    (p) => language === undefined || Object.keys(p.languages).some((name) => name.toLowerCase() === language),
    (p) => params.min_access_level === undefined || ctx.projectAccess(user, p) >= params.min_access_level,
    (p) => params.id_after === undefined || p.id > params.id_after,
    (p) => params.id_before === undefined || p.id < params.id_before,
    (p) => attributeFilter.every(([key, value]) => ownEntry(p.custom_attributes, key) === value),
  ];
  return candidates.filter((project) => checks.every((check) => check(project)));
}

/** Sorted copy; ties go by id so that pages never overlap. Default: newest first, as the spec says. */
export function sortProjects(
  projects: readonly Project[],
  orderBy: OrderBy = 'created_at',
  sort: 'asc' | 'desc' = 'desc',
): Project[] {
  const direction = sort === 'asc' ? 1 : -1;
  return [...projects].sort((a, b) => {
    const [ka, kb] = [sortKey(a, orderBy), sortKey(b, orderBy)];
    return (ka < kb ? -1 : ka > kb ? 1 : a.id - b.id) * direction;
  });
}

interface ProjectFormOptions {
  simple?: boolean;
  statistics?: boolean;
  with_custom_attributes?: boolean;
}

/** Each project in the form this caller gets: simple without a token or with simple=true, full otherwise. */
export function renderProjects(
  ctx: SandboxContext,
  user: User | null,
  projects: readonly Project[],
  options: ProjectFormOptions,
) {
  return Promise.all(
    projects.map(async (project) => {
      const readme = await findReadme(project);
      if (user === null || options.simple === true) return projectSimple(ctx.store, project, readme);
      const ns = project.namespace;
      const direct =
        project.members.get(user.id)?.access_level ??
        (ns.kind === 'user' && ns.user.id === user.id ? ACCESS.owner : null);
      const inherited = ns.kind === 'group' ? ctx.store.groupAccess(user, ns.group) : 0;
      const mayStats = options.statistics === true && ctx.projectAccess(user, project) >= ACCESS.reporter;
      return projectFull(ctx.store, project, {
        readmePath: readme,
        projectAccess: direct,
        groupAccess: inherited > 0 ? inherited : null,
        maintainer: ctx.projectAccess(user, project) >= ACCESS.maintainer,
        statistics: mayStats ? await projectStatistics(project) : undefined,
        withCustomAttributes: options.with_custom_attributes === true && user.is_admin,
      });
    }),
  );
}
