// Repository files area: read one file (content, metadata, blame, raw) and create, update or delete it as one commit each.
import { z } from 'zod';
import { defineOperation, fields, type Operation, type Presentation, defineArea } from '../engine/define.js';
import { asList, asRecord, shortSha, show } from '../engine/present.js';

const FILE_ROUTE = '/projects/:id/repository/files/:file_path';

const filePath = () => z.string().min(1).describe('E.g. "src/app.ts", not URL-encoded.');

/** Every read of a file names the project, the path and the ref it is read at. */
const fileReadInput = z.object({
  id: fields.projectId(),
  file_path: filePath(),
  ref: z.string().min(1),
});

/** What every single-file commit (create, update, delete) takes. */
const fileCommitShape = {
  id: fields.projectId(),
  file_path: filePath(),
  branch: z.string().min(1),
  start_branch: z.string().min(1).optional().describe('Where a new `branch` starts.'),
  commit_message: z.string().min(1),
  author_email: z.string().min(1).optional(),
  author_name: z.string().min(1).optional(),
};

const newContentShape = {
  content: z.string().describe('The whole file, not a diff.'),
  encoding: z.enum(['text', 'base64']).optional().describe('Of content; default text.'),
};

const lastCommitId = () => z.string().min(1).optional().describe('From get_file: refused if the file changed since.');

/** Lines of a blame shown with their commits; a longer file is read further with get_file_raw. */
const MAX_BLAME_LINES = 200;

/**
 * A blame as `git blame` reads: one row per commit range (which lines, who, when, why), then the lines themselves,
 * each beside the commit that last changed it.
 */
function presentBlame(data: unknown, input: { file_path: string; ref: string }): Presentation {
  const ranges = asList(data).map((range) => ({
    commit: asRecord(range.commit),
    lines: Array.isArray(range.lines) ? range.lines.map((line) => (typeof line === 'string' ? line : show(line))) : [],
  }));
  const total = ranges.reduce((sum, range) => sum + range.lines.length, 0);
  const commits = new Set(ranges.map((range) => range.commit.id)).size;
  const annotated: string[] = [];
  const fields: Array<[string, string]> = [];
  let next = 1;
  for (const { commit, lines } of ranges) {
    const first = next;
    next += lines.length;
    const span = lines.length === 1 ? `line ${first}` : `lines ${first}–${next - 1}`;
    const date = typeof commit.authored_date === 'string' ? commit.authored_date.slice(0, 10) : undefined;
    const message = typeof commit.message === 'string' ? commit.message.trim().split('\n', 1)[0] : undefined;
    fields.push([
      shortSha(commit.id),
      [span, show(commit.author_name), date, message].filter((part) => part !== undefined && part !== '').join(' · '),
    ]);
    for (const [i, line] of lines.entries()) {
      if (annotated.length < MAX_BLAME_LINES)
        annotated.push(`${shortSha(commit.id)} ${String(first + i).padStart(4)}  ${line}`.trimEnd());
    }
  }
  const shown =
    annotated.length < total ? `Lines 1–${annotated.length} of ${total} (file raw reads the rest)` : 'Lines';
  return {
    title: `${input.file_path} at ${input.ref}: ${total} ${total === 1 ? 'line' : 'lines'} from ${commits} ${commits === 1 ? 'commit' : 'commits'}`,
    fields,
    sections: annotated.length > 0 ? [{ title: shown, text: annotated.join('\n'), code: true }] : [],
  };
}

// A create and an update alike commit one small file.
const fileCommit = { id: 'acme/web', file_path: 'a.txt', branch: 'main', commit_message: 'm', content: 'x' };

/**
 * One of the six reads of a file (content, blame and raw, and the HEAD form of each): each takes the project, the
 * path and the ref, and its demo reads the demo project's README on main; only the route and the words differ.
 */
