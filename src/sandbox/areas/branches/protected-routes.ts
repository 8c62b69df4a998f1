// Protected branches routes (the service's REST API v4): list, read, protect and unprotect, a maintainer's to change;
// the protections are kept by the core (../../core/protected-branches.ts), which every push obeys.
import { z } from 'zod';
import { codeListRoute, readableProject, writableProject, type SandboxContext } from '../../core/context.js';
import { messageError, recordNotFound } from '../../core/errors.js';
import { paginate } from '../../core/paginate.js';
import { param } from '../../core/params.js';
import {
  newProtection,
  protectedBranches,
  PROTECTION_LEVELS,
  type ProtectedBranch,
} from '../../core/protected-branches.js';
import type { Router } from '../../core/router.js';
import { ACCESS } from '../../core/store.js';
import { refNameProblem } from '../../git/repo.js';

/** The protected branch list's path: each protection has its path below it. */
const PROTECTED_BRANCHES = '/projects/:id/protected_branches';
const protectedListParams = z.object({ search: z.string().optional() });
const accessLevel = param.integer().refine((level) => (PROTECTION_LEVELS as readonly number[]).includes(level));
const protectParams = z.object({
  name: z.string(),
  push_access_level: accessLevel.optional(),
  merge_access_level: accessLevel.optional(),
  unprotect_access_level: param
    .integer()
    .refine((level) => level !== 0 && (PROTECTION_LEVELS as readonly number[]).includes(level))
    .optional(),
  allow_force_push: param.boolean().optional(),
});

function protectionView(protection: ProtectedBranch) {
  return {
    ...protection,
    push_access_levels: protection.push_access_levels.map((rule) => ({ ...rule })),
    merge_access_levels: protection.merge_access_levels.map((rule) => ({ ...rule })),
  };
}

/** Protected branches: list, read, protect, unprotect. */
export function registerProtectedBranches(router: Router, ctx: SandboxContext): void {
  codeListRoute(router, ctx, PROTECTED_BRANCHES, protectedListParams, async (project, req, reply) => {
    const term = req.params.search?.toLowerCase() ?? '';
    const list = protectedBranches(ctx.store, project).filter((p) => p.name.toLowerCase().includes(term));
    reply.json(paginate(req, reply, list).map(protectionView));
  });

  router.route('GET', `${PROTECTED_BRANCHES}/:name`, {}, async (req, reply) => {
    const project = readableProject(ctx, req);
    const found = protectedBranches(ctx.store, project).find((p) => p.name === req.pathParams.name);
    if (!found) throw recordNotFound();
    reply.json(protectionView(found));
  });

  router.route('POST', PROTECTED_BRANCHES, { auth: 'user', params: protectParams }, async (req, reply) => {
    const project = writableProject(ctx, req, ACCESS.maintainer);
    const { name, push_access_level, merge_access_level, allow_force_push } = req.params;
    if (refNameProblem(name.replace(/\*/g, 'x')) !== null) throw messageError(400, 'Name is invalid');
    const list = protectedBranches(ctx.store, project);
    if (list.some((p) => p.name === name)) throw messageError(409, `Protected branch '${name}' already exists`);
    const protection = newProtection(ctx.store, name, {
      push: push_access_level ?? ACCESS.maintainer,
      merge: merge_access_level ?? ACCESS.maintainer,
      allowForcePush: allow_force_push ?? false,
    });
    list.push(protection);
    ctx.log(`branch ${name} protected in ${project.full_path}`);
    reply.json(protectionView(protection), 201);
  });

  router.route('DELETE', `${PROTECTED_BRANCHES}/:name`, { auth: 'user' }, async (req, reply) => {
    // As the service: the protection is looked up first (404), then the caller's right to lift it checked.
    const list = protectedBranches(ctx.store, readableProject(ctx, req));
    const index = list.findIndex((p) => p.name === req.pathParams.name);
    if (index === -1) throw recordNotFound();
    const project = writableProject(ctx, req, ACCESS.maintainer);
    list.splice(index, 1);
    ctx.log(`branch ${req.pathParams.name} unprotected in ${project.full_path}`);
    reply.empty(204);
  });
}
