// Reading a repository at a ref: one file with its metadata, blame ranges, tree listings and blobs.
import { createHash } from 'node:crypto';
import type { GitCommitInfo } from './commit-format.js';
import { GitNotFoundError } from './errors.js';
import { checkFilePath, type GitRepo } from './repo.js';

/** A file at a ref, as the file endpoints describe it (content still raw bytes). */
export interface RepoFile {
  file_name: string;
  file_path: string;
  size: number;
  content: Buffer;
  content_sha256: string;
  /** The ref as the caller gave it. */
  ref: string;
  blob_id: string;
  commit_id: string;
  last_commit_id: string;
  execute_filemode: boolean;
}

interface BlameRange {
  commit: Pick<
    GitCommitInfo,
    | 'id'
    | 'message'
    | 'parent_ids'
    | 'authored_date'
    | 'author_name'
    | 'author_email'
    | 'committed_date'
    | 'committer_name'
    | 'committer_email'
  >;
  lines: string[];
}

export interface TreeEntry {
  id: string;
  name: string;
  type: 'tree' | 'blob' | 'commit';
  path: string;
  mode: string;
}

/** The commit a read ref names; unknown refs are a 404 as on the service. */
async function commitAt(repo: GitRepo, ref: string): Promise<string> {
  const sha = await repo.resolveCommit(ref);
  if (sha === null) throw new GitNotFoundError('404 Commit Not Found');
  return sha;
}

/** A readable path: the same rules as for writes, reported as a missing file (or tree) rather than a bad request. */
function checkReadPath(filePath: string, notFound = '404 File Not Found'): void {
  try {
    checkFilePath(filePath, 'file_path');
  } catch {
    throw new GitNotFoundError(notFound);
  }
}

/** The file at ref, with its blob id, last commit and digest. */
export async function readFile(repo: GitRepo, ref: string, filePath: string): Promise<RepoFile> {
  checkReadPath(filePath);
  const commit = await commitAt(repo, ref);
  const [[object], entry, last] = await Promise.all([
    repo.readObjects([`${commit}:${filePath}`]),
    repo.text(['ls-tree', '-z', commit, '--', filePath]),
    repo.lastCommitFor(commit, filePath),
  ]);
  if (object === null || object.type !== 'blob' || last === null) throw new GitNotFoundError('404 File Not Found');
  return {
    file_name: filePath.slice(filePath.lastIndexOf('/') + 1),
    file_path: filePath,
    size: object.content.length,
    content: object.content,
    content_sha256: createHash('sha256').update(object.content).digest('hex'),
    ref,
    blob_id: object.oid,
    commit_id: commit,
    last_commit_id: last,
    execute_filemode: entry.startsWith('100755 '),
  };
}

/** Blame of a file at ref: consecutive lines last changed by the same commit form one range. */
export async function blame(repo: GitRepo, ref: string, filePath: string): Promise<BlameRange[]> {
  checkReadPath(filePath);
  const commit = await commitAt(repo, ref);
  const [object] = await repo.readObjects([`${commit}:${filePath}`]);
  if (object === null || object.type !== 'blob') throw new GitNotFoundError('404 File Not Found');
  const { stdout } = await repo.run(['blame', '--porcelain', commit, '--', filePath]);
  const ranges: { sha: string; lines: string[] }[] = [];
  let currentSha = '';
  for (const line of stdout.toString('utf8').split('\n')) {
    if (line.startsWith('\t')) {
      const last = ranges[ranges.length - 1];
      if (last && last.sha === currentSha) last.lines.push(line.slice(1));
      else ranges.push({ sha: currentSha, lines: [line.slice(1)] });
    } else {
      const header = /^([0-9a-f]{40}) \d+ \d+/.exec(line);
      if (header) currentSha = header[1];
    }
  }
  const commits = await repo.getCommits([...new Set(ranges.map((range) => range.sha))]);
  const byId = new Map(commits.map((info) => [info.id, info]));
  return ranges.map(({ sha, lines }) => {
    const info = byId.get(sha) as GitCommitInfo;
    return {
      commit: {
        id: info.id,
        message: info.message,
        parent_ids: info.parent_ids,
        authored_date: info.authored_date,
        author_name: info.author_name,
        author_email: info.author_email,
        committed_date: info.committed_date,
        committer_name: info.committer_name,
        committer_email: info.committer_email,
      },
      lines,
    };
  });
}

/**
 * Entries of the tree at path (root when empty) at ref; recursive lists every entry below, trees included.
 * Directories come before files, as on the service.
 */
export async function listTree(repo: GitRepo, ref: string, treePath: string, recursive: boolean): Promise<TreeEntry[]> {
  const dir = treePath.replace(/^\/+|\/+$/g, '');
  if (dir !== '') checkReadPath(dir, '404 Tree Not Found');
  const commit = await repo.resolveCommit(ref);
  if (commit === null) throw new GitNotFoundError('404 Tree Not Found');
  const name = dir === '' ? `${commit}^{tree}` : `${commit}:${dir}`;
  const [object] = await repo.readObjects([name]);
  if (object === null || object.type !== 'tree') throw new GitNotFoundError('404 Tree Not Found');
  const args = recursive ? ['ls-tree', '-z', '-r', '-t', object.oid] : ['ls-tree', '-z', object.oid];
  const { stdout } = await repo.run(args);
  const entries: TreeEntry[] = [];
  for (const record of stdout.toString('utf8').split('\0')) {
    if (record === '') continue;
    const tab = record.indexOf('\t');
    const [mode, type, id] = record.slice(0, tab).split(' ');
    const relative = record.slice(tab + 1);
    entries.push({
      id,
      name: relative.slice(relative.lastIndexOf('/') + 1),
      type: type as TreeEntry['type'],
      path: dir === '' ? relative : `${dir}/${relative}`,
      mode,
    });
  }
  if (recursive) return entries;
  const rank = { tree: 0, blob: 1, commit: 2 } as const;
  return entries.sort((a, b) => rank[a.type] - rank[b.type]);
}

/** A blob of the project's history by its (full or abbreviated) SHA. */
export async function readBlob(repo: GitRepo, sha: string): Promise<{ sha: string; size: number; content: Buffer }> {
  const object = await repo.reachableObject(sha);
  if (object === null || object.type !== 'blob') throw new GitNotFoundError('404 Blob Not Found');
  return { sha: object.oid, size: object.content.length, content: object.content };
}
