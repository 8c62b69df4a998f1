// Branch reads and writes on a project's git repository: heads, merged state, create and delete.
import { GitActionError } from '../../git/errors.js';
import { untilRefsMove } from '../../git/ref-memo.js';
import type { GitRepo } from '../../git/repo.js';

const ZERO_SHA = '0'.repeat(40);

/** Every branch and the SHA it points at, by name. */
export function branchHeads(repo: GitRepo): Promise<Map<string, string>> {
  return repo.branchHeads();
}

/**
 * Names of the branches whose head the target commit already contains, leaving out those whose head is the target
 * itself: the service counts a branch at the default branch's head as not merged (nothing of it was merged yet), both
 * in a branch's `merged` and when it deletes merged branches.
 */
export function mergedInto(repo: GitRepo, target: string): Promise<ReadonlySet<string>> {
  // Read once until a ref moves: a page of branches asks it for each branch's `merged`.
  return untilRefsMove(repo.dir, `merged into ${target}`, () => readMergedInto(repo, target));
}

async function readMergedInto(repo: GitRepo, target: string): Promise<Set<string>> {
  const targetSha = (await repo.text(['rev-parse', '--verify', `${target}^{commit}`])).trim();
  const output = await repo.text([
    'for-each-ref',
    `--merged=${target}`,
    '--format=%(objectname) %(refname:strip=2)',
    'refs/heads/',
  ]);
  const merged = new Set<string>();
  for (const line of output.split('\n')) {
    if (line === '' || line.slice(0, 40) === targetSha) continue;
    merged.add(line.slice(41));
  }
  return merged;
}

/** Creates a branch at sha; refused when it exists. */
export async function createBranch(repo: GitRepo, name: string, sha: string): Promise<void> {
  await repo.withWriteLock(async () => {
    if (await repo.branchExists(name)) throw new GitActionError('branch_exists', 'Branch already exists');
    await repo.run(['update-ref', `refs/heads/${name}`, sha, ZERO_SHA]);
    await repo.onBranchMoved?.(name, sha, null);
  });
}

/** Deletes a branch if it still points where it did. */
export async function deleteBranch(repo: GitRepo, name: string, expected: string): Promise<void> {
  await repo.withWriteLock(() => repo.run(['update-ref', '-d', `refs/heads/${name}`, expected]));
}
