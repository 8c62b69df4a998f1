// Commits area: list and read commits, make multi-file commits, cherry-pick, revert, diffs and commit comments.
import { z } from 'zod';
import { defineOperation, fields } from './define.js';

const commitSha = () => z.string().min(1).describe('Commit SHA, or a branch or tag name for its tip commit.');

const authorShape = {
  author_email: z.string().min(1).optional().describe('Commit author email (default: the token\'s user).'),
  author_name: z.string().min(1).optional().describe('Commit author name (default: the token\'s user).'),
};

/** Actions whose file keeps (or loses) its content without a `content` field. */
const CONTENTLESS_ACTIONS = new Set(['delete', 'chmod', 'move']);

const commitAction = z.strictObject({
  action: z.enum(['create', 'delete', 'move', 'update', 'chmod']).describe('What to do with the file.'),
  file_path: z.string().min(1).describe('Path of the file, e.g. "src/app.ts" (for move: the new path).'),
  previous_path: z.string().min(1).optional().describe('move only: the path the file is moved from.'),
  content: z.string().optional().describe(
    'The whole file content (not a diff). Required for create and update; optional for move (omitted keeps ' +
    'the content); not used by delete and chmod.',
  ),
  encoding: z.enum(['text', 'base64']).optional().describe('How `content` is written: "text" (default) or "base64".'),
  last_commit_id: z.string().min(1).optional()
    .describe('update, move, delete: the last commit of the file you read; the commit is refused if it changed since.'),
  execute_filemode: z.boolean().optional().describe('chmod only: true makes the file executable, false removes that.'),
}).superRefine((action, ctx) => {
  if (action.content === undefined && !CONTENTLESS_ACTIONS.has(action.action)) {
    ctx.addIssue({ code: 'custom', path: ['content'], message: `content is required for action "${action.action}"` });
  }
  if (action.action === 'move' && action.previous_path === undefined) {
    ctx.addIssue({ code: 'custom', path: ['previous_path'], message: 'previous_path is required for action "move"' });
  }
  if (action.action === 'chmod' && action.execute_filemode === undefined) {
    ctx.addIssue({ code: 'custom', path: ['execute_filemode'], message: 'execute_filemode is required for action "chmod"' });
  }
});

/** The parts of a create_commit a human must approve, or undefined when it only adds to the history. */
function commitRisks(input: {
  id: string | number; branch: string; force?: boolean; start_branch?: string; start_sha?: string;
  start_project?: string | number; actions: Array<{ action: string; file_path: string; previous_path?: string }>;
}): string | undefined {
  const risks: string[] = [];
  const base = input.start_branch ?? input.start_sha;
  const baseProject = input.start_project !== undefined && String(input.start_project) !== String(input.id)
    ? input.start_project : undefined;
  if (input.force === true) {
    risks.push(`force: branch "${input.branch}" is replaced by one new commit based on ` +
      `${base ? `"${base}"` : 'its start'}${baseProject !== undefined ? ` of project "${baseProject}"` : ''}; ` +
      `commits only on "${input.branch}" are lost for good`);
  } else if (baseProject !== undefined) {
    risks.push(`it copies the tree of project "${baseProject}"${base ? ` at "${base}"` : ''} into branch ` +
      `"${input.branch}" of project "${input.id}", where that project's readers will see it`);
  }
  const removed = input.actions.filter((a) => a.action === 'delete' || a.action === 'move');
  if (removed.length > 0) {
    const list = removed.map((a) => (a.action === 'move' ? `moves "${a.previous_path}" to "${a.file_path}"` : `deletes "${a.file_path}"`));
    risks.push(`it ${list.join(', ')} (the history keeps the old files)`);
  }
  return risks.length > 0 ? `Asks you because ${risks.join('; and ')}.` : undefined;
}

