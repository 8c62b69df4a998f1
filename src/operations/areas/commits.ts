// Commits area: list and read commits, make multi-file commits, cherry-pick, revert, diffs and commit comments.
import { z } from 'zod';
import { defineOperation, fields, defineArea } from '../engine/define.js';
import type { Presentation } from '../engine/define.js';
import { asList, asRecord, momentText, shortSha, show } from '../engine/present.js';
import type { RunContext } from '../engine/define.js';
import { buildPath } from '../../http/route.js';
import { serviceGet } from '../engine/effect-facts.js';

const commitSha = () => z.string().min(1).describe('Commit SHA, branch or tag.');

const authorShape = {
  author_email: z.string().min(1).optional(),
  author_name: z.string().min(1).optional(),
};

/** Actions whose file keeps (or loses) its content without a `content` field. */
const CONTENTLESS_ACTIONS = new Set(['delete', 'chmod', 'move']);

const commitAction = z
  .strictObject({
    action: z.enum(['create', 'delete', 'move', 'update', 'chmod']),
    file_path: z.string().min(1).describe('For move: the new path.'),
    previous_path: z.string().min(1).optional().describe('move only: the old path.'),
    content: z
      .string()
      .optional()
      .describe('The whole file, not a diff. For create and update; move keeps it if left out.'),
    encoding: z.enum(['text', 'base64']).optional().describe('Of content; default text.'),
    last_commit_id: z.string().min(1).optional().describe('Refused if the file changed since this commit.'),
    execute_filemode: z.boolean().optional().describe('chmod only: true makes it executable.'),
  })
  .superRefine((action, ctx) => {
    if (action.content === undefined && !CONTENTLESS_ACTIONS.has(action.action)) {
      ctx.addIssue({ code: 'custom', path: ['content'], message: `content is required for action "${action.action}"` });
    }
    if (action.action === 'move' && action.previous_path === undefined) {
      ctx.addIssue({ code: 'custom', path: ['previous_path'], message: 'previous_path is required for action "move"' });
    }
    if (action.action === 'chmod' && action.execute_filemode === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['execute_filemode'],
        message: 'execute_filemode is required for action "chmod"',
      });
    }
  });

/** The parts of a create_commit a human must approve, or undefined when it only adds to the history. */
function commitRisks(input: {
  id: string | number;
  branch: string;
  force?: boolean;
  start_branch?: string;
  start_sha?: string;
  start_project?: string | number;
  actions: Array<{ action: string; file_path: string; previous_path?: string }>;
}): string | undefined {
  const risks: string[] = [];
  const base = input.start_branch ?? input.start_sha;
  const baseProject =
    input.start_project !== undefined && String(input.start_project) !== String(input.id)
      ? input.start_project
      : undefined;
  if (input.force === true) {
    risks.push(
      `force: branch "${input.branch}" is replaced by one new commit based on ` +
        `${base ? `"${base}"` : 'its start'}${baseProject !== undefined ? ` of project "${baseProject}"` : ''}; ` +
        `commits only on "${input.branch}" are lost for good`,
    );
  } else if (baseProject !== undefined) {
    risks.push(
      `it copies the tree of project "${baseProject}"${base ? ` at "${base}"` : ''} into branch ` +
        `"${input.branch}" of project "${input.id}", where that project's readers will see it`,
    );
  }
  const removed = input.actions.filter((a) => a.action === 'delete' || a.action === 'move');
  if (removed.length > 0) {
    const list = removed.map((a) =>
      a.action === 'move' ? `moves "${a.previous_path}" to "${a.file_path}"` : `deletes "${a.file_path}"`,
    );
    risks.push(`it ${list.join(', ')} (the history keeps the old files)`);
  }
  return risks.length > 0 ? `Asks you because ${risks.join('; and ')}.` : undefined;
}

