// Repository file routes: read a file (GET/HEAD), its blame and raw content, and create, update or delete one
// file as a single commit.
import { z } from 'zod';
import { readableProject, writableProject, type SandboxContext } from '../../core/context.js';
import { readFile, blame, type RepoFile } from '../../git/files.js';
import type { FileAction } from '../../git/repo.js';
import { param } from '../../core/params.js';
import type { Reply, Router, SandboxRequest } from '../../core/router.js';
import type { TokenScope } from '../../core/scopes.js';
import type { Project } from '../../core/store.js';
import { authorOf, decodeContent, gitCall, identityOf, sendRaw } from './shared.js';
import { checkPush } from './push-rules.js';

const FILE_PATH = '/projects/:id/repository/files/:file_path';

const readParams = z.object({ ref: z.string().min(1) });
/** A token with read_repository may read files, as on the service (its repository files API allows that scope). */
const READ_SCOPES: readonly TokenScope[] = ['read_repository'];
const readOptions = { params: readParams, readScopes: READ_SCOPES };

const commitFields = {
  branch: z.string().min(1),
  start_branch: z.string().min(1).optional(),
  author_email: z.string().optional(),
  author_name: z.string().min(1).optional(),
  commit_message: z.string().min(1),
};
const createParams = z.object({
  ...commitFields,
  encoding: param.enum(['text', 'base64']).optional(),
  content: z.string(),
});
const updateParams = createParams.extend({ last_commit_id: z.string().min(1).optional() });
const deleteParams = z.object({ ...commitFields, last_commit_id: z.string().min(1).optional() });

/**
 * Header values must be visible ASCII; a name outside it is sent percent-encoded rather than dropped,
 * so that a client can still read it back.
 */
function headerValue(value: string | number): string {
  const text = String(value);
  return /^[\x20-\x7e]*$/.test(text) ? text : encodeURIComponent(text);
}

/** The X-Svc-* metadata headers of a file, sent by HEAD (and by every file read, as the service does). */
function setFileHeaders(reply: Reply, file: RepoFile): void {
  const headers: Record<string, string | number> = {
    'x-svc-blob-id': file.blob_id,
    'x-svc-commit-id': file.commit_id,
    'x-svc-content-sha256': file.content_sha256,
    'x-svc-encoding': 'base64',
    'x-svc-file-name': file.file_name,
    'x-svc-file-path': file.file_path,
    'x-svc-last-commit-id': file.last_commit_id,
    'x-svc-ref': file.ref,
    'x-svc-size': file.size,
  };
  for (const [name, value] of Object.entries(headers)) reply.header(name, headerValue(value));
}

export function register(router: Router, ctx: SandboxContext): void {
  /** The file the request names, its metadata headers already set. */
  async function fileAt(
    req: SandboxRequest<z.output<typeof readParams>>,
    reply: Reply,
  ): Promise<{ project: Project; file: RepoFile }> {
    const project = readableProject(ctx, req);
    const file = await gitCall(() => readFile(project.repo, req.params.ref, req.pathParams.file_path));
    setFileHeaders(reply, file);
    return { project, file };
  }

  const headOnly = async (req: SandboxRequest<z.output<typeof readParams>>, reply: Reply) => {
    await fileAt(req, reply);
    reply.empty(200);
  };

  router.route('GET', FILE_PATH, readOptions, async (req, reply) => {
    const { file } = await fileAt(req, reply);
    reply.json({
      file_name: file.file_name,
      file_path: file.file_path,
      size: file.size,
      encoding: 'base64',
      content: file.content.toString('base64'),
      content_sha256: file.content_sha256,
      ref: file.ref,
      blob_id: file.blob_id,
      commit_id: file.commit_id,
      last_commit_id: file.last_commit_id,
    });
  });
  router.route('HEAD', FILE_PATH, readOptions, headOnly);

  router.route('GET', `${FILE_PATH}/blame`, readOptions, async (req, reply) => {
    const { project, file } = await fileAt(req, reply);
    reply.json(await gitCall(() => blame(project.repo, file.commit_id, file.file_path)));
  });
  router.route('HEAD', `${FILE_PATH}/blame`, readOptions, headOnly);

  router.route('GET', `${FILE_PATH}/raw`, readOptions, async (req, reply) => {
    const { file } = await fileAt(req, reply);
    sendRaw(reply, file.content, file.file_name);
  });
  router.route('HEAD', `${FILE_PATH}/raw`, readOptions, headOnly);

  /** One action as a commit on `branch`; refusals are 400 with the engine's message. */
  async function commitFile(req: SandboxRequest<z.output<typeof deleteParams>>, action: FileAction): Promise<void> {
    const project = writableProject(ctx, req);
    const user = ctx.requireUser(req);
    checkPush(ctx, project, user, req.params.branch, 400);
    await gitCall(() =>
      project.repo.commit({
        branch: req.params.branch,
        startRef: req.params.start_branch,
        message: req.params.commit_message,
        author: authorOf(user, req.params),
        committer: identityOf(user),
        actions: [action],
      }),
    );
    project.last_activity_at = new Date();
  }

  router.route('POST', FILE_PATH, { params: createParams, auth: 'user' }, async (req, reply) => {
    const content = decodeContent(req.params.content, req.params.encoding, 'content');
    await commitFile(req, { action: 'create', file_path: req.pathParams.file_path, content });
    reply.json({ file_path: req.pathParams.file_path, branch: req.params.branch }, 201);
  });

  router.route('PUT', FILE_PATH, { params: updateParams, auth: 'user' }, async (req, reply) => {
    const content = decodeContent(req.params.content, req.params.encoding, 'content');
    await commitFile(req, {
      action: 'update',
      file_path: req.pathParams.file_path,
      content,
      last_commit_id: req.params.last_commit_id,
    });
    reply.json({ file_path: req.pathParams.file_path, branch: req.params.branch });
  });

  router.route('DELETE', FILE_PATH, { params: deleteParams, auth: 'user' }, async (req, reply) => {
    await commitFile(req, {
      action: 'delete',
      file_path: req.pathParams.file_path,
      last_commit_id: req.params.last_commit_id,
    });
    reply.empty(204);
  });
}
