// Commit routes: list, read and create commits, the refs containing one, cherry-pick, revert and diff (comments are
// ./commit-comments-routes.ts).
import { z } from 'zod';
import { codeListRoute, readableProject, writableProject, type SandboxContext } from '../../core/context.js';
import { codedError, paramError } from '../../core/errors.js';
import type { GitCommitInfo } from '../../git/commit-format.js';
import { commitDiff, commitStats } from '../../git/diff.js';
import { GitActionError } from '../../git/errors.js';
import { refsContaining, listCommits } from '../../git/history.js';
import { pickCommit, type PickKind } from '../../git/pick.js';
import { isShaLike, type FileAction, type GitRepo } from '../../git/repo.js';
import { paginate } from '../../core/paginate.js';
import { optionalParams, param } from '../../core/params.js';
import { registerAll, type Router } from '../../core/router.js';
import { checkForce, checkPush } from './push-rules.js';
import { authorOf, commitOf, commitView, decodeContent, gitCall, identityOf, lastPipelineOf } from './shared.js';

import { COMMIT, registerCommitComments } from './commit-comments-routes.js';

const listParams = z.object({
  ref_name: z.string().min(1).optional(),
  since: param.datetime().optional(),
  until: param.datetime().optional(),
  path: z.string().min(1).optional(),
  ...optionalParams(param.boolean, 'all', 'with_stats', 'first_parent'),
  order: param.enum(['default', 'topo']).optional(),
});

const actionParams = z.strictObject({
  action: param.enum(['create', 'delete', 'move', 'update', 'chmod']),
  file_path: z.string().min(1),
  previous_path: z.string().min(1).optional(),
  content: z.string().optional(),
  encoding: param.enum(['text', 'base64']).optional(),
  last_commit_id: z.string().min(1).optional(),
  execute_filemode: param.boolean().optional(),
});

const createParams = z.object({
  branch: z.string().min(1),
  commit_message: z.string().min(1),
  start_branch: z.string().min(1).optional(),
  start_sha: z.string().refine(isShaLike).optional(),
  start_project: z.union([param.integer(), z.string().min(1)]).optional(),
  actions: param.array(actionParams),
  author_email: z.string().optional(),
  author_name: z.string().min(1).optional(),
  stats: param.boolean().optional(),
  force: param.boolean().optional(),
});

const showParams = z.object({ stats: param.boolean().optional() });
const refsParams = z.object({ type: param.enum(['branch', 'tag', 'all']).optional() });
// The vendor's parameters: dry_run on both, a custom message on cherry-pick only (revert has none).
const pickParams = z.object({
  branch: z.string().min(1),
  dry_run: param.boolean().optional(),
  message: z.string().optional(),
});
/** Commits with their stats added (one git process for all of them). */
async function withStats(repo: GitRepo, commits: GitCommitInfo[]) {
  const stats = await commitStats(
    repo,
    commits.map((commit) => commit.id),
  );
  return commits.map((commit) => ({
    ...commitView(commit),
    stats: stats.get(commit.id) ?? { additions: 0, deletions: 0, total: 0 },
  }));
}

export const register = registerAll(registerCommitLists, registerCommitReads, registerCommitComments);

