// Shared set-up for the git engine tests: throwaway repositories and a terse way to commit file contents.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { GitRepo, type FileAction, type GitIdentity } from '../../../../src/sandbox/git/repo.js';

export const ada: GitIdentity = { name: 'Ada Lovelace', email: 'ada@example.com' };
export const grace: GitIdentity = { name: 'Grace Hopper', email: 'grace@example.com' };

/** Registers a temporary directory for this test file and returns a factory of fresh repositories in it. */
export function useRepos(): () => Promise<GitRepo> {
  let root = '';
  let counter = 0;
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'forgeops-git-'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });
  return () => GitRepo.init(path.join(root, `repo-${counter++}.git`), { defaultBranch: 'main' });
}

export interface WriteOptions {
  branch?: string;
  startRef?: string;
  author?: GitIdentity;
  date?: string;
  message?: string;
}

/** Commits files (string or Buffer content; null deletes) to a branch, choosing create or update per file. */
export async function write(
  repo: GitRepo,
  files: Record<string, string | Buffer | null>,
  options: WriteOptions = {},
): Promise<string> {
  const branch = options.branch ?? 'main';
  const base = options.startRef ?? branch;
  const start = await repo.resolveCommit(base);
  const existing = start === null ? new Map() : await repo.listFiles(start);
  const actions: FileAction[] = Object.entries(files).map(([file_path, content]) => {
    if (content === null) return { action: 'delete', file_path };
    return { action: existing.has(file_path) ? 'update' : 'create', file_path, content: Buffer.from(content) };
  });
  const author = { ...(options.author ?? ada), date: options.date ? new Date(options.date) : undefined };
  return repo.commit({
    branch,
    startRef: options.startRef,
    message: options.message ?? `Change ${Object.keys(files).join(', ')}`,
    author,
    actions,
  });
}

/** Merges `other` into `branch` with a merge commit (the two must merge cleanly). */
export async function merge(repo: GitRepo, branch: string, other: string, author: GitIdentity = ada): Promise<string> {
  const tip = (await repo.resolveCommit(branch)) as string;
  const otherSha = (await repo.resolveCommit(other)) as string;
  const tree = (await repo.text(['merge-tree', '--write-tree', tip, otherSha])).split('\n')[0];
  const sha = await repo.commitTree(tree, [tip, otherSha], `Merge ${other} into ${branch}`, author);
  await repo.moveBranch(branch, sha, tip);
  return sha;
}
