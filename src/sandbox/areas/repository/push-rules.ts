// Protected branches on the repository's writes (the service's push checks): who may push to a branch, and whether
// a forced commit may rewrite it. The commits API refuses a push with 403 before it reads the body; the files API
// tries the commit and refuses with 400, both with the service's words.
import type { SandboxContext } from '../../core/context.js';
import { forbidden, messageError } from '../../core/errors.js';
import { branchPermissions, PROTECTED_BRANCH_REFUSALS } from '../../core/protected-branches.js';
import type { Project, User } from '../../core/store.js';
import type { GitRepo } from '../../git/repo.js';

const NOT_ALLOWED = 'You are not allowed to push into this branch';

/** A push to `branch` the caller may not make: 403 (commits, cherry-pick, revert) or 400 (single-file commits). */
export function checkPush(ctx: SandboxContext, project: Project, user: User, branch: string, refusal: 403 | 400): void {
  if (branchPermissions(ctx.store, project, user, ctx.projectAccess(user, project), branch).push) return;
  throw refusal === 403 ? forbidden(NOT_ALLOWED) : messageError(400, NOT_ALLOWED);
}

/**
 * A forced commit that would drop commits from a protected branch no matching rule opens to force push: 400 with
 * the service's pre-receive message. A force that rewrites nothing (the new commit descends from the head) passes.
 */
export async function checkForce(
  ctx: SandboxContext,
  project: Project,
  user: User,
  branch: string,
  start: { repo: GitRepo; ref: string } | undefined,
): Promise<void> {
  const may = branchPermissions(ctx.store, project, user, ctx.projectAccess(user, project), branch);
  if (!may.protected || may.forcePush) return;
  const head = await project.repo.refTarget(`refs/heads/${branch}`);
  if (head === null || start === undefined) return;
  // A base from another project's history is judged as rewriting: the head cannot be checked against it here.
  const base = start.repo === project.repo ? await project.repo.resolveCommit(start.ref) : null;
  if (base === head) return;
  const kept =
    base === null ? null : await project.repo.run(['merge-base', '--is-ancestor', head, base], { okCodes: [1] });
  if (kept === null || kept.exitCode !== 0) throw messageError(400, PROTECTED_BRANCH_REFUSALS.forcePush);
}
