// GET /projects: every project the caller may see, with the spec's filters, ordering, simple and full
// forms, and offset or keyset pagination.
import { z } from 'zod';
import type { SandboxContext } from '../context.js';
import { messageError } from '../errors.js';
import { paginate, paginateKeyset, COUNT_LIMIT } from '../paginate.js';
import { param } from '../params.js';
import type { Router } from '../router.js';
import { ACCESS, ACCESS_LEVELS, type Project, type User } from '../store.js';
import { findReadme, projectFull, projectSimple, projectStatistics } from '../views.js';

const ORDER_BY = ['id', 'name', 'path', 'created_at', 'updated_at', 'last_activity_at'] as const;
type OrderBy = (typeof ORDER_BY)[number];

const listParams = z.object({
  archived: param.boolean().optional(),
  visibility: param.enum(['public', 'internal', 'private']).optional(),
  order_by: param.enum(ORDER_BY).optional(),
  sort: param.enum(['asc', 'desc']).optional(),
  search: z.string().optional(),
  simple: param.boolean().optional(),
  owned: param.boolean().optional(),
  membership: param.boolean().optional(),
  starred: param.boolean().optional(),
  statistics: param.boolean().optional(),
  with_custom_attributes: param.boolean().optional(),
  with_issues_enabled: param.boolean().optional(),
  with_merge_requests_enabled: param.boolean().optional(),
  with_programming_language: z.string().optional(),
  wiki_checksum_failed: param.boolean().optional(),
  repository_checksum_failed: param.boolean().optional(),
  min_access_level: param.integer().refine((level) => (ACCESS_LEVELS as readonly number[]).includes(level)).optional(),
  id_after: param.integer().optional(),
  id_before: param.integer().optional(),
  custom_attributes: param.hash().optional(),
  /** Not in the parameter table, but how the service selects keyset pagination (order_by=id only). */
  pagination: param.enum(['offset', 'keyset']).optional(),
});
type ListParams = z.output<typeof listParams>;

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

function filterProjects(ctx: SandboxContext, user: User | null, params: ListParams): Project[] {
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
    // The sandbox never fails a checksum.
    () => !params.wiki_checksum_failed && !params.repository_checksum_failed,
    (p) => params.min_access_level === undefined || ctx.projectAccess(user, p) >= params.min_access_level,
    (p) => params.id_after === undefined || p.id > params.id_after,
    (p) => params.id_before === undefined || p.id < params.id_before,
    (p) => attributeFilter.every(([key, value]) => p.custom_attributes[key] === value),
  ];
  return store.projects.filter((project) => checks.every((check) => check(project)));
}

export function register(router: Router, ctx: SandboxContext): void {
  router.route('GET', '/projects', { params: listParams, pagination: 'offset' }, async (req, reply) => {
    const { params, user } = req;
    const keyset = params.pagination === 'keyset';
    // The spec's default holds under keyset too, so keyset pages need an explicit order_by=id: a client that
    // leaves it out gets the service's 405, not a quiet ID order.
    const orderBy = params.order_by ?? 'created_at';
    const sort = params.sort ?? 'desc';
    if (keyset && orderBy !== 'id') {
      throw messageError(405, 'Keyset pagination is not yet available for this type of request (use order_by=id)');
    }
    const direction = sort === 'asc' ? 1 : -1;
    const projects = filterProjects(ctx, user, params).sort((a, b) => {
      const [ka, kb] = [sortKey(a, orderBy), sortKey(b, orderBy)];
      return (ka < kb ? -1 : ka > kb ? 1 : a.id - b.id) * direction;
    });
    const page = keyset ? paginateKeyset(req, reply, projects, sort) : paginate(req, reply, projects, { maxOffset: COUNT_LIMIT });

    const simple = user === null || params.simple === true;
    const body = await Promise.all(
      page.map(async (project) => {
        const readme = await findReadme(project);
        if (simple) return projectSimple(ctx.store, project, readme);
        const ns = project.namespace;
        const direct = project.members.get(user.id)?.access_level ?? (ns.kind === 'user' && ns.user.id === user.id ? ACCESS.owner : null);
        const inherited = ns.kind === 'group' ? ctx.store.groupAccess(user, ns.group) : 0;
        const mayStats = params.statistics === true && ctx.projectAccess(user, project) >= ACCESS.reporter;
        return projectFull(ctx.store, project, {
          readmePath: readme,
          projectAccess: direct,
          groupAccess: inherited > 0 ? inherited : null,
          statistics: mayStats ? await projectStatistics(project) : undefined,
          withCustomAttributes: params.with_custom_attributes === true && user.is_admin,
        });
      }),
    );
    reply.json(body);
  });
}
