// GET /projects and GET /users/:user_id/projects: the projects the caller may see (all, or those in one user's
// namespace), with the spec's filters, ordering, simple and full forms, and offset or keyset pagination; and, beyond
// the spec, one project's read and its edit (a rename).
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { messageError, notFound, paramError, validationError } from '../../core/errors.js';
import { paginate, paginateKeyset, COUNT_LIMIT } from '../../core/paginate.js';
import { optionalParams, param } from '../../core/params.js';
import { filterProjects, projectListParams, renderProjects, sortProjects } from '../../core/project-list.js';
import type { Router, SandboxRequest, Reply } from '../../core/router.js';
import type { Project } from '../../core/store.js';
import { findReadme, projectFull } from '../../core/views.js';
import { writableProject } from '../../core/context.js';
import { ACCESS } from '../../core/store.js';

const userListParams = z.object({
  ...projectListParams,
  ...optionalParams(param.boolean, 'membership', 'statistics'),
  with_programming_language: z.string().optional(),
  ...optionalParams(param.integer, 'id_after', 'id_before'),
  custom_attributes: param.hash().optional(),
  /** Not in the parameter table, but how the service selects keyset pagination (order_by=id only). */
  pagination: param.enum(['offset', 'keyset']).optional(),
});

const listParams = userListParams.extend({
  ...optionalParams(param.boolean, 'wiki_checksum_failed', 'repository_checksum_failed'),
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

/** What the sandbox's edit changes: the project's name and path (a rename), and its description. */
const UPDATABLE = ['name', 'path', 'description'] as const;
const editParams = z.object({
  ...optionalParams(param.string, 'name', 'path', 'description'),
});
/** The service's project path: letters, digits, '_', '-' and '.', not starting with '-', not ending in .git or .atom. */
const PROJECT_PATH = /^[A-Za-z0-9_.][A-Za-z0-9_.-]*$/;

/** Whether two projects live in one group or one user's namespace, where names and paths must differ. */
function sameNamespace(a: Project, b: Project): boolean {
  const [x, y] = [a.namespace, b.namespace];
  if (x.kind === 'group' && y.kind === 'group') return x.group === y.group;
  if (x.kind === 'user' && y.kind === 'user') return x.user === y.user;
  return false;
}

const singleParams = z.object({
  ...optionalParams(param.boolean, 'statistics', 'license', 'with_custom_attributes'),
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

  // Beyond the spec (Projects API: Edit a project), the part that renames: maintainers and up change the name, the
  // path (the old full path then redirects to the project, as the service keeps it) and the description. A name or
  // path another project of the namespace has is refused as the service's validation refuses it.
  router.route('PUT', '/projects/:id', { params: editParams, auth: 'user' }, async (req, res) => {
    const project = writableProject(ctx, req, ACCESS.maintainer);
    const p = req.params;
    if (UPDATABLE.every((name) => p[name] === undefined))
      throw paramError(`${UPDATABLE.join(', ')} are missing, at least one parameter must be provided`);
    const neighbours = ctx.store.projects.filter((other) => other !== project && sameNamespace(other, project));
    const taken = (field: 'name' | 'path', value: string) =>
      neighbours.some((other) => other[field].toLowerCase() === value.toLowerCase());
    const errors: Record<string, string[]> = {};
    if (p.name !== undefined && p.name.trim() === '') errors.name = ["can't be blank"];
    else if (p.name !== undefined && taken('name', p.name)) errors.name = ['has already been taken'];
    if (p.path !== undefined && (!PROJECT_PATH.test(p.path) || /\.(git|atom)$/i.test(p.path)))
      errors.path = [
        "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'",
      ];
    else if (p.path !== undefined && taken('path', p.path)) errors.path = ['has already been taken'];
    if (Object.keys(errors).length > 0) throw validationError(errors);
    const before = project.full_path;
    ctx.store.renameProject(project, { name: p.name, path: p.path });
    if (p.description !== undefined) project.description = p.description;
    project.last_activity_at = new Date(ctx.store.clock.now());
    if (project.full_path !== before) ctx.log(`project ${before} renamed to ${project.full_path}`);
    const [view] = await renderProjects(ctx, req.user, [project], {});
    res.json(view);
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
