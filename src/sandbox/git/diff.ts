// Differences between commits: diff entries, line stats per commit, and the compare of two refs.
import type { GitCommitInfo } from './commit-format.js';
import { GitNotFoundError } from './errors.js';
import type { GitRepo } from './repo.js';

/** git's well-known empty tree: the "before" of a root commit. */
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

/** A single file's patch above this size is sent as '' (the service's diff limits). */
export const MAX_PATCH_BYTES = 100 * 1024;

interface DiffEntry {
  diff: string;
  old_path: string;
  new_path: string;
  a_mode: string | null;
  b_mode: string;
  new_file: boolean;
  renamed_file: boolean;
  deleted_file: boolean;
}

interface CommitStats {
  additions: number;
  deletions: number;
  total: number;
}

interface CompareResult {
  commit: GitCommitInfo | null;
  commits: GitCommitInfo[];
  diffs: DiffEntry[];
  compare_timeout: boolean;
  compare_same_ref: boolean;
}

/** The patch text the service shows: hunks only (from the first `@@`), or git's binary notice. */
function patchBody(section: string): string {
  const hunk = section.search(/^@@ /m);
  if (hunk !== -1) return section.slice(hunk);
  const binary = /^Binary files .* differ$/m.exec(section);
  return binary ? `${binary[0]}\n` : '';
}

/** Diff entries from tree-ish `from` (null: empty tree) to `to`, renames detected. */
export async function diffTrees(repo: GitRepo, from: string | null, to: string): Promise<DiffEntry[]> {
  const base = from ?? EMPTY_TREE;
  const [raw, patch] = await Promise.all([
    repo.run(['diff-tree', '-r', '-z', '-M', '--raw', base, to]),
    repo.run(['diff-tree', '-r', '-M', '-p', '--no-color', '--no-ext-diff', base, to]),
  ]);
  // Patches come in the same order as raw records, one `diff --git` section each.
  const sections = patch.stdout
    .toString('utf8')
    .split(/^(?=diff --git )/m)
    .filter((s) => s.startsWith('diff --git '));
  const fields = raw.stdout.toString('utf8').split('\0');
  const entries: DiffEntry[] = [];
  for (let i = 0; i < fields.length - 1; ) {
    const [aMode, bMode, , , status] = fields[i].replace(/^:/, '').split(' ');
    const renamed = status.startsWith('R') || status.startsWith('C');
    const oldPath = fields[i + 1];
    const newPath = renamed ? fields[i + 2] : oldPath;
    i += renamed ? 3 : 2;
    const section = sections[entries.length] ?? '';
    entries.push({
      diff: Buffer.byteLength(section) > MAX_PATCH_BYTES ? '' : patchBody(section),
      old_path: oldPath,
      new_path: newPath,
      a_mode: status === 'A' ? null : aMode,
      b_mode: status === 'D' ? '0' : bMode,
      new_file: status === 'A',
      renamed_file: renamed,
      deleted_file: status === 'D',
    });
  }
  return entries;
}

/** The changes a commit made against its first parent (a root commit against the empty tree). */
export async function commitDiff(repo: GitRepo, sha: string): Promise<DiffEntry[]> {
  const commit = await repo.getCommit(sha);
  return diffTrees(repo, commit.parent_ids[0] ?? null, sha);
}

/** Added and deleted lines of each commit against its first parent, with one git process. */
export async function commitStats(repo: GitRepo, shas: readonly string[]): Promise<Map<string, CommitStats>> {
  const stats = new Map<string, CommitStats>();
  if (shas.length === 0) return stats;
  const { stdout } = await repo.run(
    ['log', '--no-walk=unsorted', '--stdin', '--format=%x00%H', '--numstat', '-M', '--diff-merges=first-parent'],
    { input: `${[...new Set(shas)].join('\n')}\n` },
  );
  for (const record of stdout.toString('utf8').split('\0')) {
    const [sha, ...lines] = record.split('\n');
    if (!/^[0-9a-f]{40}$/.test(sha)) continue;
    let additions = 0;
    let deletions = 0;
    for (const line of lines) {
      // Binary files count '-' lines, which add nothing.
      const numbers = /^(\d+|-)\t(\d+|-)\t/.exec(line);
      if (!numbers) continue;
      additions += numbers[1] === '-' ? 0 : Number(numbers[1]);
      deletions += numbers[2] === '-' ? 0 : Number(numbers[2]);
    }
    stats.set(sha, { additions, deletions, total: additions + deletions });
  }
  return stats;
}

/**
 * Compares two refs. commits are those reachable from `to` but not `from`, oldest first; diffs go from `from`
 * (straight) or from the merge base of both (not straight) to `to`. commit is the newest of commits.
 */
export async function compareRefs(
  repo: GitRepo,
  fromRef: string,
  toRef: string,
  straight: boolean,
): Promise<CompareResult> {
  const [from, to] = await repo.resolveCommits([fromRef, toRef]);
  if (from === null) throw new GitNotFoundError(`404 Ref Not Found: from '${fromRef}'`);
  if (to === null) throw new GitNotFoundError(`404 Ref Not Found: to '${toRef}'`);
  let base: string | null = from;
  if (!straight) {
    const { stdout } = await repo.run(['merge-base', from, to], { okCodes: [1] });
    base = stdout.toString('utf8').trim() || null;
  }
  const [ids, diffs] = await Promise.all([
    repo.text(['rev-list', '--reverse', `${from}..${to}`]),
    diffTrees(repo, base, to),
  ]);
  const commits = await repo.getCommits(ids === '' ? [] : ids.split('\n'));
  return {
    commit: commits.length > 0 ? commits[commits.length - 1] : null,
    commits,
    diffs,
    compare_timeout: false,
    compare_same_ref: from === to,
  };
}
