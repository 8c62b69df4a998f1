// What the repository routes (browsing, files, commits) share: git's refusals answered as the service does, the author
// of a change, content as a write sends it, a commit and its last pipeline, raw repository bytes.
import { messageError, notFound, paramError } from '../../core/errors.js';
import type { GitCommitInfo } from '../../git/commit-format.js';
import { GitActionError, GitNotFoundError } from '../../git/errors.js';
import type { GitIdentity, GitRepo } from '../../git/repo.js';
import type { Reply } from '../../core/router.js';
import type { Project, User } from '../../core/store.js';

/**
 * Runs repository work and answers the engine's refusals the way the service does:
 * unknown refs, paths and objects 404 with their message, refused changes 400 {"message": …}.
 */
export async function gitCall<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof GitNotFoundError) throw messageError(404, error.message);
    if (error instanceof GitActionError) throw messageError(400, error.message);
    throw error;
  }
}

/** The author of a change made through the API: the author_* parameters, else the caller. */
export function authorOf(user: User, params: { author_name?: string; author_email?: string }): GitIdentity {
  return { name: params.author_name ?? user.name, email: params.author_email ?? user.email };
}

export function identityOf(user: User): GitIdentity {
  return { name: user.name, email: user.email };
}

/**
 * The largest file a write may carry, decoded. The spec names none; 10 MiB keeps a commit of a few files well
 * under the 25 MiB request body limit, and anything bigger belongs in a package or LFS, not in a commit.
 */
const MAX_FILE_BYTES = 10 * 1024 * 1024;

/**
 * Content as sent with `encoding`: text (default) or base64, which must be well-formed; above MAX_FILE_BYTES
 * decoded it is refused with 413 {"message": "<field> is too large: …"}.
 */
export function decodeContent(content: string, encoding: 'text' | 'base64' | undefined, field: string): Buffer {
  let bytes: Buffer;
  if (encoding === 'base64') {
    const compact = content.replace(/\s+/g, '');
    // Checked without a repeated group: such a pattern overflowed the regex engine's stack on a few MiB (a 500).
    if (compact.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(compact))
      throw paramError(`${field} is not valid base64`);
    bytes = Buffer.from(compact, 'base64');
  } else {
    bytes = Buffer.from(content, 'utf8');
  }
  if (bytes.length > MAX_FILE_BYTES) {
    throw messageError(
      413,
      `${field} is too large: ${bytes.length} bytes, the limit is ${MAX_FILE_BYTES} bytes (${MAX_FILE_BYTES / 1024 / 1024} MiB) a file`,
    );
  }
  return bytes;
}

/** The latest pipeline that ran for a commit, in the service's short form, or null. */
export function lastPipelineOf(
  project: Project,
  sha: string,
): { id: number; ref: string; sha: string; status: string } | null {
  let latest: Project['pipelines'][number] | undefined;
  for (const pipeline of project.pipelines) {
    if (pipeline.sha === sha && (latest === undefined || pipeline.id > latest.id)) latest = pipeline;
  }
  return latest ? { id: latest.id, ref: latest.ref, sha: latest.sha, status: latest.status } : null;
}

/** Commit record as the service sends it. */
/** The commit `:sha` names (hash, branch or tag), or 404 {"message": "404 Commit Not Found"}. */
export async function commitOf(repo: GitRepo, ref: string): Promise<GitCommitInfo> {
  const sha = await repo.resolveCommit(ref);
  if (sha === null) throw notFound('Commit');
  return gitCall(() => repo.getCommit(sha));
}

export function commitView(commit: GitCommitInfo): GitCommitInfo {
  return { ...commit, parent_ids: [...commit.parent_ids] };
}

/** git's own test for binary content: a NUL byte in the first 8000 bytes. */
function rawContentType(content: Buffer): string {
  return content.subarray(0, 8000).includes(0) ? 'application/octet-stream' : 'text/plain; charset=utf-8';
}

/** Sends raw repository bytes; nosniff keeps a browser from running repository content as a page. */
export function sendRaw(reply: Reply, content: Buffer, fileName?: string): void {
  reply.header('x-content-type-options', 'nosniff');
  if (fileName !== undefined) reply.header('content-disposition', `inline; ${dispositionFileName(fileName)}`);
  reply.send(200, content, rawContentType(content));
}

/** filename= for Content-Disposition, with an RFC 5987 filename* when the name is not plain ASCII. */
export function dispositionFileName(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return ascii === fileName
    ? `filename="${fileName}"`
    : `filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}