/** "Alice Martin <alice@acme.example>": a commit's person, as git shows them. */
function personOf(name: unknown, email: unknown): string {
  const shownName = typeof name === 'string' && name !== '' ? name : undefined;
  const shownEmail = typeof email === 'string' && email !== '' ? `<${email}>` : undefined;
  return [shownName, shownEmail].filter((part) => part !== undefined).join(' ') || '—';
}

/**
 * One commit for people: its title, the commit, one "author, date" line (the committer on a line of their own only
 * when someone else committed it, as after a cherry-pick by another), its stats and last pipeline, and its message
 * when it says more than the title — not the service's nine author and committer fields.
 */
export function presentCommit(data: unknown): Presentation {
  const commit = asRecord(data);
  const author = personOf(commit.author_name, commit.author_email);
  const committer = personOf(commit.committer_name, commit.committer_email);
  const fields: Array<[string, string]> = [
    ['commit', shortSha(commit.id)],
    ['author', `${author}, ${momentText(commit.authored_date ?? commit.created_at)}`],
  ];
  if (committer !== author && committer !== '—')
    fields.push(['committer', `${committer}, ${momentText(commit.committed_date)}`]);
  const stats = asRecord(commit.stats);
  if (typeof stats.additions === 'number' && typeof stats.deletions === 'number')
    fields.push(['changes', `+${stats.additions} −${stats.deletions}`]);
  const pipeline = asRecord(commit.last_pipeline);
  if (pipeline.id !== undefined) fields.push(['pipeline', `#${show(pipeline.id)} ${show(pipeline.status)}`]);
  const started = asRecord(commit.started_pipeline);
  if (started.id !== undefined)
    fields.push(['pipeline', `#${show(started.id)} started on ${show(started.ref)}: ${show(started.status)}`]);
  const message = typeof commit.message === 'string' ? commit.message.trim() : '';
  const more = message !== '' && message !== String(commit.title ?? '').trim();
  return {
    title: `Commit ${shortSha(commit.id)}: ${show(commit.title)}`,
    fields,
    ...(more ? { sections: [{ title: 'message', text: message }] } : {}),
  };
}

/**
 * The pipeline the service started on the branch for a commit just made (a direct revert): the branch's latest
 * pipeline for that commit, read once right after; none when the service started none.
 */
const startedPipeline = {
  async after(ctx: RunContext, input: { id: string | number; branch: string }, data: unknown) {
    const commit = asRecord(data);
    if (typeof commit.id !== 'string' || data !== commit) return data;
    const path = buildPath('/projects/:id/pipelines', { id: input.id });
    const [latest] = asList(await serviceGet(ctx, path, { ref: input.branch, sha: commit.id, per_page: '1' }));
    if (latest?.id === undefined) return data;
    const started = { id: latest.id, status: latest.status, ref: latest.ref, web_url: latest.web_url };
    return { ...commit, started_pipeline: started };
  },
};

// The diff and the comments of a commit are read by the same input, shown on the demo project's main head.
const oneCommit = z.object({ id: fields.projectId(), sha: commitSha() });
const mainHead = { id: 'acme/web', sha: 'main' };

