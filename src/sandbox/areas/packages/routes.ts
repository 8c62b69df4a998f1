// Packages: a project's list, a group's list (subgroups included unless exclude_subgroups), one package, its files,
// and delete (204, or 404 when missing).
//
// Reading needs what reading the project's code needs: anyone for a public project (so without a token only
// public projects' packages are listed), any signed-in user for an internal one, reporter (20) and up for a private
// one. A group's list holds only the packages of projects the caller may read so. Deleting needs maintainer (40),
// checked before the package is looked up; `_links.delete_api_path` is sent only to callers who may delete.
// The project list carries the spec's list fields only; the group list and the single read add `_links` and
// `build_info.pipeline` (the pipeline's list form, or build_info null for a package uploaded by hand).
import { z } from 'zod';
import { CODE_ACCESS, type SandboxContext } from '../../core/context.js';
import { notFound } from '../../core/errors.js';
import { paginate } from '../../core/paginate.js';
import { param } from '../../core/params.js';
import { integerPathParam, type Router, type SandboxRequest } from '../../core/router.js';
import { PACKAGE_DELETE_ACCESS, type Package } from './state.js';
import type { Project, User } from '../../core/store.js';
import { pickFields, pipelineBasic, projectWebUrl } from '../../core/views.js';
import { packagesOf } from './state.js';

const iso = (date: Date) => date.toISOString();

function packageBasic(pkg: Package) {
  return { ...pickFields(pkg, ['id', 'name', 'version', 'package_type']), created_at: iso(pkg.created_at) };
}

/** Oldest first, as the service orders packages by default (created_at ascending). */
const byCreation = (a: Package, b: Package) => a.created_at.getTime() - b.created_at.getTime() || a.id - b.id;

export function register(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;
  const mayRead = (user: User | null, project: Project) =>
    store.canSeeProject(user, project) && ctx.canReadCode(user, project);

  function packageDetailed(user: User | null, project: Project, pkg: Package) {
    const pipeline = pkg.pipeline_id === null ? undefined : project.pipelines.find((p) => p.id === pkg.pipeline_id);
    const mayDelete = ctx.projectAccess(user, project) >= PACKAGE_DELETE_ACCESS;
    return {
      ...packageBasic(pkg),
      _links: {
        web_path: `${new URL(projectWebUrl(store, project)).pathname}/-/packages/${pkg.id}`,
        ...(mayDelete ? { delete_api_path: `${store.baseUrl}/api/v4/projects/${project.id}/packages/${pkg.id}` } : {}),
      },
      build_info: pipeline ? { pipeline: pipelineBasic(store, project, pipeline) } : null,
    };
  }

  const readableProject = (req: SandboxRequest<unknown>) =>
    ctx.findProjectFor(req, req.pathParams.id, { minAccess: CODE_ACCESS });

  function findPackage(req: SandboxRequest<unknown>, project: Project): Package {
    const id = integerPathParam(req, 'package_id');
    const pkg = packagesOf(store).find((p) => p.id === id && p.project_id === project.id);
    if (!pkg) throw notFound('Package');
    return pkg;
  }

  router.route('GET', '/projects/:id/packages', { pagination: 'offset' }, (req, reply) => {
    const project = readableProject(req);
    const packages = packagesOf(store)
      .filter((p) => p.project_id === project.id)
      .sort(byCreation);
    reply.json(paginate(req, reply, packages).map(packageBasic));
  });

  router.route(
    'GET',
    '/groups/:id/packages',
    {
      params: z.object({ exclude_subgroups: param.boolean().optional() }),
      pagination: 'offset',
    },
    (req, reply) => {
      const group = ctx.findGroupFor(req, req.pathParams.id);
      const groups = req.params.exclude_subgroups ? [group] : [group, ...store.descendantGroups(group)];
      const projects = new Map(
        store.projects
          .filter((p) => p.namespace.kind === 'group' && groups.includes(p.namespace.group) && mayRead(req.user, p))
          .map((p) => [p.id, p]),
      );
      const packages = packagesOf(store)
        .filter((p) => projects.has(p.project_id))
        .sort(byCreation);
      reply.json(paginate(req, reply, packages).map((p) => packageDetailed(req.user, projects.get(p.project_id)!, p)));
    },
  );

  router.route('GET', '/projects/:id/packages/:package_id', {}, (req, reply) => {
    const project = readableProject(req);
    reply.json(packageDetailed(req.user, project, findPackage(req, project)));
  });

  router.route('GET', '/projects/:id/packages/:package_id/package_files', { pagination: 'offset' }, (req, reply) => {
    const project = readableProject(req);
    const pkg = findPackage(req, project);
    reply.json(
      paginate(req, reply, pkg.files).map((file) => ({
        id: file.id,
        package_id: pkg.id,
        created_at: iso(file.created_at),
        file_name: file.file_name,
        size: file.size,
        file_md5: file.file_md5,
        file_sha1: file.file_sha1,
      })),
    );
  });

  router.route('DELETE', '/projects/:id/packages/:package_id', { auth: 'user' }, (req, reply) => {
    const project = ctx.findProjectFor(req, req.pathParams.id, { minAccess: PACKAGE_DELETE_ACCESS, write: true });
    const pkg = findPackage(req, project);
    packagesOf(store).splice(packagesOf(store).indexOf(pkg), 1);
    reply.empty(204);
  });
}
