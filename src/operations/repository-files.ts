// Repository files area: read one file (content, metadata, blame, raw) and create, update or delete it as one commit each.
import { z } from 'zod';
import { defineOperation, fields } from './define.js';

const FILE_ROUTE = '/projects/:id/repository/files/:file_path';

const filePath = () =>
  z.string().min(1).describe('Full path of the file in the repository, e.g. "src/app.ts" (sent URL-encoded for you).');

/** Every read of a file names the project, the path and the ref it is read at. */
const fileReadInput = z.object({
  id: fields.projectId(),
  file_path: filePath(),
  ref: fields.ref('Branch, tag or commit SHA to read the file at (required).'),
});

/** What every single-file commit (create, update, delete) takes. */
const fileCommitShape = {
  id: fields.projectId(),
  file_path: filePath(),
  branch: z.string().min(1).describe('Branch to commit to. With start_branch, a new branch of this name is created.'),
  start_branch: z.string().min(1).optional()
    .describe('Existing branch to start from when `branch` does not exist yet.'),
  commit_message: z.string().min(1).describe('Commit message.'),
  author_email: z.string().min(1).optional().describe('Commit author email (default: the token\'s user).'),
  author_name: z.string().min(1).optional().describe('Commit author name (default: the token\'s user).'),
};

const newContentShape = {
  content: z.string().describe('The whole file content (not a patch), as text or Base64 per `encoding`.'),
  encoding: z.enum(['text', 'base64']).optional()
    .describe('How `content` is written: "text" (default) or "base64" (for binary files).'),
};

const lastCommitId = () =>
  z.string().min(1).optional()
    .describe('Last commit ID of the file you read; the service refuses the change if the file changed since.');

export const repositoryFilesOperations = [
  defineOperation({
    name: 'get_file',
    chat: 'file get',
    area: 'repository_files',
    title: 'Get file',
    description:
      'Read one repository file at a branch, tag or commit: its text (decoded, fenced) with size, content_sha256, ' +
      'blob_id and last_commit_id (pass it when you update or delete the file). A binary file is attached or saved.',
    route: `GET ${FILE_ROUTE}`,
    input: fileReadInput,
    effect: 'read',
  }),
  defineOperation({
    name: 'get_file_metadata',
    chat: 'file metadata',
    area: 'repository_files',
    title: 'Get file metadata',
    description:
      'Check a repository file without downloading it (HEAD). Returns blob_id, commit_id, content_sha256, ' +
      'encoding, file_name, file_path, last_commit_id, ref and size, from the service\'s X-Svc-* headers. ' +
      'A missing file is a 404 error.',
    route: `HEAD ${FILE_ROUTE}`,
    input: fileReadInput,
    effect: 'read',
  }),
  defineOperation({
    name: 'get_file_blame',
    chat: 'file blame',
    area: 'repository_files',
    title: 'Blame file',
    description:
      'Show which commit last changed each line of a file: the lines, fenced, under each commit (id, author, date, message).',
    route: `GET ${FILE_ROUTE}/blame`,
    input: fileReadInput,
    effect: 'read',
  }),
  defineOperation({
    name: 'get_file_blame_metadata',
    chat: 'file blame metadata',
    area: 'repository_files',
    title: 'Get file blame metadata',
    description:
      'HEAD on the blame of a file: returns the same metadata as get_file_metadata (blob_id, commit_id, ' +
      'content_sha256, last_commit_id, size, …) without the blame itself.',
    route: `HEAD ${FILE_ROUTE}/blame`,
    input: fileReadInput,
    effect: 'read',
  }),
  defineOperation({
    name: 'get_file_raw',
    chat: 'file raw',
    area: 'repository_files',
    title: 'Get raw file',
    description:
      'Download a repository file at a branch, tag or commit as stored: text is shown, a binary is attached or ' +
      'saved. Use get_file when you also need last_commit_id.',
    route: `GET ${FILE_ROUTE}/raw`,
    input: fileReadInput,
    effect: 'read',
    response: 'bytes',
  }),
  defineOperation({
    name: 'get_file_raw_metadata',
    chat: 'file raw metadata',
    area: 'repository_files',
    title: 'Get raw file metadata',
    description:
      'HEAD on the raw file: returns the file metadata (blob_id, commit_id, content_sha256, last_commit_id, ' +
      'size, …) without downloading the content.',
    route: `HEAD ${FILE_ROUTE}/raw`,
    input: fileReadInput,
    effect: 'read',
  }),
  defineOperation({
    name: 'create_file',
    chat: 'file create',
    area: 'repository_files',
    title: 'Create file',
    description:
      'Add a new file to a branch as one commit. Returns {file_path, branch}. Fails with 400 if the file ' +
      'already exists. To change several files in one commit use create_commit.',
    route: `POST ${FILE_ROUTE}`,
    input: z.object({ ...fileCommitShape, ...newContentShape }),
    effect: 'write',
    undo: 'Adds one commit that creates the file; delete_file or revert_commit takes it out again, and the history keeps both.',
  }),
  defineOperation({
    name: 'update_file',
    chat: 'file update',
    area: 'repository_files',
    title: 'Update file',
    description:
      'Replace the content of an existing file as one commit. `content` must be the WHOLE new file, not a ' +
      'diff: whatever is sent becomes the file. Pass last_commit_id from get_file so a concurrent change is ' +
      'refused instead of overwritten. Returns {file_path, branch}; content identical to the current one is a 400.',
    route: `PUT ${FILE_ROUTE}`,
    input: z.object({ ...fileCommitShape, ...newContentShape, last_commit_id: lastCommitId() }),
    effect: 'write',
    undo: 'Adds one commit; the previous content stays in the branch\'s history and revert_commit brings it back.',
  }),
  defineOperation({
    name: 'delete_file',
    chat: 'file delete',
    area: 'repository_files',
    title: 'Delete file',
    description:
      'Remove a file from a branch as one commit. The file stays in the history. Pass last_commit_id from ' +
      'get_file so a file changed since you read it is not deleted.',
    route: `DELETE ${FILE_ROUTE}`,
    input: z.object({ ...fileCommitShape, last_commit_id: lastCommitId() }),
    effect: 'destructive',
    undo: 'The file disappears from the branch in a new commit. It stays in the history: revert_commit brings it back.',
  }),
];
