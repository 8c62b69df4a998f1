// Merging one merge request, shared by the merge route (PUT .../merge) and auto-merge (./auto-merge.ts), which merges
// it when its head pipeline succeeds: the refusals in the service's order, then a real git merge onto the target.
//
// Merging is a real git merge: `git merge-tree` computes the result, a merge commit (target head, source head) lands on
// the target branch (with squash, a squash commit on the target head comes first and is the merge's second parent);
// under the fast-forward merge method the target just moves to the source head (or the squash commit). Moving the
// target branch starts its pipeline, as a push does. Refusals: 405 for a merge request that cannot merge now (closed,
// draft, source branch gone, behind its target under ff or rebase_merge, a pipeline that must pass and has not),
// 422 "Branch cannot be merged" for conflicts, 409 "SHA does not match HEAD of source branch: <head>" for another sha.
// A merge into the default branch closes the issues its closing statements name (./closing-patterns.ts).
import type { SandboxContext } from '../../core/context.js';
import { messageError } from '../../core/errors.js';
import { branchPermissions } from '../../core/protected-branches.js';
import type { Pipeline, Project, User } from '../../core/store.js';
import { addNote } from './changes.js';
import { closeIssuesOnMerge } from './closing-patterns.js';
import { isDraft } from './item-views.js';
import type { MergeChoices, MergeRequest } from './state.js';

/** An open merge request's sha follows its source branch. */
export async function refreshHead(p: Project, mr: MergeRequest): Promise<void> {
  if (mr.state !== 'opened') return;
  const head = await p.repo.refTarget(`refs/heads/${mr.source_branch}`);
  if (head !== null) mr.sha = head;
}

/** The newest pipeline of the source branch at the merge request's head. */
export function headPipeline(p: Project, mr: MergeRequest): Pipeline | undefined {
  return p.pipelines
    .filter((pl) => pl.ref === mr.source_branch && pl.sha === mr.sha && !pl.tag)
    .sort((a, b) => b.id - a.id)[0];
}

/**
 * Whether an open merge request's changes still merge into its target, checked when it is read as the service checks
 * it (a merge request read after its target moved on reports the conflict, not only after a merge was tried). Checked
 * once per pair of heads; a conflict seeded as data stays until a check of new heads finds the changes merge.
 */
export async function checkMergeability(p: Project, mr: MergeRequest): Promise<void> {
  if (mr.state !== 'opened') return;
  const source = await p.repo.refTarget(`refs/heads/${mr.source_branch}`);
  const target = await p.repo.refTarget(`refs/heads/${mr.target_branch}`);
  if (source === null || target === null) return;
  const heads = `${target}..${source}`;
  if (mergeabilityCheckedFor.get(mr) === heads) return;
  const merged = await p.repo.run(['merge-tree', '--write-tree', '--no-messages', target, source], { okCodes: [1] });
  if (merged.exitCode === 1) mr.has_conflicts = true;
  else if (mergeabilityCheckedFor.has(mr)) mr.has_conflicts = false;
  mergeabilityCheckedFor.set(mr, heads);
}

/** The heads each merge request was last checked at: kept beside it, not in the service's record of it. */
const mergeabilityCheckedFor = new WeakMap<MergeRequest, string>();

/** Under the fast-forward and semi-linear merge methods, a source branch behind its target must be rebased first. */
export async function needsRebase(p: Project, target: string, source: string): Promise<boolean> {
  if (p.merge_method === 'merge') return false;
  return (await p.repo.run(['merge-base', '--is-ancestor', target, source], { okCodes: [1] })).exitCode !== 0;
}

/**
 * Merges the merge request now, or with `autoMerge` sets it to merge when its head pipeline succeeds (at once when
 * that pipeline already passed). Answers what happened; throws the service's refusals. The caller checked that
 * `user` may merge it.
 */
