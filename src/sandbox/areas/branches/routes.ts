// Branches and Protected branches routes (the service's REST API v4): branch records read from the project's
// git repository, protections kept in the area's state.
import { z } from 'zod';
import { readableProject, writableProject, type SandboxContext } from '../../core/context.js';
import { forbidden, messageError, notFound } from '../../core/errors.js';
import { paginate } from '../../core/paginate.js';
import { matchesSearch, param } from '../../core/params.js';
import type { Router } from '../../core/router.js';
import { projectWebUrl } from '../../core/views.js';
import { ACCESS, type Project, type User } from '../../core/store.js';
import type { GitCommitInfo } from '../../git/commit-format.js';
import { GitActionError } from '../../git/errors.js';
import { refNameProblem } from '../../git/repo.js';
import { branchHeads, createBranch, deleteBranch, mergedInto } from './git.js';
import { newProtection, protectedBranches, protectionsFor, type ProtectedBranch } from './state.js';

const searchParams = z.object({ search: z.string().optional() });
const createParams = z.object({ branch: z.string(), ref: z.string() });
const accessLevel = param.integer().refine((level) => [0, 30, 40, 60].includes(level));
const protectParams = z.object({
  name: z.string(),
  push_access_level: accessLevel.optional(),
  merge_access_level: accessLevel.optional(),
  allow_force_push: param.boolean().optional(),
});

interface Ctx {
  ctx: SandboxContext;
  project: Project;
  user: User | null;
}

function levelOf(rules: ProtectedBranch['push_access_levels']): number {
  return Math.min(...rules.map((rule) => rule.access_level).map((level) => (level === 0 ? Infinity : level)));
}

/** Branch records for the named heads, in the order given. */
async function branchViews({ ctx, project, user }: Ctx, heads: Array<[string, string]>): Promise<unknown[]> {
  const repo = project.repo;
  const defaultBranch = await repo.defaultBranch();
  const allHeads = await branchHeads(repo);
  const merged = allHeads.has(defaultBranch) ? await mergedInto(repo, `refs/heads/${defaultBranch}`) : new Set<string>();
  const commits = await repo.getCommits(heads.map(([, sha]) => sha));
  const access = ctx.projectAccess(user, project);
  const webUrl = projectWebUrl(ctx.store, project);
  return heads.map(([name], index) => {
    const protections = protectionsFor(ctx.store, project, name);
    const isProtected = protections.length > 0;
    const pushLevel = isProtected ? Math.min(...protections.map((p) => levelOf(p.push_access_levels))) : ACCESS.developer;
    const mergeLevel = isProtected ? Math.min(...protections.map((p) => levelOf(p.merge_access_levels))) : ACCESS.developer;
    return {
      name,
      commit: commitRecord(commits[index], webUrl),
      merged: name !== defaultBranch && merged.has(name),
      protected: isProtected,
      default: name === defaultBranch,
      developers_can_push: isProtected && pushLevel <= ACCESS.developer,
      developers_can_merge: isProtected && mergeLevel <= ACCESS.developer,
      can_push: !project.archived && access >= ACCESS.developer && access >= pushLevel,
      web_url: `${webUrl}/-/tree/${name.split('/').map(encodeURIComponent).join('/')}`,
    };
  });
}

function commitRecord(commit: GitCommitInfo, projectUrl: string) {
  return { ...commit, parent_ids: [...commit.parent_ids], trailers: {}, extended_trailers: {}, web_url: `${projectUrl}/-/commit/${commit.id}` };
}

function protectionView(protection: ProtectedBranch) {
  return {
    ...protection,
    push_access_levels: protection.push_access_levels.map((rule) => ({ ...rule })),
    merge_access_levels: protection.merge_access_levels.map((rule) => ({ ...rule })),
  };
}

