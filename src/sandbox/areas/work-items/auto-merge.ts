// Auto-merge ("merge when pipeline succeeds"), as the service's docs describe it: a merge request set to auto-merge is
// merged by the user who set it when its head pipeline succeeds. When that pipeline fails or is canceled it stays set
// and waits, so a retried job that passes still merges it; new commits on the source branch cancel it, so that they
// are reviewed first; closing the merge request cancels it too (in the update route).
import type { SandboxContext } from '../../core/context.js';
import { HttpError } from '../../core/errors.js';
import { branchPermissions } from '../../core/protected-branches.js';
import type { Pipeline, Project, User } from '../../core/store.js';
import { onPipelineChange } from '../jobs/index.js';
import { addNote } from './changes.js';
import { acceptMergeRequest, headPipeline, refreshHead } from './merge.js';
import { workItemsOf, type MergeRequest } from './state.js';

/** Listens to the runner and to pushes for as long as the sandbox runs. */
export function startAutoMerge(ctx: SandboxContext): void {
  const { store } = ctx;

  const waiting = (project: Project, branch: string) =>
    workItemsOf(store).mergeRequests.filter(
      (mr) =>
        mr.project_id === project.id &&
        mr.state === 'opened' &&
        mr.merge_when_pipeline_succeeds === true &&
        mr.source_branch === branch,
    );

  function abort(project: Project, mr: MergeRequest, because: string): void {
    const by = store.users.find((u) => u.id === mr.merge_user_id);
    Object.assign(mr, { merge_when_pipeline_succeeds: false, merge_user_id: null, merge_params: undefined });
    if (by)
      addNote(
        store,
        project,
        mr,
        'MergeRequest',
        by,
        `aborted the automatic merge because ${because}`,
        true,
        new Date(store.clock.now()),
      );
  }

  /** Whether the user who set it may still merge it (push or merge rights on the target branch). */
  const mayStillMerge = (user: User, project: Project, mr: MergeRequest) => {
    const may = branchPermissions(store, project, user, ctx.projectAccess(user, project), mr.target_branch);
    return !project.archived && (may.push || may.merge);
  };

  async function mergeWhenPassed(project: Project, mr: MergeRequest, pipeline: Pipeline): Promise<void> {
    await refreshHead(project, mr);
    // Only the merge request's head pipeline counts: one for an older commit, or superseded by a newer run, does not.
    if (mr.state !== 'opened' || !mr.merge_when_pipeline_succeeds || headPipeline(project, mr)?.id !== pipeline.id)
      return;
    const user = store.users.find((u) => u.id === mr.merge_user_id);
    if (!user || !mayStillMerge(user, project, mr)) {
      abort(project, mr, 'the user who set it may no longer merge it');
      return;
    }
    try {
      await acceptMergeRequest(ctx, project, mr, user, mr.merge_params ?? {}, true);
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      const body = error.body as { message?: unknown };
      abort(project, mr, `the merge failed: ${typeof body.message === 'string' ? body.message : error.status}`);
    }
  }

  const stopListening = onPipelineChange(store, (project, pipeline) => {
    if (pipeline.status !== 'success' || pipeline.tag) return;
    for (const mr of waiting(project, pipeline.ref)) {
      store.track(
        mergeWhenPassed(project, mr, pipeline).catch((error: unknown) => {
          ctx.log(
            `sandbox: auto-merge of ${project.full_path}!${mr.iid} failed: ${error instanceof Error ? error.message : String(error)}`,
          );
        }),
      );
    }
  });
  store.onClose.push(stopListening);

  store.onBranchMoved.push(async (project, branch, sha) => {
    for (const mr of waiting(project, branch))
      if (mr.merge_params?.sha !== sha) abort(project, mr, 'the source branch was updated');
  });
}
