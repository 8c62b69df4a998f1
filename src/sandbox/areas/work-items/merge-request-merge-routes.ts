// Merging a merge request (now, or when its pipeline succeeds, and canceling that) and approving it, as the service's
// docs have them: a merge needs the right to push or merge into the target branch (401 otherwise, as the docs say);
// an approval, the right to update it as a member of the project. The merge itself, and its refusals, are in ./merge.ts.
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { forbidden, messageError, unauthorized } from '../../core/errors.js';
import { optionalParams, param } from '../../core/params.js';
import type { Router } from '../../core/router.js';
import { ACCESS, type User } from '../../core/store.js';
import { userBasic } from '../../core/views.js';
import { addNote } from './changes.js';
import { acceptMergeRequest, refreshHead } from './merge.js';
import { MERGE_REQUEST, type MergeRequestAccess } from './merge-request-access.js';
import { mergeRequestBasics } from './item-views.js';

const mergeParams = z.object({
  sha: z.string().optional(),
  ...optionalParams(param.boolean, 'squash', 'should_remove_source_branch'),
  ...optionalParams(param.string, 'merge_commit_message', 'squash_commit_message'),
  ...optionalParams(param.boolean, 'merge_when_pipeline_succeeds', 'auto_merge'),
});

const approveParams = z.object({
  ...optionalParams(param.string, 'sha', 'approval_password'),
  publish_review: param.boolean().optional(),
});

/** Merging one, now or when its pipeline succeeds, and canceling an automatic merge. */
function registerMerge(router: Router, ctx: SandboxContext, access: MergeRequestAccess): void {
  const { store } = ctx;
  router.route('PUT', `${MERGE_REQUEST}/merge`, { params: mergeParams, auth: 'user' }, async (req, reply) => {
    const user = ctx.requireUser(req);
    const { project: p, mr } = access.visible(req);
    // The docs: "401 Unauthorized — this user does not have permission to accept this merge request" (push or merge
    // rights on the target branch, protected branches included).
    if (!access.developer(user, p) || !access.canMerge(user, p, mr)) throw unauthorized();
    const { merge_when_pipeline_succeeds: whenPipelineSucceeds, auto_merge: auto, ...choices } = req.params;
    await acceptMergeRequest(ctx, p, mr, user, choices, whenPipelineSucceeds === true || auto === true);
    reply.json(await access.view(p, mr, user));
  });

  // The vendor's docs: 201 with the merge request once its automatic merge is canceled, 401 for who may neither
  // update it nor be the one who set the merge, 405 when it is merged or closed, 406 when no automatic merge is set.
  router.route('POST', `${MERGE_REQUEST}/cancel_merge_when_pipeline_succeeds`, { auth: 'user' }, async (req, reply) => {
    const user = ctx.requireUser(req);
    const { project: p, mr } = access.findMergeRequest(req);
    if (!access.mayUpdate(user, p, mr) && mr.merge_user_id !== user.id) throw unauthorized();
    if (mr.state === 'merged' || mr.state === 'closed') throw messageError(405, '405 Method Not Allowed');
    if (!mr.merge_when_pipeline_succeeds) throw messageError(406, '406 Not Acceptable');
    const now = new Date(store.clock.now());
    Object.assign(mr, { merge_when_pipeline_succeeds: false, merge_user_id: null, merge_params: undefined });
    mr.updated_at = now;
    addNote(store, p, mr, 'MergeRequest', user, 'canceled the automatic merge', true, now);
    reply.json(await access.view(p, mr, user), 201);
  });
}

/** Approving one (no approval rules: one approval from each who may). */
function registerApprove(router: Router, ctx: SandboxContext, access: MergeRequestAccess): void {
  const { store } = ctx;
  router.route('POST', `${MERGE_REQUEST}/approve`, { params: approveParams, auth: 'user' }, async (req, reply) => {
    const user = ctx.requireUser(req);
    const { project: p, mr } = access.findMergeRequest(req);
    // The service's rule: who may update it and is a member of the project (its author or an assignee among them).
    if (!access.mayUpdate(user, p, mr) || store.projectAccess(user, p) < ACCESS.guest) throw forbidden();
    await refreshHead(p, mr);
    if (req.params.sha !== undefined && req.params.sha !== mr.sha)
      throw messageError(409, `SHA does not match HEAD of source branch: ${mr.sha}`);
    // The service answers an approval already given, or of a merge request no longer open, with 401.
    if (mr.approved_by_ids.includes(user.id)) throw unauthorized();
    if (mr.state !== 'opened') throw unauthorized();
    mr.approved_by_ids.push(user.id);
    addNote(store, p, mr, 'MergeRequest', user, 'approved this merge request', true);
    const approvers = mr.approved_by_ids
      .map((id) => store.findUser(String(id)))
      .filter((u): u is User => u !== undefined);
    reply.json(
      {
        ...mergeRequestBasics(mr),
        merge_status: mr.has_conflicts ? 'cannot_be_merged' : 'can_be_merged',
        approved: true,
        approvals_required: 0,
        approvals_left: 0,
        require_password_to_approve: false,
        approved_by: approvers.map((u) => ({ user: userBasic(store, u) })),
        suggested_approvers: [],
        approvers: [],
        approver_groups: [],
        user_has_approved: true,
        user_can_approve: false,
        approval_rules_left: [],
        has_approval_rules: false,
        merge_request_approvers_available: false,
        multiple_approval_rules_available: false,
        invalid_approvers_rules: [],
      },
      201,
    );
  });
}

/** Merging, canceling an automatic merge, and approving. */
export function registerMergeAndApprove(router: Router, ctx: SandboxContext, access: MergeRequestAccess): void {
  registerMerge(router, ctx, access);
  registerApprove(router, ctx, access);
}