export async function acceptMergeRequest(
  ctx: SandboxContext,
  p: Project,
  mr: MergeRequest,
  user: User,
  choices: MergeChoices,
  autoMerge: boolean,
): Promise<'merged' | 'auto_merge_set'> {
  const { store } = ctx;
  return p.repo.withWriteLock(async () => {
    await refreshHead(p, mr);
    const source = await p.repo.refTarget(`refs/heads/${mr.source_branch}`);
    const target = await p.repo.refTarget(`refs/heads/${mr.target_branch}`);
    if (
      mr.state !== 'opened' ||
      isDraft(mr.title) ||
      source === null ||
      target === null ||
      (await needsRebase(p, target, source))
    ) {
      throw messageError(405, '405 Method Not Allowed');
    }
    const pipeline = headPipeline(p, mr);
    const pipelineActive = pipeline?.status === 'running' || pipeline?.status === 'pending';
    // With auto-merge: at once when the head pipeline already passed, later while it runs, not at all without one.
    const mergeNow = autoMerge
      ? pipeline?.status === 'success'
      : !(p.only_allow_merge_if_pipeline_succeeds && pipeline?.status !== 'success');
    if (!mergeNow && !(autoMerge && pipelineActive)) throw messageError(405, '405 Method Not Allowed');
    const merged = await p.repo.run(['merge-tree', '--write-tree', '--no-messages', target, source], { okCodes: [1] });
    if (merged.exitCode === 1) {
      mr.has_conflicts = true;
      throw messageError(422, 'Branch cannot be merged');
    }
    if (choices.sha !== undefined && choices.sha !== source)
      throw messageError(409, `SHA does not match HEAD of source branch: ${source}`);
    if (choices.squash !== undefined) mr.squash = choices.squash;
    const now = new Date(store.clock.now());
    if (!mergeNow) {
      // The choices are kept for the merge to come; the head they were made for is what a later push is checked against.
      Object.assign(mr, {
        merge_when_pipeline_succeeds: true,
        merge_user_id: user.id,
        merge_params: { ...choices, sha: source },
        updated_at: now,
      });
      addNote(
        store,
        p,
        mr,
        'MergeRequest',
        user,
        `enabled an automatic merge when the pipeline for ${source} succeeds`,
        true,
        now,
      );
      return 'auto_merge_set';
    }
    const tree = merged.stdout.toString('utf8').split('\n')[0].trim();
    const identity = { name: user.name, email: user.email };
    let second = source;
    if (mr.squash) {
      second = await p.repo.commitTree(tree, [target], choices.squash_commit_message ?? mr.title, identity);
      mr.squash_commit_sha = second;
    }
    // Fast-forward: the target moves to the source's head (or the squash commit), no merge commit is made.
    const fastForward = p.merge_method === 'ff';
    const message =
      choices.merge_commit_message ??
      `Merge branch '${mr.source_branch}' into '${mr.target_branch}'\n\n${mr.title}\n\nSee merge request ${p.full_path}!${mr.iid}`;
    const commit = fastForward ? second : await p.repo.commitTree(tree, [target, second], message, identity);
    await p.repo.moveBranch(mr.target_branch, commit, target);
    // Without should_remove_source_branch, the merge request's own setting decides (on by default, as the
    // project's "delete source branch" default); a protected or default branch stays.
    const removeSource = choices.should_remove_source_branch ?? mr.force_remove_source_branch ?? true;
    const sourceProtected = branchPermissions(store, p, user, ctx.projectAccess(user, p), mr.source_branch).protected;
    if (removeSource && !sourceProtected && mr.source_branch !== p.default_branch) {
      await p.repo.run(['update-ref', '-d', `refs/heads/${mr.source_branch}`, source]);
    }
    Object.assign(mr, {
      state: 'merged',
      merged_at: now,
      merged_by_id: user.id,
      merge_commit_sha: fastForward ? null : commit,
      sha: source,
      updated_at: now,
      merge_when_pipeline_succeeds: false,
      merge_params: undefined,
      merged_diff: { start_sha: target, head_sha: source },
    });
    addNote(store, p, mr, 'MergeRequest', user, 'merged', true, now);
    await closeIssuesOnMerge(ctx, p, mr, user, { target, source }, now);
    return 'merged';
  });
}