const commitsOperations = [
  defineOperation({
    name: 'list_commits',
    chat: 'commit list',
    area: 'commits',
    title: 'List commits',
    description: 'List the commits of a branch, tag or range, newest first, optionally by path or time window.',
    route: 'GET /projects/:id/repository/commits',
    input: z.object({
      id: fields.projectId(),
      ref_name: z
        .string()
        .min(1)
        .optional()
        .describe('Branch, tag or range such as "v1.0..main"; default branch if left out.'),
      since: fields.dateTime().optional(),
      until: fields.dateTime().optional(),
      path: z.string().min(1).optional().describe('File or directory.'),
      all: z.boolean().optional().describe('Every branch and tag.'),
      with_stats: z.boolean().optional(),
      first_parent: z.boolean().optional(),
      order: z.enum(['default', 'topo']).optional().describe('default: by date; topo: no parent before its children.'),
    }),
    effect: 'read',
    pagination: 'offset',
    examples: [{ input: { id: 'acme/web', with_stats: true } }],
  }),
  defineOperation({
    name: 'create_commit',
    chat: 'commit create',
    area: 'commits',
    title: 'Create commit',
    description:
      'Make one commit that creates, updates, moves, deletes or chmods several files; each action carries the ' +
      'WHOLE new file, not a diff. Deletes, moves, force and another start_project ask a human first.',
    route: 'POST /projects/:id/repository/commits',
    input: z.object({
      id: fields.projectId(),
      branch: z.string().min(1).describe('Created from start_branch or start_sha if given.'),
      commit_message: z.string().min(1),
      start_branch: z
        .string()
        .min(1)
        .optional()
        .describe('Start of a new branch or forced commit; not with start_sha.'),
      start_sha: z
        .string()
        .min(1)
        .optional()
        .describe('Start of a new branch or forced commit; not with start_branch.'),
      start_project: z
        .union([z.number().int().positive(), z.string().min(1)])
        .optional()
        .describe('Project of the start (e.g. a fork); default this one.'),
      actions: z.array(commitAction).describe('Applied in order; none makes an empty commit.'),
      ...authorShape,
      stats: z.boolean().optional().describe('Default true.'),
      force: z
        .boolean()
        .optional()
        .describe('REPLACES `branch` with one commit on start_branch/start_sha, dropping its own commits.'),
    }),
    effect: 'write',
    undo:
      'Adds one commit; earlier versions stay in the history and revert_commit undoes it. Asks a human when it ' +
      "deletes or moves files (as delete_file does), copies another project's tree, or forces (force drops the " +
      "branch's own commits for good).",
    needsApproval: commitRisks,
    present: presentCommit,
    decisions: {
      runs: [
        {
          id: 'acme/web',
          branch: 'main',
          commit_message: 'm',
          actions: [
            { action: 'create', file_path: 'a.txt', content: 'a' },
            { action: 'update', file_path: 'b.txt', content: 'b' },
            { action: 'chmod', file_path: 'c.sh', execute_filemode: true },
          ],
        },
        // Starting a new branch from this very project copies nothing anywhere.
        {
          id: 'acme/web',
          branch: 'main',
          commit_message: 'm',
          actions: [{ action: 'create', file_path: 'a.txt', content: 'a' }],
          start_branch: 'main',
          start_project: 'acme/web',
        },
      ],
      asks: [
        {
          id: 'acme/web',
          branch: 'main',
          commit_message: 'm',
          actions: [{ action: 'delete', file_path: 'README.md' }],
        },
        {
          id: 'acme/web',
          branch: 'main',
          commit_message: 'm',
          actions: [{ action: 'move', file_path: 'b.md', previous_path: 'README.md' }],
        },
        {
          id: 'acme/web',
          branch: 'main',
          commit_message: 'm',
          actions: [{ action: 'create', file_path: 'a.txt', content: 'a' }],
          force: true,
          start_branch: 'main',
        },
        {
          id: 'acme/web',
          branch: 'main',
          commit_message: 'm',
          actions: [{ action: 'create', file_path: 'a.txt', content: 'a' }],
          start_branch: 'main',
          start_project: 'acme/platform/payments-api',
        },
      ],
    },
  }),
  defineOperation({
    name: 'get_commit',
    chat: 'commit get',
    area: 'commits',
    title: 'Get commit',
    description: 'Read one commit by SHA, branch or tag, with line stats and its last pipeline.',
    route: 'GET /projects/:id/repository/commits/:sha',
    input: z.object({
      id: fields.projectId(),
      sha: commitSha(),
      stats: z.boolean().optional().describe('Default true.'),
    }),
    effect: 'read',
    present: presentCommit,
    examples: [{ input: { id: 'acme/web', sha: 'main', stats: true } }],
  }),
  defineOperation({
    name: 'list_commit_refs',
    chat: 'commit refs',
    area: 'commits',
    title: 'List branches and tags containing a commit',
    description: 'List the branches and tags containing a commit, e.g. to see if a fix has shipped.',
    route: 'GET /projects/:id/repository/commits/:sha/refs',
    input: z.object({
      id: fields.projectId(),
      sha: z.string().min(1),
      type: z.enum(['branch', 'tag', 'all']).optional().describe('Default all.'),
    }),
    effect: 'read',
    pagination: 'offset',
    examples: [{ input: { id: 'acme/web', sha: 'v1.0.0' } }],
  }),
  defineOperation({
    name: 'cherry_pick_commit',
    chat: 'commit cherry-pick',
    area: 'commits',
    title: 'Cherry-pick commit',
    description:
      'Apply a commit\'s changes onto a branch as a new commit; error_code "empty" or "conflict" if it cannot.',
    route: 'POST /projects/:id/repository/commits/:sha/cherry_pick',
    input: z.object({
      id: fields.projectId(),
      sha: commitSha(),
      branch: z.string().min(1),
    }),
    effect: 'write',
    undo: 'Adds one commit to the branch; revert_commit undoes it.',
    present: presentCommit,
    decisions: { runs: [{ id: 'acme/web', sha: 'abc1234', branch: 'main' }], asks: [] },
  }),
  defineOperation({
    name: 'revert_commit',
    chat: 'commit revert',
    area: 'commits',
    title: 'Revert commit',
    description: 'Undo a commit on a branch with a new inverse commit; error_code "empty" or "conflict" if it cannot.',
    route: 'POST /projects/:id/repository/commits/:sha/revert',
    input: z.object({
      id: fields.projectId(),
      sha: z.string().min(1),
      branch: z.string().min(1),
    }),
    effect: 'write',
    undo: 'Adds one commit to the branch; reverting that commit brings the changes back.',
    present: presentCommit,
    answerReads: startedPipeline,
    decisions: { runs: [{ id: 'acme/web', sha: 'abc1234', branch: 'main' }], asks: [] },
  }),
  defineOperation({
    name: 'get_commit_diff',
    chat: 'commit diff',
    area: 'commits',
    title: 'Get commit diff',
    description: "Show the diff of each file a commit changed; past the service's limits a diff is empty.",
    route: 'GET /projects/:id/repository/commits/:sha/diff',
    input: oneCommit,
    effect: 'read',
    pagination: 'offset',
    examples: [{ input: mainHead }],
  }),
  defineOperation({
    name: 'list_commit_comments',
    chat: 'commit comment list',
    area: 'commits',
    title: 'List commit comments',
    // The spec lists only note and author for a listed comment (path and line only in the answer to a new one).
    description: 'List the comments on a commit, each with its text and author.',
    route: 'GET /projects/:id/repository/commits/:sha/comments',
    input: oneCommit,
    effect: 'read',
    pagination: 'offset',
    examples: [{ input: mainHead }],
  }),
  defineOperation({
    name: 'create_commit_comment',
    chat: 'commit comment create',
    area: 'commits',
    title: 'Comment on commit',
    description: 'Comment on a commit, or with the full SHA, path and line on one line of a file.',
    route: 'POST /projects/:id/repository/commits/:sha/comments',
    input: z.object({
      id: fields.projectId(),
      sha: z.string().min(1).describe('Full SHA; a branch or tag allows no line comment.'),
      note: z.string().min(1).describe('Markdown.'),
      path: z.string().min(1).optional(),
      line: z.number().int().min(1).optional(),
      // The spec lists one value: "line_type (value `new` for new lines)".
      line_type: z.enum(['new']).optional(),
    }),
    // "A line comment needs the full commit SHA, a path and a line."
    rules: [
      { kind: 'requires', keys: ['path', 'line'] },
      { kind: 'requires', keys: ['line', 'path'] },
      { kind: 'requires', keys: ['line_type', 'path', 'line'] },
    ],
    effect: 'write',
    undo: 'Adds a comment and changes nothing else; it cannot be removed through this API.',
    decisions: { runs: [{ id: 'acme/web', sha: 'abc1234', note: 'hi' }], asks: [] },
  }),
];

export const area = defineArea({ name: 'commits', operations: commitsOperations });
