// Walking history: commit lists with the service's filters, contributors, merge bases and refs containing a commit.
import { COMMIT_LOG_FORMAT, parseCommitLog, type GitCommitInfo } from './commit-format.js';
import { GitNotFoundError } from './errors.js';
import { isRepositoryPath, type GitRepo } from './repo.js';

interface ListCommitsOptions {
  /** Branch, tag, SHA, or a range `a..b` / `a...b`; defaults to the default branch. */
  ref?: string;
  /** Inclusive bounds on the committed date. */
  since?: Date;
  until?: Date;
  /** Only commits touching this path. */
  path?: string;
  /** Every branch and tag (ref is ignored). */
  all?: boolean;
  firstParent?: boolean;
  order?: 'default' | 'topo';
}

interface Contributor {
  name: string;
  email: string;
  commits: number;
  additions: number;
  deletions: number;
}

/** Turns `a`, `a..b` or `a...b` into the same expression over resolved SHAs; unknown refs are a 404. */
async function revisionRange(repo: GitRepo, ref: string): Promise<string[]> {
  const range = /^(.+?)(\.\.\.?)(.+)$/.exec(ref);
  const names = range ? [range[1], range[3]] : [ref];
  const shas = await repo.resolveCommits(names);
  shas.forEach((sha, i) => {
    if (sha === null) throw new GitNotFoundError(`404 Commit Not Found: ref_name '${names[i]}'`);
  });
  return range ? [`${shas[0]}${range[2]}${shas[1]}`] : [shas[0] as string];
}

/**
 * A path filter as a repository path (surrounding slashes dropped, as for the tree), or null when it cannot name
 * anything in a repository: git would read '..' or '/x' against the directory it runs in and fail, and would
 * quietly turn 'x/../y' into 'y' or '.' into everything.
 */
function repositoryPath(filter: string): string | null {
  const trimmed = filter.replace(/^\/+|\/+$/g, '');
  return trimmed === '' || isRepositoryPath(trimmed) ? trimmed : null;
}

/** Commits as `git log` walks them, filtered as the service's commit list. An empty repository has none. */
export async function listCommits(repo: GitRepo, options: ListCommitsOptions = {}): Promise<GitCommitInfo[]> {
  const pathFilter = options.path === undefined ? '' : repositoryPath(options.path);
  if (await repo.isEmpty()) return [];
  const revisions = options.all ? ['--all'] : await revisionRange(repo, options.ref ?? (await repo.defaultBranch()));
  if (pathFilter === null) return [];
  const args = ['log', '-z', COMMIT_LOG_FORMAT];
  if (options.firstParent) args.push('--first-parent');
  if (options.order === 'topo') args.push('--topo-order');
  args.push(...revisions, '--');
  if (pathFilter !== '') args.push(pathFilter);
  const { stdout } = await repo.run(args);
  const since = options.since?.getTime() ?? -Infinity;
  const until = options.until?.getTime() ?? Infinity;
  // Filtering here (not with git's --since, which stops at the first older commit) keeps the bounds exact.
  return parseCommitLog(stdout).filter((commit) => {
    const committed = Date.parse(commit.committed_date);
    return committed >= since && committed <= until;
  });
}

/**
 * Authors of the history of ref (default branch), grouped by e-mail (case-insensitive, the latest name wins),
 * with their commit count and added and deleted lines; ordered by orderBy then name.
 */
export async function contributors(
  repo: GitRepo,
  options: { ref?: string; orderBy?: 'name' | 'email' | 'commits'; sort?: 'asc' | 'desc' } = {},
): Promise<Contributor[]> {
  if (await repo.isEmpty()) return [];
  const [revision] = await revisionRange(repo, options.ref ?? (await repo.defaultBranch()));
  const { stdout } = await repo.run(['log', '--format=%x00%an%x00%ae', '--numstat', '-M', revision, '--']);
  const byEmail = new Map<string, Contributor>();
  const parts = stdout.toString('utf8').split('\0');
  // Each commit is '\0name\0email\n\n<numstat lines>', so the parts after the leading '' come in pairs.
  for (let i = 1; i + 1 < parts.length; i += 2) {
    const name = parts[i];
    const [email, ...lines] = parts[i + 1].split('\n');
    const key = email.toLowerCase();
    const entry = byEmail.get(key) ?? { name, email, commits: 0, additions: 0, deletions: 0 };
    entry.commits += 1;
    for (const line of lines) {
      const numbers = /^(\d+|-)\t(\d+|-)\t/.exec(line);
      if (!numbers) continue;
      entry.additions += numbers[1] === '-' ? 0 : Number(numbers[1]);
      entry.deletions += numbers[2] === '-' ? 0 : Number(numbers[2]);
    }
    byEmail.set(key, entry);
  }
  const orderBy = options.orderBy ?? 'commits';
  const direction = options.sort === 'desc' ? -1 : 1;
  const byName = (a: Contributor, b: Contributor) => a.name.localeCompare(b.name) || a.email.localeCompare(b.email);
  return [...byEmail.values()].sort((a, b) => {
    const primary = orderBy === 'commits' ? a.commits - b.commits : a[orderBy].localeCompare(b[orderBy]);
    return primary * direction || byName(a, b);
  });
}

/** The best common ancestor of all refs (an octopus merge base), or null when they share no history. */
export async function mergeBase(repo: GitRepo, refs: readonly string[]): Promise<string | null> {
  const shas = await repo.resolveCommits(refs);
  shas.forEach((sha, i) => {
    if (sha === null) throw new GitNotFoundError(`Could not find ref: ${refs[i]}`);
  });
  const { stdout } = await repo.run(['merge-base', '--octopus', ...(shas as string[])], { okCodes: [1] });
  const base = stdout.toString('utf8').trim().split('\n')[0];
  return base === '' ? null : base;
}

/** Branches and tags whose history contains the commit, branches first, each sorted by name. */
export async function refsContaining(
  repo: GitRepo,
  sha: string,
  type: 'branch' | 'tag' | 'all',
): Promise<{ type: 'branch' | 'tag'; name: string }[]> {
  const prefixes =
    type === 'branch' ? ['refs/heads/'] : type === 'tag' ? ['refs/tags/'] : ['refs/heads/', 'refs/tags/'];
  const output = await repo.text(['for-each-ref', `--contains=${sha}`, '--format=%(refname)', ...prefixes]);
  if (output === '') return [];
  return output
    .split('\n')
    .map((refname) =>
      refname.startsWith('refs/heads/')
        ? { type: 'branch' as const, name: refname.slice('refs/heads/'.length) }
        : { type: 'tag' as const, name: refname.slice('refs/tags/'.length) },
    );
}
