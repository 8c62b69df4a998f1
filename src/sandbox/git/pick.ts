// Cherry-pick and revert onto a branch. git 2.39's merge-tree cannot take an explicit merge base, so the
// three-way merge runs in a temporary worktree, and the result is committed with plumbing.
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { GitActionError, GitNotFoundError } from './errors.js';
import { runGit } from './run.js';
import type { GitIdentity, GitRepo } from './repo.js';

export type PickKind = 'cherry_pick' | 'revert';

const REFUSALS: Record<PickKind, string> = {
  cherry_pick:
    'Sorry, we cannot cherry-pick this commit automatically. This commit may already have been cherry-picked, or a more recent commit may have updated some of its content.',
  revert:
    'Sorry, we cannot revert this commit automatically. This commit may already have been reverted, or a more recent commit may have updated some of its content.',
};

export interface PickOptions {
  /** Only check that the pick would apply: nothing is committed and null comes back. */
  dryRun?: boolean;
  /** The commit message to use instead of the vendor's default text. */
  message?: string;
}

/**
 * Applies commit sha (or its inverse, for revert) on top of branch and returns the new commit's SHA (null on a
 * dry run). A cherry-pick keeps the original author; a revert is authored by the user. The user is the committer.
 * Refusals: GitActionError 'conflict' or 'empty'; unknown branch or commit: GitNotFoundError.
 */
export async function pickCommit(
  repo: GitRepo,
  kind: PickKind,
  sha: string,
  branch: string,
  user: GitIdentity,
  options: PickOptions = {},
): Promise<string | null> {
  const commit = await repo.getCommit(sha);
  return repo.withWriteLock(async () => {
    const tip = (await repo.branchExists(branch)) ? await repo.refTarget(`refs/heads/${branch}`) : null;
    if (tip === null) throw new GitNotFoundError('404 Branch Not Found');
    const tree = await mergeInWorktree(repo, kind, commit.id, commit.parent_ids.length > 1, tip);
    if (tree === (await repo.text(['rev-parse', `${tip}^{tree}`]))) throw new GitActionError('empty', REFUSALS[kind]);
    if (options.dryRun) return null;
    // The vendor's texts (Commit#cherry_pick_message, #revert_message): the picked message as it is, final
    // newline included, then the trailer; a revert's description has no final period.
    const message =
      options.message ??
      (kind === 'cherry_pick'
        ? `${commit.message}\n\n(cherry picked from commit ${commit.id})`
        : `Revert "${commit.title.trim()}"\n\nThis reverts commit ${commit.id}`);
    const author =
      kind === 'cherry_pick'
        ? { name: commit.author_name, email: commit.author_email, date: new Date(commit.authored_date) }
        : user;
    const created = await repo.commitTree(tree, [tip], message, author, { ...user, date: user.date ?? new Date() });
    await repo.moveBranch(branch, created, tip);
    return created;
  });
}

/** Runs the merge in a throwaway worktree at tip and returns the resulting tree; conflicts throw. */
async function mergeInWorktree(
  repo: GitRepo,
  kind: PickKind,
  sha: string,
  isMerge: boolean,
  tip: string,
): Promise<string> {
  const worktree = path.join(repo.dir, `sandbox-worktree-${randomBytes(8).toString('hex')}`);
  await repo.run(['worktree', 'add', '--quiet', '--detach', worktree, tip]);
  try {
    const inWorktree = (args: string[], okCodes?: number[]) => runGit(null, args, { cwd: worktree, okCodes });
    const command = kind === 'cherry_pick' ? 'cherry-pick' : 'revert';
    const mainline = isMerge ? ['--mainline=1'] : [];
    const { exitCode } = await inWorktree([command, '--no-commit', ...mainline, sha], [1]);
    if (exitCode !== 0) throw new GitActionError('conflict', REFUSALS[kind]);
    return (await inWorktree(['write-tree'])).stdout.toString('utf8').trim();
  } finally {
    await repo.run(['worktree', 'remove', '--force', worktree]).catch(() => undefined);
    await rm(worktree, { recursive: true, force: true });
    await repo.run(['worktree', 'prune']).catch(() => undefined);
  }
}