export const commitsOperations = [
  defineOperation({
    name: 'list_commits',
    chat: 'commit list',
    area: 'commits',
    title: 'List commits',
    description:
      'List commits, newest first, of a branch, tag or range (e.g. "main", "v1.0..main"), optionally only ' +
      'those touching a path or within a time window. Each commit has id, short_id, title, message, ' +
      'author and committer, dates and parent_ids; with_stats adds line counts.',
    route: 'GET /projects/:id/repository/commits',
    input: z.object({
      id: fields.projectId(),
      ref_name: z.string().min(1).optional()
        .describe('Branch, tag or revision range such as "v1.0..main" (default: the default branch).'),
      since: fields.dateTime('Only commits at or after this time').optional(),
      until: fields.dateTime('Only commits at or before this time').optional(),
      path: z.string().min(1).optional().describe('Only commits touching this file or directory.'),
      all: z.boolean().optional().describe('List commits of every branch and tag instead of one ref.'),
      with_stats: z.boolean().optional().describe('Add stats (additions, deletions, total) to each commit.'),
      first_parent: z.boolean().optional().describe('Follow only the first parent of merge commits.'),
      order: z.enum(['default', 'topo']).optional()
        .describe('"default" (the default): reverse chronological; "topo": no parent before all of its children.'),
    }),
    effect: 'read',
    pagination: 'offset',
  }),
  defineOperation({
    name: 'create_commit',
    chat: 'commit create',
    area: 'commits',
    title: 'Create commit',
    description:
      'Make one commit that creates, updates, moves, deletes or chmods several files at once. Each action ' +
      'carries the WHOLE new content of its file, not a diff. To commit to a new branch, give start_branch or ' +
      'start_sha. force=true REPLACES the branch with a single new commit on top of start_branch/start_sha, ' +
      'discarding the branch\'s own commits. Deleting or moving files, force, or a start_project other than ' +
      'this one ask a human to confirm. Returns the new commit with stats.',
    route: 'POST /projects/:id/repository/commits',
    input: z.object({
      id: fields.projectId(),
      branch: z.string().min(1)
        .describe('Branch to commit to; with start_branch or start_sha it is created from that start.'),
      commit_message: z.string().min(1).describe('Commit message.'),
      start_branch: z.string().min(1).optional()
        .describe('Branch to start the new branch (or forced commit) from; give this or start_sha, not both.'),
      start_sha: z.string().min(1).optional()
        .describe('Commit SHA to start the new branch (or forced commit) from; give this or start_branch, not both.'),
      start_project: z.union([z.number().int().positive(), z.string().min(1)]).optional()
        .describe('Project ID or full path that start_branch/start_sha belong to (default: this project, e.g. for a fork).'),
      actions: z.array(commitAction).min(1).describe('The file changes of the commit, applied in order.'),
      ...authorShape,
      stats: z.boolean().optional().describe('Include line stats in the answer (default true).'),
      force: z.boolean().optional().describe(
        'Overwrite `branch` with a new commit based on start_branch or start_sha, dropping its own commits.',
      ),
    }),
    effect: 'write',
    undo: 'Adds one commit; earlier versions stay in the history and revert_commit undoes it. Asks a human when it ' +
      'deletes or moves files (as delete_file does), copies another project\'s tree, or forces (force drops the ' +
      'branch\'s own commits for good).',
    confirm: commitRisks,
  }),
  defineOperation({
    name: 'get_commit',
    chat: 'commit get',
    area: 'commits',
    title: 'Get commit',
    description:
      'Read one commit by SHA, branch or tag: id, title, message, author, committer, dates, parent_ids, ' +
      'stats (additions/deletions) and its last_pipeline (id, ref, sha, status).',
    route: 'GET /projects/:id/repository/commits/:sha',
    input: z.object({
      id: fields.projectId(),
      sha: commitSha(),
      stats: z.boolean().optional().describe('Include line stats (default true).'),
    }),
    effect: 'read',
  }),
  defineOperation({
    name: 'list_commit_refs',
    chat: 'commit refs',
    area: 'commits',
    title: 'List branches and tags containing a commit',
    description:
      'List the branches and/or tags a commit is reachable from, e.g. to see whether a fix has shipped in a ' +
      'release tag. Each entry has type ("branch" or "tag") and name.',
    route: 'GET /projects/:id/repository/commits/:sha/refs',
    input: z.object({
      id: fields.projectId(),
      sha: z.string().min(1).describe('Commit SHA.'),
      type: z.enum(['branch', 'tag', 'all']).optional().describe('Which refs to list (default all).'),
    }),
    effect: 'read',
    pagination: 'offset',
  }),
  defineOperation({
    name: 'cherry_pick_commit',
    chat: 'commit cherry-pick',
    area: 'commits',
    title: 'Cherry-pick commit',
    description:
      'Apply the changes of an existing commit onto the tip of a branch as a new commit. Returns the new ' +
      'commit. Fails with error_code "empty" when the branch already has the change, or "conflict" when it ' +
      'does not apply cleanly.',
    route: 'POST /projects/:id/repository/commits/:sha/cherry_pick',
    input: z.object({
      id: fields.projectId(),
      sha: commitSha(),
      branch: z.string().min(1).describe('Branch to cherry-pick the commit onto.'),
    }),
    effect: 'write',
    undo: 'Adds one commit to the branch; revert_commit undoes it.',
  }),
  defineOperation({
    name: 'revert_commit',
    chat: 'commit revert',
    area: 'commits',
    title: 'Revert commit',
    description:
      'Undo the changes of a commit on a branch by adding a new commit with the inverse changes (history is ' +
      'kept). Returns the new commit. Fails with error_code "empty" when it was already reverted, or ' +
      '"conflict" when later changes get in the way.',
    route: 'POST /projects/:id/repository/commits/:sha/revert',
    input: z.object({
      id: fields.projectId(),
      sha: z.string().min(1).describe('SHA of the commit to revert.'),
      branch: z.string().min(1).describe('Branch to add the revert commit to.'),
    }),
    effect: 'write',
    undo: 'Adds one commit to the branch; reverting that commit brings the changes back.',
  }),
  defineOperation({
    name: 'get_commit_diff',
    chat: 'commit diff',
    area: 'commits',
    title: 'Get commit diff',
    description:
      'Show the file changes a commit made: one entry per file with old_path, new_path, the unified diff ' +
      'and new_file/renamed_file/deleted_file flags. A diff may be empty when the file exceeds the diff limits.',
    route: 'GET /projects/:id/repository/commits/:sha/diff',
    input: z.object({ id: fields.projectId(), sha: commitSha() }),
    effect: 'read',
    pagination: 'offset',
  }),
  defineOperation({
    name: 'list_commit_comments',
    chat: 'commit comment list',
    area: 'commits',
    title: 'List commit comments',
    // The spec lists only note and author for a listed comment (path and line only in the answer to a new one).
    description: 'List the comments on a commit: each has the note text and its author.',
    route: 'GET /projects/:id/repository/commits/:sha/comments',
    input: z.object({ id: fields.projectId(), sha: commitSha() }),
    effect: 'read',
    pagination: 'offset',
  }),
  defineOperation({
    name: 'create_commit_comment',
    chat: 'commit comment create',
    area: 'commits',
    title: 'Comment on commit',
    description:
      'Add a comment to a commit, optionally on one line of one file. A line comment needs the full commit ' +
      'SHA, path and line; otherwise (or when the line does not exist) the comment is attached to the commit ' +
      'as a whole and path/line come back null. Returns the comment.',
    route: 'POST /projects/:id/repository/commits/:sha/comments',
    input: z.object({
      id: fields.projectId(),
      sha: z.string().min(1).describe('Full commit SHA (a branch or tag attaches the comment to its tip commit, not to a line).'),
      note: z.string().min(1).describe('Comment text (Markdown).'),
      path: z.string().min(1).optional().describe('File the line comment is about.'),
      line: z.number().int().min(1).optional().describe('Line number the comment is about.'),
      line_type: z.enum(['new', 'old']).optional()
        .describe('"new" for a line of the new version of the file, "old" for a removed line.'),
    }),
    effect: 'write',
    undo: 'Adds a comment and changes nothing else; it cannot be removed through this API.',
  }),
];