function fileRead(
  spec: Pick<Operation<typeof fileReadInput>, 'name' | 'chat' | 'title' | 'description' | 'route'> &
    Partial<Pick<Operation<typeof fileReadInput>, 'present' | 'response'>>,
) {
  return defineOperation({
    ...spec,
    area: 'repository_files',
    input: fileReadInput,
    effect: 'read',
    examples: [{ input: { id: 'acme/web', file_path: 'README.md', ref: 'main' } }],
  });
}

const repositoryFilesOperations = [
  fileRead({
    name: 'get_file',
    chat: 'file get',
    title: 'Get file',
    description:
      'Read a file at a ref: its text with last_commit_id (pass it to update or delete the file); a binary is attached or saved.',
    route: `GET ${FILE_ROUTE}`,
  }),
  fileRead({
    name: 'get_file_metadata',
    chat: 'file metadata',
    title: 'Get file metadata',
    description:
      'Check that a file exists and read its size, blob_id, last_commit_id and checksum, without the content.',
    route: `HEAD ${FILE_ROUTE}`,
  }),
  fileRead({
    name: 'get_file_blame',
    chat: 'file blame',
    title: 'Blame file',
    description: 'Which commit last changed each line of a file: the lines under each commit.',
    route: `GET ${FILE_ROUTE}/blame`,
    present: presentBlame,
  }),
  fileRead({
    name: 'get_file_blame_metadata',
    chat: 'file blame metadata',
    title: 'Get file blame metadata',
    description: "Read a file's metadata, as get_file_metadata does, through the blame route.",
    route: `HEAD ${FILE_ROUTE}/blame`,
  }),
  fileRead({
    name: 'get_file_raw',
    chat: 'file raw',
    title: 'Get raw file',
    description: 'A file at a ref as stored: text shown, a binary attached or saved; no metadata (see get_file).',
    route: `GET ${FILE_ROUTE}/raw`,
    response: 'bytes',
  }),
  fileRead({
    name: 'get_file_raw_metadata',
    chat: 'file raw metadata',
    title: 'Get raw file metadata',
    description: "Read a file's metadata, as get_file_metadata does, through the raw route.",
    route: `HEAD ${FILE_ROUTE}/raw`,
  }),
  defineOperation({
    name: 'create_file',
    chat: 'file create',
    area: 'repository_files',
    title: 'Create file',
    description: 'Add a new file to a branch as one commit (400 if it exists); create_commit changes several at once.',
    route: `POST ${FILE_ROUTE}`,
    input: z.object({ ...fileCommitShape, ...newContentShape }),
    effect: 'write',
    undo: 'Adds one commit that creates the file; delete_file or revert_commit takes it out again, and the history keeps both.',
    decisions: {
      runs: [fileCommit],
      asks: [],
    },
  }),
  defineOperation({
    name: 'update_file',
    chat: 'file update',
    area: 'repository_files',
    title: 'Update file',
    description:
      "Replace a file's content as one commit: `content` is the WHOLE new file, not a diff. Pass " +
      'last_commit_id from get_file so a concurrent change is refused, not overwritten.',
    route: `PUT ${FILE_ROUTE}`,
    input: z.object({ ...fileCommitShape, ...newContentShape, last_commit_id: lastCommitId() }),
    effect: 'write',
    undo: "Adds one commit; the previous content stays in the branch's history and revert_commit brings it back.",
    // The old content stays in the history.
    decisions: {
      runs: [fileCommit],
      asks: [],
    },
  }),
  defineOperation({
    name: 'delete_file',
    chat: 'file delete',
    area: 'repository_files',
    title: 'Delete file',
    description: 'Remove a file from a branch as one commit; the history keeps it. Pass last_commit_id from get_file.',
    route: `DELETE ${FILE_ROUTE}`,
    input: z.object({ ...fileCommitShape, last_commit_id: lastCommitId() }),
    effect: 'destructive',
    undo: 'The file disappears from the branch in a new commit. It stays in the history: revert_commit brings it back.',
    decisions: { runs: [], asks: [{ id: 'acme/web', file_path: 'README.md', branch: 'main', commit_message: 'm' }] },
  }),
];

export const area = defineArea({ name: 'repository_files', operations: repositoryFilesOperations });
