// One merge request, opening, editing, merging and approving it, and its notes (beyond the spec: the Merge
// requests, Merge request approvals and Notes APIs, v4), as the service's docs and permission table have them.
//
// Reading one needs no token on a public project (a private one is 404 to an outsider, 403 to a guest, who may not
// read its code). Opening one takes developer access (creating a merge request from the project); editing,
// developer access or being its author or an assignee (below developer, labels and people are quietly kept); a
// merge, the right to push or merge into the target branch (protected branches count; 401 otherwise, as the docs
// say); approving, the right to update it as a member of the project. Comments: anyone who may read it, with guest
// access to the project (any signed-in user on a public or internal one); a locked discussion only members.
// sha is the live head of the source branch. Editing is routed in ./merge-request-update-routes.ts, merging and
// approving in ./merge-request-merge-routes.ts; the merge itself and its refusals are in ./merge.ts.
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { forbidden, HttpError, recordNotFound, validationError } from '../../core/errors.js';
import { optionalParams, param } from '../../core/params.js';
import type { Router } from '../../core/router.js';
import { changeLabels, nextIid, openedItemFields, registerNoteRoutes, userIds } from './changes.js';
import { checkMergeability } from './merge.js';
import { MERGE_REQUEST, MergeRequestAccess } from './merge-request-access.js';
import { registerMergeAndApprove } from './merge-request-merge-routes.js';
import {
  checkBranch,
  duplicateOf,
  mergeRequestFieldsShape,
  openDuplicate,
  registerUpdate,
  sameBranch,
} from './merge-request-update-routes.js';
import { workItemsOf, type MergeRequest } from './state.js';

const createParams = z.object({
  source_branch: z.string(),
  target_branch: z.string(),
  title: z.string(),
  ...mergeRequestFieldsShape,
  ...optionalParams(param.integer, 'target_project_id', 'approvals_before_merge'),
});

const readParams = z.object({
  ...optionalParams(param.boolean, 'render_html', 'include_diverged_commits_count', 'include_rebase_in_progress'),
});

export function register(router: Router, ctx: SandboxContext): void {
  const access = new MergeRequestAccess(ctx);
  registerReadAndOpen(router, ctx, access);
  registerUpdate(router, ctx, access);
  registerMergeAndApprove(router, ctx, access);
  registerNotes(router, ctx, access);
}

/** GET one, and opening one (POST). */
function registerReadAndOpen(router: Router, ctx: SandboxContext, access: MergeRequestAccess): void {
  const { store } = ctx;
  router.route('GET', MERGE_REQUEST, { params: readParams }, async (req, reply) => {
    const { project: p, mr } = access.findMergeRequest(req);
    await p.repo.withWriteLock(() => checkMergeability(p, mr));
    reply.json(await access.view(p, mr, req.user, req.params));
  });

  router.route('POST', '/projects/:id/merge_requests', { params: createParams, auth: 'user' }, async (req, reply) => {
    const user = ctx.requireUser(req);
    const p = access.project(req);
    if (p.archived || !access.developer(user, p)) throw forbidden();
    const params = req.params;
    // The sandbox has no forks: another target project is the model's refusal of a source that is not its fork.
    if (params.target_project_id !== undefined && params.target_project_id !== p.id) {
      if (!store.findProject(String(params.target_project_id))) throw recordNotFound();
      throw new HttpError(422, { message: ['Source project is not a fork of the target project'] });
    }
    if (params.title.trim() === '') throw validationError({ title: ["can't be blank"] });
    await checkBranch(p, params.source_branch, 'source');
    await checkBranch(p, params.target_branch, 'target');
    if (params.source_branch === params.target_branch) throw sameBranch();
    const duplicate = openDuplicate(store, p, { ...params, id: -1 });
    if (duplicate) throw duplicateOf(duplicate);
    const items = workItemsOf(store);
    const now = new Date();
    const iid = nextIid(items.mergeRequests.filter((m) => m.project_id === p.id));
    const mr: MergeRequest = {
      id: store.nextId('merge_request'),
      ...openedItemFields(store, p, user, params, iid, now),
      discussion_locked: null,
      source_branch: params.source_branch,
      target_branch: params.target_branch,
      merged_by_id: null,
      merged_at: null,
      sha: await p.repo.refTarget(`refs/heads/${params.source_branch}`),
      merge_commit_sha: null,
      squash: params.squash ?? false,
      has_conflicts: false,
      approver_ids: [],
      approved_by_ids: [],
      reviewer_ids: userIds(store, params.reviewer_ids ?? []),
      squash_commit_sha: null,
      force_remove_source_branch: params.remove_source_branch ?? true,
    };
    items.mergeRequests.push(mr);
    changeLabels(store, { kind: 'MergeRequest', item: mr }, params, user, now);
    reply.json(await access.view(p, mr, user), 201);
  });
}

/** Its comments: listing and adding, through the caller's own view of merge requests. */
function registerNotes(router: Router, ctx: SandboxContext, access: MergeRequestAccess): void {
  registerNoteRoutes(router, ctx, MERGE_REQUEST, 'MergeRequest', (req) => {
    const { project, mr } = access.visible(req);
    return { project, item: mr };
  });
}
