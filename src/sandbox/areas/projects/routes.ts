// GET /projects and GET /users/:user_id/projects: the projects the caller may see (all, or those in one user's
// namespace), with the spec's filters, ordering, simple and full forms, and offset or keyset pagination.
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { messageError, notFound } from '../../core/errors.js';
import { paginate, paginateKeyset, COUNT_LIMIT } from '../../core/paginate.js';
import { param } from '../../core/params.js';
import { filterProjects, projectListParams, renderProjects, sortProjects } from '../../core/project-list.js';
import type { Router, SandboxRequest, Reply } from '../../core/router.js';
import type { Project } from '../../core/store.js';
import { findReadme, projectFull } from '../../core/views.js';

const userListParams = z.object({
  ...projectListParams,
  membership: param.boolean().optional(),
  statistics: param.boolean().optional(),
  with_programming_language: z.string().optional(),
  id_after: param.integer().optional(),
  id_before: param.integer().optional(),
  custom_attributes: param.hash().optional(),
  /** Not in the parameter table, but how the service selects keyset pagination (order_by=id only). */
  pagination: param.enum(['offset', 'keyset']).optional(),
});

const listParams = userListParams.extend({
  wiki_checksum_failed: param.boolean().optional(),
  repository_checksum_failed: param.boolean().optional(),
});
type ListParams = z.output<typeof listParams>;

async function reply(ctx: SandboxContext, req: SandboxRequest<ListParams>, res: Reply, candidates: readonly Project[]) {
  const { params, user } = req;
  const keyset = params.pagination === 'keyset';
  // The spec's default holds under keyset too, so keyset pages need an explicit order_by=id: a client that
  // leaves it out gets the service's 405, not a quiet ID order.
  const orderBy = params.order_by ?? 'created_at';
  const sort = params.sort ?? 'desc';
  if (keyset && orderBy !== 'id') {
    throw messageError(405, 'Keyset pagination is not yet available for this type of request (use order_by=id)');
  }
  // The sandbox never fails a checksum.
  const failed = params.wiki_checksum_failed === true || params.repository_checksum_failed === true;
  const projects = failed ? [] : sortProjects(filterProjects(ctx, user, candidates, params), orderBy, sort);
  const page = keyset
    ? paginateKeyset(req, res, projects, sort)
    : paginate(req, res, projects, { maxOffset: COUNT_LIMIT });
  res.json(await renderProjects(ctx, user, page, params));
}

const singleParams = z.object({
  statistics: param.boolean().optional(),
  license: param.boolean().optional(),
  with_custom_attributes: param.boolean().optional(),
});

export function register(router: Router, ctx: SandboxContext): void {
  // Beyond the spec (Projects API: Get a single project): the full form, as the service answers one project to anyone
  // who may see it; an anonymous caller gets it without `permissions` (and a runner token it never gets anyway). A
  // project the caller may not see is 404. The sandbox's projects carry no licence.
  router.route('GET', '/projects/:id', { params: singleParams }, async (req, res) => {
    const project = ctx.findProjectFor(req, req.pathParams.id);
    let view: Record<string, unknown>;
    if (req.user === null) {
      const full: Record<string, unknown> = projectFull(ctx.store, project, {
        readmePath: await findReadme(project),
        projectAccess: null,
        groupAccess: null,
        maintainer: false,
      });
      delete full.permissions;
      view = full;
    } else {
      [view] = await renderProjects(ctx, req.user, [project], req.params);
    }
    res.json(req.params.license === true ? { ...view, license_url: null, license: null } : view);
  });

  router.route('GET', '/projects', { params: listParams, pagination: 'offset' }, (req, res) =>
    reply(ctx, req, res, ctx.store.projects),
  );

  router.route('GET', '/users/:user_id/projects', { params: userListParams, pagination: 'offset' }, (req, res) => {
    const owner = ctx.store.findUser(req.pathParams.user_id);
    if (!owner) throw notFound('User');
    const mine = ctx.store.projects.filter((p) => p.namespace.kind === 'user' && p.namespace.user === owner);
    return reply(ctx, req, res, mine);
  });
}
