// What every route module gets: the store, the data directory, a logger and the access helpers that apply
// authentication, visibility (404 for what the caller may not see) and permissions (403).
import { forbidden, notFound, unauthorized } from './errors.js';
import type { z } from 'zod';
import type { Reply, Router, SandboxRequest } from './router.js';
import { ACCESS, type Group, type Project, type Store, type User } from './store.js';

/** A required access level, fixed or depending on the project or group (e.g. reporter on private ones only). */
type AccessRequirement<T> = number | ((target: T) => number);

interface AccessOptions<T> {
  /** The caller's effective access must be at least this (10 guest … 50 owner); admins always pass. */
  minAccess?: AccessRequirement<T>;
}

interface ProjectAccessOptions extends AccessOptions<Project> {
  /**
   * The request changes the project: an archived project (read-only) refuses it with 403
   * {"message": "403 Forbidden - the project is archived and read-only"}, after the access checks.
   */
  write?: boolean;
}

/**
 * Access needed to read a project's code (files, commits, and whatever shows them, such as a release's commit):
 * any viewer of a public or internal project, reporter and up on a private one (its guests see no code, as on
 * the service).
 */
export const CODE_ACCESS: AccessRequirement<Project> = (project) =>
  project.visibility === 'private' ? ACCESS.reporter : 0;

export interface SandboxContext {
  store: Store;
  log(line: string): void;
  /** The caller, or 401 {"message": "401 Unauthorized"} for an anonymous request. */
  requireUser(req: SandboxRequest<unknown>): User;
  /** Effective access to a project, admins counting as owners (0 when none). */
  projectAccess(user: User | null, project: Project): number;
  groupAccess(user: User | null, group: Group): number;
  /** Whether the caller may read the code of a project they can see (CODE_ACCESS). */
  canReadCode(user: User | null, project: Project): boolean;
  /**
   * The project named by `idParam` (numeric id or decoded full path). Not visible to the caller → 404
   * {"message": "404 Project Not Found"}; visible but below minAccess → 401 when anonymous, else 403; a write
   * to an archived project → 403.
   */
  findProjectFor(req: SandboxRequest<unknown>, idParam: string, options?: ProjectAccessOptions): Project;
  /** The same for groups: 404 {"message": "404 Group Not Found"}, then 401/403. */
  findGroupFor(req: SandboxRequest<unknown>, idParam: string, options?: AccessOptions<Group>): Group;
}

export function createContext(store: Store, log: (line: string) => void): SandboxContext {
  const projectAccess = (user: User | null, project: Project) =>
    user?.is_admin ? ACCESS.owner : store.projectAccess(user, project);
  const groupAccess = (user: User | null, group: Group) =>
    user?.is_admin ? ACCESS.owner : store.groupAccess(user, group);

  function requireUser(req: SandboxRequest<unknown>): User {
    if (!req.user) throw unauthorized();
    return req.user;
  }

  const requiredAccess = <T>(target: T, requirement: AccessRequirement<T> | undefined) =>
    typeof requirement === 'function' ? requirement(target) : (requirement ?? 0);

  function checkAccess<T>(req: SandboxRequest<unknown>, target: T, level: number, options: AccessOptions<T>): void {
    const required = requiredAccess(target, options.minAccess);
    if (required <= 0) return;
    requireUser(req);
    if (level < required) throw forbidden();
  }

  return {
    store,
    log,
    requireUser,
    projectAccess,
    groupAccess,
    canReadCode: (user, project) => projectAccess(user, project) >= requiredAccess(project, CODE_ACCESS),
    findProjectFor(req, idParam, options = {}) {
      const project = store.findProject(idParam);
      if (!project || !store.canSeeProject(req.user, project)) throw notFound('Project');
      checkAccess(req, project, projectAccess(req.user, project), options);
      if (options.write && project.archived) throw forbidden('the project is archived and read-only');
      return project;
    },
    findGroupFor(req, idParam, options = {}) {
      const group = store.findGroup(idParam);
      if (!group || !store.canSeeGroup(req.user, group)) throw notFound('Group');
      checkAccess(req, group, groupAccess(req.user, group), options);
      return group;
    },
  };
}

/** A project whose code the caller may read: any visible project, private ones from reporter up (CODE_ACCESS). */
export function readableProject(
  ctx: SandboxContext,
  req: SandboxRequest<unknown>,
  idParam = req.pathParams.id,
): Project {
  return ctx.findProjectFor(req, idParam, { minAccess: CODE_ACCESS });
}

/**
 * GET `pattern`, an offset-paged list read from a project's repository: `list` gets the project, which the caller
 * may read the code of (readableProject), and answers with paginate().
 */
export function codeListRoute<S extends z.ZodObject>(
  router: Router,
  ctx: SandboxContext,
  pattern: string,
  params: S,
  list: (project: Project, req: SandboxRequest<z.output<S>>, reply: Reply) => Promise<void>,
): void {
  router.route('GET', pattern, { params, pagination: 'offset' }, async (req, reply) => {
    await list(readableProject(ctx, req), req, reply);
  });
}

/** A project the caller may change: signed in, at `minAccess` or above (developer by default), and not archived. */
export function writableProject(
  ctx: SandboxContext,
  req: SandboxRequest<unknown>,
  minAccess: number = ACCESS.developer,
): Project {
  ctx.requireUser(req);
  return ctx.findProjectFor(req, req.pathParams.id, { minAccess, write: true });
}
