// Editing one merge request (PUT): its fields, labels, people, closing and reopening; and the rules opening one
// (./merge-request-changes-routes.ts) shares with it: the fields both take, branches that exist and differ, and no
// second open merge request for the same pair of branches.
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { forbidden, HttpError, paramError, validationError } from '../../core/errors.js';
import { optionalParams, param } from '../../core/params.js';
import type { Router } from '../../core/router.js';
import type { Project } from '../../core/store.js';
import {
  applyItemEdits,
  applyStateEvent,
  changeLabels,
  itemFieldsShape,
  requireOneOf,
  userIds,
  withoutMetadata,
} from './changes.js';
import { MERGE_REQUEST, type MergeRequestAccess } from './merge-request-access.js';
import { workItemsOf, type MergeRequest } from './state.js';

/** What opening and editing a merge request take alike. */
export const mergeRequestFieldsShape = {
  ...itemFieldsShape,
  reviewer_ids: param.array(param.integer()).optional(),
  ...optionalParams(param.boolean, 'remove_source_branch', 'allow_collaboration', 'allow_maintainer_to_push', 'squash'),
  merge_after: z.string().optional(),
};

/** The names the service wants at least one of in an update. */
const UPDATE_KEYS = [
  'assignee_id',
  'assignee_ids',
  'reviewer_ids',
  'description',
  'labels',
  'add_labels',
  'remove_labels',
  'milestone_id',
  'remove_source_branch',
  'allow_collaboration',
  'allow_maintainer_to_push',
  'squash',
  'target_branch',
  'title',
  'state_event',
  'discussion_locked',
  'merge_after',
] as const;

const updateParams = z.object({
  ...optionalParams(param.string, 'title', 'target_branch'),
  state_event: param.enum(['close', 'reopen']).optional(),
  ...mergeRequestFieldsShape,
  discussion_locked: param.boolean().optional(),
});

/** The model's refusal of a merge request from a branch into itself: 422 with the message as a list. */
export function sameBranch(): HttpError {
  return new HttpError(422, { message: ["You can't use same project/branch for source and target"] });
}

/** Another open merge request for the same pair of branches: 409 with the message as a list. */
export function duplicateOf(other: MergeRequest): HttpError {
  return new HttpError(409, {
    message: [`Another open merge request already exists for this source branch: !${other.iid}`],
  });
}

export async function checkBranch(p: Project, branch: string, which: 'source' | 'target'): Promise<void> {
  if (!(await p.repo.branchExists(branch))) {
    throw validationError({ [`${which}_branch`]: [`${branch} does not exist`] });
  }
}

export function openDuplicate(
  store: SandboxContext['store'],
  p: Project,
  mr: Pick<MergeRequest, 'source_branch' | 'target_branch' | 'id'>,
): MergeRequest | undefined {
  return workItemsOf(store).mergeRequests.find(
    (m) =>
      m.project_id === p.id &&
      m.id !== mr.id &&
      m.state === 'opened' &&
      m.source_branch === mr.source_branch &&
      m.target_branch === mr.target_branch,
  );
}

/** Editing one (PUT): its fields, labels, people, closing and reopening. */
export function registerUpdate(router: Router, ctx: SandboxContext, access: MergeRequestAccess): void {
  const { store } = ctx;
  router.route('PUT', MERGE_REQUEST, { params: updateParams, auth: 'user' }, async (req, reply) => {
    const user = ctx.requireUser(req);
    requireOneOf(req.params, UPDATE_KEYS);
    const { project: p, mr } = access.findMergeRequest(req);
    if (!access.mayUpdate(user, p, mr)) throw forbidden();
    // Below developer (an author or assignee), labels, people, milestone and locking are quietly kept as they are.
    const params = access.developer(user, p) ? req.params : withoutMetadata(req.params);
    if (params.title !== undefined && params.title.trim() === '') throw paramError('title is empty');
    if (params.target_branch !== undefined) {
      if (params.target_branch === '') throw paramError('target_branch is empty');
      if (mr.state === 'merged')
        throw validationError({ target_branch: ['cannot be changed on a merged merge request'] });
      await checkBranch(p, params.target_branch, 'target');
      if (params.target_branch === mr.source_branch) throw sameBranch();
    }
    const now = new Date();
    applyItemEdits(store, p, mr, params);
    if (params.target_branch !== undefined) mr.target_branch = params.target_branch;
    if (params.reviewer_ids !== undefined) mr.reviewer_ids = userIds(store, params.reviewer_ids);
    if (params.squash !== undefined) mr.squash = params.squash;
    if (params.remove_source_branch !== undefined) mr.force_remove_source_branch = params.remove_source_branch;
    changeLabels(store, { kind: 'MergeRequest', item: mr }, params, user, now);
    const event = { state_event: params.state_event, user, at: now };
    // Closing cancels an auto-merge, as on the service: reopening does not bring it back.
    const cancelAutoMerge = { merge_when_pipeline_succeeds: false, merge_user_id: null, merge_params: undefined };
    applyStateEvent(store, p, { kind: 'MergeRequest', item: mr }, event, cancelAutoMerge, () => {
      const duplicate = openDuplicate(store, p, mr);
      if (duplicate) throw duplicateOf(duplicate);
    });
    mr.updated_at = now;
    reply.json(await access.view(p, mr, user));
  });
}