export function register(router: Router, ctx: SandboxContext): void {
  router.route('GET', '/projects/:id/repository/branches', { params: searchParams, pagination: 'offset' }, async (req, reply) => {
    const project = readableProject(ctx, req);
    const heads = [...(await branchHeads(project.repo))].filter(([name]) => matchesSearch(name, req.params.search));
    heads.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const page = paginate(req, reply, heads);
    reply.json(await branchViews({ ctx, project, user: req.user }, page));
  });

  router.route('GET', '/projects/:id/repository/branches/:branch', {}, async (req, reply) => {
    const project = readableProject(ctx, req);
    const name = req.pathParams.branch;
    const sha = refNameProblem(name) === null ? await project.repo.refTarget(`refs/heads/${name}`) : null;
    if (sha === null) throw notFound('Branch');
    const [view] = await branchViews({ ctx, project, user: req.user }, [[name, sha]]);
    reply.json(view);
  });

  router.route('POST', '/projects/:id/repository/branches', { auth: 'user', params: createParams }, async (req, reply) => {
    const project = writableProject(ctx, req, ACCESS.developer);
    const { branch, ref } = req.params;
    if (refNameProblem(branch) !== null) throw messageError(400, 'Branch name is invalid');
    const sha = await project.repo.resolveCommit(ref);
    if (sha === null) throw messageError(400, 'Invalid reference name: ' + ref);
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

  router.route('DELETE', '/projects/:id/repository/branches/:branch', { auth: 'user' }, async (req, reply) => {
    const project = writableProject(ctx, req, ACCESS.maintainer);
    const name = req.pathParams.branch;
    const sha = refNameProblem(name) === null ? await project.repo.refTarget(`refs/heads/${name}`) : null;
    if (sha === null) throw notFound('Branch');
    if (name === (await project.repo.defaultBranch())) throw messageError(400, 'The default branch of a project cannot be deleted.');
    if (protectionsFor(ctx.store, project, name).length > 0) throw forbidden('Protected branch cannot be deleted; unprotect it first');
    await deleteBranch(project.repo, name, sha);
    ctx.log(`branch ${name} deleted from ${project.full_path}`);
    reply.empty(204);
  });

  router.route('DELETE', '/projects/:id/repository/merged_branches', { auth: 'user' }, async (req, reply) => {
    const project = writableProject(ctx, req, ACCESS.maintainer);
    const repo = project.repo;
    const defaultBranch = await repo.defaultBranch();
    const heads = await branchHeads(repo);
    if (heads.has(defaultBranch)) {
      const merged = await mergedInto(repo, `refs/heads/${defaultBranch}`);
      for (const [name, sha] of heads) {
        if (name === defaultBranch || !merged.has(name) || protectionsFor(ctx.store, project, name).length > 0) continue;
        await deleteBranch(repo, name, sha);
        ctx.log(`merged branch ${name} deleted from ${project.full_path}`);
      }
    }
    reply.json({ message: '202 Accepted' }, 202);
  });

  router.route('GET', '/projects/:id/protected_branches', { params: searchParams, pagination: 'offset' }, async (req, reply) => {
    const project = readableProject(ctx, req);
    const list = protectedBranches(ctx.store, project).filter((p) => matchesSearch(p.name, req.params.search));
    reply.json(paginate(req, reply, list).map(protectionView));
  });

  router.route('GET', '/projects/:id/protected_branches/:name', {}, async (req, reply) => {
    const project = readableProject(ctx, req);
    const found = protectedBranches(ctx.store, project).find((p) => p.name === req.pathParams.name);
    if (!found) throw notFound();
    reply.json(protectionView(found));
  });

  router.route('POST', '/projects/:id/protected_branches', { auth: 'user', params: protectParams }, async (req, reply) => {
    const project = writableProject(ctx, req, ACCESS.maintainer);
    const { name, push_access_level, merge_access_level, allow_force_push } = req.params;
    if (refNameProblem(name.replace(/\*/g, 'x')) !== null) throw messageError(400, 'Name is invalid');
    const list = protectedBranches(ctx.store, project);
    if (list.some((p) => p.name === name)) throw messageError(409, `Protected branch '${name}' already exists`);
    const protection = newProtection(ctx.store, name, push_access_level ?? ACCESS.maintainer, merge_access_level ?? ACCESS.maintainer, allow_force_push ?? false);
    list.push(protection);
    ctx.log(`branch ${name} protected in ${project.full_path}`);
    reply.json(protectionView(protection), 201);
  });

  router.route('DELETE', '/projects/:id/protected_branches/:name', { auth: 'user' }, async (req, reply) => {
    const project = writableProject(ctx, req, ACCESS.maintainer);
    const list = protectedBranches(ctx.store, project);
    const index = list.findIndex((p) => p.name === req.pathParams.name);
    if (index === -1) throw notFound();
    list.splice(index, 1);
    ctx.log(`branch ${req.pathParams.name} unprotected in ${project.full_path}`);
    reply.empty(204);
  });
}
