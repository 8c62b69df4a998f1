// Branches routes (the service's REST API v4): branch records read from the project's git repository (as
// ./branch-view.ts shows them), protections kept by the core (../../core/protected-branches.ts), which every push
// obeys; their own routes are ./protected-routes.ts.
//
// Access, as the service's permission table and pre-receive checks have it: reading follows the code (any viewer
// of a public or internal project, reporters and up on a private one); creating and deleting a branch take
// developer access (push), a protected branch more (creating one: push or merge rights on it; deleting one: a
// maintainer; the default branch: nobody); deleting merged branches takes push access and spares protected
// branches and those of open merge requests; protecting and unprotecting take a maintainer.
import { z } from 'zod';
import { codeListRoute, readableProject, writableProject, type SandboxContext } from '../../core/context.js';
import { messageError, notFound, paramError } from '../../core/errors.js';
import { paginate } from '../../core/paginate.js';
import { matchesSearch } from '../../core/params.js';
import { branchPermissions, protectionsFor, PROTECTED_BRANCH_REFUSALS } from '../../core/protected-branches.js';
import { registerAll, type Router } from '../../core/router.js';
import { ACCESS, type Project, type User } from '../../core/store.js';
import { GitActionError } from '../../git/errors.js';
import { refNameProblem } from '../../git/repo.js';
import { openMergeRequestBranches } from '../work-items/index.js';
import { branchHeads, createBranch, deleteBranch, mergedInto } from './git.js';
import { branchRegex } from './regex.js';
import { registerProtectedBranches } from './protected-routes.js';
import { branchViews } from './branch-view.js';

/** The branch list's path: each branch has its path below it. */
const BRANCHES = '/projects/:id/repository/branches';
const listParams = z.object({ search: z.string().optional(), regex: z.string().optional() });
const createParams = z.object({ branch: z.string(), ref: z.string() });

/**
 * Creating a branch a protection covers: those who may push to it may; those who may only merge to it may
 * start it from a commit already on a protected branch; anyone else is refused as by the service's pre-receive
 * check (400 through the API).
 */
async function checkProtectedCreation(
  ctx: SandboxContext,
  project: Project,
  user: User,
  branch: string,
  sha: string,
): Promise<void> {
  const may = branchPermissions(ctx.store, project, user, ctx.projectAccess(user, project), branch);
  if (!may.protected || may.push) return;
  if (may.merge) {
    const holders = (
      await project.repo.text(['for-each-ref', `--contains=${sha}`, '--format=%(refname:strip=2)', 'refs/heads/'])
    )
      .split('\n')
      .filter((name) => name !== '');
    if (holders.some((name) => protectionsFor(ctx.store, project, name).length > 0)) return;
  }
  throw messageError(400, PROTECTED_BRANCH_REFUSALS.create);
}

export const register = registerAll(registerBranches, registerProtectedBranches);

/** Branches: list, read, create, delete, delete merged. */
function registerBranches(router: Router, ctx: SandboxContext): void {
  codeListRoute(router, ctx, BRANCHES, listParams, async (project, req, reply) => {
    const { search, regex } = req.params;
    if (search !== undefined && regex !== undefined) throw paramError('search, regex are mutually exclusive');
    const pattern = regex === undefined || regex === '' ? undefined : branchRegex(regex);
    const heads = [...(await branchHeads(project.repo))].filter(
      ([name]) => matchesSearch(name, search) && (pattern === undefined || pattern.test(name)),
    );
    heads.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const page = paginate(req, reply, heads);
    reply.json(await branchViews({ ctx, project, user: req.user }, page));
  });

  router.route('GET', `${BRANCHES}/:branch`, {}, async (req, reply) => {
    const project = readableProject(ctx, req);
    const name = req.pathParams.branch;
    if (refNameProblem(name) !== null) throw messageError(400, 'The branch refname is invalid');
    const sha = await project.repo.refTarget(`refs/heads/${name}`);
    if (sha === null) throw notFound('Branch');
    const [view] = await branchViews({ ctx, project, user: req.user }, [[name, sha]]);
    reply.json(view);
  });

  router.route('POST', BRANCHES, { auth: 'user', params: createParams }, async (req, reply) => {
    const project = writableProject(ctx, req, ACCESS.developer);
    const { branch, ref } = req.params;
    if (refNameProblem(branch) !== null) throw messageError(400, 'Branch name is invalid');
    const sha = await project.repo.resolveCommit(ref);
    if (sha === null) throw messageError(400, `Invalid reference name: ${ref}`);
    await checkProtectedCreation(ctx, project, req.user!, branch, sha);
    try {
      await createBranch(project.repo, branch, sha);
    } catch (error) {
      if (error instanceof GitActionError) throw messageError(400, error.message);
      throw error;
    }
    ctx.log(`branch ${branch} created in ${project.full_path} at ${sha}`);
    const [view] = await branchViews({ ctx, project, user: req.user }, [[branch, sha]]);
    reply.json(view, 201);
  });

  router.route('DELETE', `${BRANCHES}/:branch`, { auth: 'user' }, async (req, reply) => {
    const project = writableProject(ctx, req, ACCESS.developer);
    const name = req.pathParams.branch;
    if (refNameProblem(name) !== null) throw messageError(400, 'The branch refname is invalid');
    const sha = await project.repo.refTarget(`refs/heads/${name}`);
    if (sha === null) throw notFound('Branch');
    // The service's pre-receive check: the default branch never goes, a protected one only by a maintainer's hand.
    if (name === (await project.repo.defaultBranch())) throw messageError(400, PROTECTED_BRANCH_REFUSALS.deleteDefault);
    if (!branchPermissions(ctx.store, project, req.user, ctx.projectAccess(req.user, project), name).delete) {
      throw messageError(400, PROTECTED_BRANCH_REFUSALS.delete);
    }
    await deleteBranch(project.repo, name, sha);
    ctx.log(`branch ${name} deleted from ${project.full_path}`);
    reply.empty(204);
  });

  router.route('DELETE', '/projects/:id/repository/merged_branches', { auth: 'user' }, async (req, reply) => {
    const project = writableProject(ctx, req, ACCESS.developer);
    const repo = project.repo;
    const defaultBranch = await repo.defaultBranch();
    const heads = await branchHeads(repo);
    if (heads.has(defaultBranch)) {
      const merged = await mergedInto(repo, `refs/heads/${defaultBranch}`);
      // As on the service: protected branches stay, and so do the branches of open merge requests.
      const inReview = openMergeRequestBranches(ctx.store, project);
      for (const [name, sha] of heads) {
        if (
          name === defaultBranch ||
          !merged.has(name) ||
          inReview.has(name) ||
          protectionsFor(ctx.store, project, name).length > 0
        )
          continue;
        await deleteBranch(repo, name, sha);
        ctx.log(`merged branch ${name} deleted from ${project.full_path}`);
      }
    }
    reply.json({ message: '202 Accepted' }, 202);
  });
}
