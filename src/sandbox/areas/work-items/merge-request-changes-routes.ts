// One merge request, opening, editing, merging and approving it, and its notes (beyond the spec: the Merge
// requests, Merge request approvals and Notes APIs, v4), as the service's docs and permission table have them.
//
// Reading one needs no token on a public project (a private one is 404 to an outsider, 403 to a guest, who may not
// read its code). Opening one takes developer access (creating a merge request from the project); editing,
// developer access or being its author or an assignee (below developer, labels and people are quietly kept); a
// merge, the right to push or merge into the target branch (protected branches count; 401 otherwise, as the docs
// say); approving, the right to update it as a member of the project. Comments: anyone who may read it, with guest
// access to the project (any signed-in user on a public or internal one); a locked discussion only members.
// sha is the live head of the source branch. Merging and approving are routed in ./merge-request-merge-routes.ts, the
// merge itself and its refusals are in ./merge.ts.
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { forbidden, HttpError, paramError, recordNotFound, validationError } from '../../core/errors.js';
import { optionalParams, param } from '../../core/params.js';
import type { Router } from '../../core/router.js';
import type { Project } from '../../core/store.js';
import {
  applyItemEdits,
  applyStateEvent,
  changeLabels,
  itemFieldsShape,
  nextIid,
  openedItemFields,
  registerNoteRoutes,
  requireOneOf,
  userIds,
  withoutMetadata,
} from './changes.js';
import { checkMergeability } from './merge.js';
import { MERGE_REQUEST, MergeRequestAccess } from './merge-request-access.js';
import { registerMergeAndApprove } from './merge-request-merge-routes.js';
import { workItemsOf, type MergeRequest } from './state.js';

/** What opening and editing a merge request take alike. */
const mergeRequestFieldsShape = {
  ...itemFieldsShape,
  reviewer_ids: param.array(param.integer()).optional(),
  ...optionalParams(param.boolean, 'remove_source_branch', 'allow_collaboration', 'allow_maintainer_to_push', 'squash'),
  merge_after: z.string().optional(),
};

const createParams = z.object({
  source_branch: z.string(),
  target_branch: z.string(),
  title: z.string(),
  ...mergeRequestFieldsShape,
  ...optionalParams(param.integer, 'target_project_id', 'approvals_before_merge'),
});

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

const readParams = z.object({
  ...optionalParams(param.boolean, 'render_html', 'include_diverged_commits_count', 'include_rebase_in_progress'),
});

/** The model's refusal of a merge request from a branch into itself: 422 with the message as a list. */
function sameBranch(): HttpError {
  return new HttpError(422, { message: ["You can't use same project/branch for source and target"] });
}

/** Another open merge request for the same pair of branches: 409 with the message as a list. */
function duplicateOf(other: MergeRequest): HttpError {
  return new HttpError(409, {
    message: [`Another open merge request already exists for this source branch: !${other.iid}`],
  });
}

async function checkBranch(p: Project, branch: string, which: 'source' | 'target'): Promise<void> {
  if (!(await p.repo.branchExists(branch))) {
    throw validationError({ [`${which}_branch`]: [`${branch} does not exist`] });
  }
}

function openDuplicate(
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

/** Editing one (PUT): its fields, labels, people, closing and reopening. */
function registerUpdate(router: Router, ctx: SandboxContext, access: MergeRequestAccess): void {
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

/** Its comments: listing and adding, through the caller's own view of merge requests. */
function registerNotes(router: Router, ctx: SandboxContext, access: MergeRequestAccess): void {
  registerNoteRoutes(router, ctx, MERGE_REQUEST, 'MergeRequest', (req) => {
    const { project, mr } = access.visible(req);
    return { project, item: mr };
  });
}