/** Listing and creating commits. */
function registerCommitLists(router: Router, ctx: SandboxContext): void {
  codeListRoute(router, ctx, '/projects/:id/repository/commits', listParams, async (project, req, reply) => {
    const { params } = req;
    const commits = await gitCall(() =>
      listCommits(project.repo, {
        ref: params.ref_name ?? project.default_branch,
        since: params.since,
        until: params.until,
        path: params.path,
        all: params.all,
        firstParent: params.first_parent,
        order: params.order,
      }),
    );
    const page = paginate(req, reply, commits);
    const entries = params.with_stats ? await withStats(project.repo, page) : page.map(commitView);
    // Every commit record carries status (the spec's field list): its last pipeline's, or null.
    reply.json(entries.map((entry) => ({ ...entry, status: lastPipelineOf(project, entry.id)?.status ?? null })));
  });

  router.route(
    'POST',
    '/projects/:id/repository/commits',
    { params: createParams, auth: 'user' },
    async (req, reply) => {
      const project = writableProject(ctx, req);
      const user = ctx.requireUser(req);
      const { params } = req;
      checkPush(ctx, project, user, params.branch, 403);
      if (params.start_branch !== undefined && params.start_sha !== undefined) {
        throw paramError('start_branch, start_sha are mutually exclusive');
      }
      const startProject =
        params.start_project === undefined ? undefined : readableProject(ctx, req, String(params.start_project));
      const actions: FileAction[] = params.actions.map((action, index) => ({
        action: action.action,
        file_path: action.file_path,
        previous_path: action.previous_path,
        content:
          action.content === undefined
            ? undefined
            : decodeContent(action.content, action.encoding, `actions[${index}][content]`),
        execute_filemode: action.execute_filemode,
        last_commit_id: action.last_commit_id,
      }));
      // As on the service, a start project without a start ref starts from the branch of the same name there.
      const startRef =
        params.start_branch ?? params.start_sha?.toLowerCase() ?? (startProject ? params.branch : undefined);
      if (params.force === true && startRef !== undefined) {
        await checkForce(ctx, project, user, params.branch, { repo: (startProject ?? project).repo, ref: startRef });
      }
      const sha = await gitCall(() =>
        project.repo.commit({
          branch: params.branch,
          startRef,
          startRepo: startProject?.repo,
          force: params.force,
          message: params.commit_message,
          author: authorOf(user, params),
          committer: identityOf(user),
          actions,
        }),
      );
      project.last_activity_at = new Date();
      const commit = await gitCall(() => project.repo.getCommit(sha));
      const body = params.stats === false ? commitView(commit) : (await withStats(project.repo, [commit]))[0];
      reply.json({ ...body, status: null }, 201);
    },
  );
}

/** One commit: itself, its refs, its diff and comments. */
function registerCommitReads(router: Router, ctx: SandboxContext): void {
  router.route('GET', COMMIT, { params: showParams }, async (req, reply) => {
    const project = readableProject(ctx, req);
    const commit = await commitOf(project.repo, req.pathParams.sha);
    const body = req.params.stats === false ? commitView(commit) : (await withStats(project.repo, [commit]))[0];
    const lastPipeline = lastPipelineOf(project, commit.id);
    reply.json({ ...body, status: lastPipeline?.status ?? null, last_pipeline: lastPipeline });
  });

  router.route('GET', `${COMMIT}/refs`, { params: refsParams, pagination: 'offset' }, async (req, reply) => {
    const project = readableProject(ctx, req);
    const commit = await commitOf(project.repo, req.pathParams.sha);
    const refs = await refsContaining(project.repo, commit.id, req.params.type ?? 'all');
    reply.json(paginate(req, reply, refs));
  });

  for (const kind of ['cherry_pick', 'revert'] as const satisfies readonly PickKind[]) {
    router.route('POST', `${COMMIT}/${kind}`, { params: pickParams, auth: 'user' }, async (req, reply) => {
      const project = writableProject(ctx, req);
      const user = ctx.requireUser(req);
      checkPush(ctx, project, user, req.params.branch, 403);
      const commit = await commitOf(project.repo, req.pathParams.sha);
      // Refusals carry error_code 'empty' or 'conflict' (the engine's kinds) next to the message.
      const options = {
        dryRun: req.params.dry_run === true,
        message: kind === 'cherry_pick' ? req.params.message : undefined,
      };
      const sha = await gitCall(() =>
        pickCommit(project.repo, kind, commit.id, req.params.branch, identityOf(user), options).catch(
          (error: unknown) => {
            throw error instanceof GitActionError ? codedError(400, error.message, error.kind) : error;
          },
        ),
      );
      // A dry run answers 200 and changes nothing, as the vendor's does.
      if (sha === null) return reply.json({ dry_run: 'success' }, 200);
      project.last_activity_at = new Date();
      reply.json(commitView(await project.repo.getCommit(sha)), 201);
    });
  }

  router.route('GET', `${COMMIT}/diff`, { pagination: 'offset' }, async (req, reply) => {
    const project = readableProject(ctx, req);
    const commit = await commitOf(project.repo, req.pathParams.sha);
    reply.json(paginate(req, reply, await commitDiff(project.repo, commit.id)));
  });
}
