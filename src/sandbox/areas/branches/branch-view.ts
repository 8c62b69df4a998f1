// A branch as the Branches API shows it: its commit, whether it is merged, protected or the default, what developers
// and the caller may do on it, and its web URL.
import type { SandboxContext } from '../../core/context.js';
import { branchPermissions, protectionsFor, type ProtectedBranch } from '../../core/protected-branches.js';
import { projectWebUrl } from '../../core/views.js';
import { ACCESS, type Project, type User } from '../../core/store.js';
import type { GitCommitInfo } from '../../git/commit-format.js';
import { branchHeads, mergedInto } from './git.js';

interface Ctx {
  ctx: SandboxContext;
  project: Project;
  user: User | null;
}

function levelOf(rules: ProtectedBranch['push_access_levels']): number {
  return Math.min(...rules.map((rule) => rule.access_level).map((level) => (level === 0 ? Infinity : level)));
}

/** The permission a branch gives its caller, as the service computes it for this record. */
function canPush(ctx: SandboxContext, project: Project, user: User | null, branch: string): boolean {
  return (
    !project.archived && branchPermissions(ctx.store, project, user, ctx.projectAccess(user, project), branch).push
  );
}

/** Branch records for the named heads, in the order given. */
export async function branchViews({ ctx, project, user }: Ctx, heads: Array<[string, string]>): Promise<unknown[]> {
  const repo = project.repo;
  const defaultBranch = await repo.defaultBranch();
  const allHeads = await branchHeads(repo);
  const merged = allHeads.has(defaultBranch)
    ? await mergedInto(repo, `refs/heads/${defaultBranch}`)
    : new Set<string>();
  const commits = await repo.getCommits(heads.map(([, sha]) => sha));
  const webUrl = projectWebUrl(ctx.store, project);
  return heads.map(([name], index) => {
    const protections = protectionsFor(ctx.store, project, name);
    const isProtected = protections.length > 0;
    const pushLevel = isProtected
      ? Math.min(...protections.map((p) => levelOf(p.push_access_levels)))
      : ACCESS.developer;
    const mergeLevel = isProtected
      ? Math.min(...protections.map((p) => levelOf(p.merge_access_levels)))
      : ACCESS.developer;
    return {
      name,
      commit: commitRecord(commits[index], webUrl),
      merged: name !== defaultBranch && merged.has(name),
      protected: isProtected,
      default: name === defaultBranch,
      developers_can_push: isProtected && pushLevel <= ACCESS.developer,
      developers_can_merge: isProtected && mergeLevel <= ACCESS.developer,
      can_push: canPush(ctx, project, user, name),
      web_url: `${webUrl}/-/tree/${name.split('/').map(encodeURIComponent).join('/')}`,
    };
  });
}

function commitRecord(commit: GitCommitInfo, projectUrl: string) {
  return {
    ...commit,
    parent_ids: [...commit.parent_ids],
    trailers: {},
    extended_trailers: {},
    web_url: `${projectUrl}/-/commit/${commit.id}`,
  };
}
