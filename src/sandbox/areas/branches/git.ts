// Branch reads and writes on a project's git repository: heads, merged state, create and delete.
import { GitActionError } from '../../git/errors.js';
import type { GitRepo } from '../../git/repo.js';

const ZERO_SHA = '0'.repeat(40);

/** Every branch and the SHA it points at, by name. */
export async function branchHeads(repo: GitRepo): Promise<Map<string, string>> {
  const output = await repo.text(['for-each-ref', '--format=%(objectname) %(refname:strip=2)', 'refs/heads/']);
  const heads = new Map<string, string>();
  for (const line of output.split('\n')) {
    if (line === '') continue;
    heads.set(line.slice(41), line.slice(0, 40));
  }
  return heads;
}

/** Names of the branches whose head the target commit already contains. */
export async function mergedInto(repo: GitRepo, target: string): Promise<Set<string>> {
  const output = await repo.text(['for-each-ref', `--merged=${target}`, '--format=%(refname:strip=2)', 'refs/heads/']);
  return new Set(output.split('\n').filter((line) => line !== ''));
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
