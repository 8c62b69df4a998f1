// A commit's comments (the Commits API, v4): listed by anyone who reads the code, added by who may comment on it; a
// comment on a line lands there only with a full SHA, an existing path and an existing new line, else on the commit.
import { z } from 'zod';
import { CODE_ACCESS, readableProject, type SandboxContext } from '../../core/context.js';
import { paginate } from '../../core/paginate.js';
import { param } from '../../core/params.js';
import type { Router } from '../../core/router.js';
import type { CommitComment, Store } from '../../core/store.js';
import { authorWithEmail, pickFields } from '../../core/views.js';
import type { GitCommitInfo } from '../../git/commit-format.js';
import { isRepositoryPath, type GitRepo } from '../../git/repo.js';
import { commitOf } from './shared.js';

/** One commit's path: its routes are this and the actions below it. */
export const COMMIT = '/projects/:id/repository/commits/:sha';

// Any path and line are accepted: one that does not exist (line 0, an empty path) makes the comment fall back
// to the whole commit, as the spec's comment rules say, rather than being refused.
const commentParams = z.object({
  note: z.string().min(1),
  path: z.string().optional(),
  line: param.integer().optional(),
  // The spec's one value: "line_type (value `new` for new lines)".
  line_type: param.enum(['new']).optional(),
});

function commentView(store: Store, comment: CommitComment) {
  const author = store.findUser(String(comment.author_id));
  return {
    ...pickFields(comment, ['note', 'path', 'line', 'line_type']),
    author: authorWithEmail(author),
    created_at: comment.created_at.toISOString(),
  };
}

/**
 * Where a line comment lands: only a full SHA, an existing path and an existing (new) line make one; anything
 * else is a comment on the commit as a whole.
 */
async function lineTarget(
  repo: GitRepo,
  shaParam: string,
  commit: GitCommitInfo,
  params: z.output<typeof commentParams>,
): Promise<Pick<CommitComment, 'path' | 'line' | 'line_type'>> {
  const none = { path: null, line: null, line_type: null };
  if (!/^[0-9a-f]{40}$/i.test(shaParam) || params.path === undefined || params.line === undefined) return none;
  const lineType = params.line_type ?? 'new';
  // git would read './x' or '../x' against its working directory and fail: such paths name no file here.
  if (!isRepositoryPath(params.path)) return none;
  const [object] = await repo.readObjects([`${commit.id}:${params.path}`]);
  if (object === null || object.type !== 'blob') return none;
  const text = object.content.toString('utf8');
  const lineCount = text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  return params.line >= 1 && params.line <= lineCount
    ? { path: params.path, line: params.line, line_type: lineType }
    : none;
}

/** Listing and adding a commit's comments. */
export function registerCommitComments(router: Router, ctx: SandboxContext): void {
  router.route('GET', `${COMMIT}/comments`, { pagination: 'offset' }, async (req, reply) => {
    const project = readableProject(ctx, req);
    const commit = await commitOf(project.repo, req.pathParams.sha);
    const comments = project.commitComments.filter((comment) => comment.sha === commit.id);
    reply.json(paginate(req, reply, comments).map((comment) => commentView(ctx.store, comment)));
  });

  router.route('POST', `${COMMIT}/comments`, { params: commentParams, auth: 'user' }, async (req, reply) => {
    const project = ctx.findProjectFor(req, req.pathParams.id, { minAccess: CODE_ACCESS, write: true });
    const user = ctx.requireUser(req);
    const commit = await commitOf(project.repo, req.pathParams.sha);
    const comment: CommitComment = {
      id: ctx.store.nextId('commit_comment'),
      sha: commit.id,
      note: req.params.note,
      author_id: user.id,
      ...(await lineTarget(project.repo, req.pathParams.sha, commit, req.params)),
      created_at: new Date(),
    };
    project.commitComments.push(comment);
    reply.json(commentView(ctx.store, comment), 201);
  });
}
