// One merge request, opening, editing, merging and approving it, and its notes (beyond the spec: the Merge
// requests, Merge request approvals and Notes APIs, v4), as the service's docs and permission table have them.
//
// Reading one needs no token on a public project (a private one is 404 to an outsider, 403 to a guest, who may not
// read its code). Opening one takes developer access (creating a merge request from the project); editing,
// developer access or being its author or an assignee (below developer, labels and people are quietly kept); a
// merge, the right to push or merge into the target branch (protected branches count; 401 otherwise, as the docs
// say); approving, the right to update it as a member of the project. Comments: anyone who may read it, with guest
// access to the project (any signed-in user on a public or internal one); a locked discussion only members.
// sha is the live head of the source branch. The merge itself, and its refusals, are in ./merge.ts.
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import {
  forbidden,
  HttpError,
  messageError,
  paramError,
  recordNotFound,
  unauthorized,
  validationError,
} from '../../core/errors.js';
import { param } from '../../core/params.js';
import { branchPermissions } from '../../core/protected-branches.js';
import { integerPathParam, type Router, type SandboxRequest } from '../../core/router.js';
import { ACCESS, type Project, type User } from '../../core/store.js';
import { pipelineBasic, pipelineFull, userBasic } from '../../core/views.js';
import {
  addNote,
  changeLabels,
  commentOn,
  labelChangeShape,
  noteCreateParams,
  noteListParams,
  noteView,
  replyNotes,
  requireOneOf,
  userIds,
  withoutMetadata,
} from './changes.js';
import { acceptMergeRequest, checkMergeability, headPipeline, needsRebase, refreshHead } from './merge.js';
import { canSeeMergeRequests, isDraft, mergeRequestView } from './shared.js';
import { workItemsOf, type MergeRequest } from './state.js';

const ids = () => param.array(param.integer());

const createParams = z.object({
  source_branch: z.string(),
  target_branch: z.string(),
  title: z.string(),
  description: z.string().optional(),
  ...labelChangeShape,
  assignee_id: param.integer().optional(),
  assignee_ids: ids().optional(),
  reviewer_ids: ids().optional(),
  milestone_id: param.integer().optional(),
  remove_source_branch: param.boolean().optional(),
  allow_collaboration: param.boolean().optional(),
  allow_maintainer_to_push: param.boolean().optional(),
  squash: param.boolean().optional(),
  target_project_id: param.integer().optional(),
  merge_after: z.string().optional(),
  approvals_before_merge: param.integer().optional(),
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
  title: z.string().optional(),
  description: z.string().optional(),
  target_branch: z.string().optional(),
  state_event: param.enum(['close', 'reopen']).optional(),
  ...labelChangeShape,
  assignee_id: param.integer().optional(),
  assignee_ids: ids().optional(),
  reviewer_ids: ids().optional(),
  milestone_id: param.integer().optional(),
  remove_source_branch: param.boolean().optional(),
  allow_collaboration: param.boolean().optional(),
  allow_maintainer_to_push: param.boolean().optional(),
  squash: param.boolean().optional(),
  discussion_locked: param.boolean().optional(),
  merge_after: z.string().optional(),
});

const readParams = z.object({
  render_html: param.boolean().optional(),
  include_diverged_commits_count: param.boolean().optional(),
  include_rebase_in_progress: param.boolean().optional(),
});

const mergeParams = z.object({
  sha: z.string().optional(),
  squash: param.boolean().optional(),
  should_remove_source_branch: param.boolean().optional(),
  merge_commit_message: z.string().optional(),
  squash_commit_message: z.string().optional(),
  merge_when_pipeline_succeeds: param.boolean().optional(),
  auto_merge: param.boolean().optional(),
});

const approveParams = z.object({
  sha: z.string().optional(),
  approval_password: z.string().optional(),
  publish_review: param.boolean().optional(),
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

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function register(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;

  /** The project of a merge request route: 404 when hidden, 403 when its merge requests are off or unreadable. */
  function project(req: SandboxRequest<unknown>): Project {
    const found = ctx.findProjectFor(req, req.pathParams.id);
    if (!canSeeMergeRequests(ctx, req.user, found)) throw forbidden();
    return found;
  }

  function findMergeRequest(req: SandboxRequest<unknown>) {
    const found = ctx.findProjectFor(req, req.pathParams.id);
    const iid = integerPathParam(req, 'merge_request_iid');
    const mr = workItemsOf(store).mergeRequests.find((m) => m.project_id === found.id && m.iid === iid);
    if (!mr) throw recordNotFound();
    if (!canSeeMergeRequests(ctx, req.user, found)) throw forbidden();
    return { project: found, mr };
  }

  const developer = (user: User | null, p: Project) => user !== null && ctx.projectAccess(user, p) >= ACCESS.developer;
  const mayUpdate = (user: User, p: Project, mr: MergeRequest) =>
    !p.archived &&
    (developer(user, p) ||
      ((mr.author_id === user.id || mr.assignee_ids.includes(user.id)) && ctx.projectAccess(user, p) >= ACCESS.guest));
  /** Whether the caller may merge it: push or merge rights on the target branch, protected branches included. */
  const canMerge = (user: User | null, p: Project, mr: MergeRequest) => {
    if (user === null || p.archived) return false;
    const may = branchPermissions(store, p, user, ctx.projectAccess(user, p), mr.target_branch);
    return may.push || may.merge;
  };

  async function mergeBase(p: Project, a: string, b: string): Promise<string | null> {
    const result = await p.repo.run(['merge-base', a, b], { okCodes: [1] });
    return result.exitCode === 0 ? result.stdout.toString('utf8').trim() : null;
  }

  /** base, head and start of the diff the merge request shows: the live branches while open, the merged diff after. */
  async function diffRefs(p: Project, mr: MergeRequest) {
    let start: string | null;
    let head = mr.sha;
    if (mr.merged_diff) {
      ({ start_sha: start, head_sha: head } = mr.merged_diff);
    } else if (mr.state === 'merged') {
      // Merged before this sandbox started: the merge commit's parents are the target's head then and the source's.
      const parents = mr.merge_commit_sha === null ? [] : (await p.repo.getCommit(mr.merge_commit_sha)).parent_ids;
      start = parents[0] ?? null;
      if (parents.length > 1) head = parents[1];
    } else {
      start = await p.repo.refTarget(`refs/heads/${mr.target_branch}`);
    }
    if (start === null || head === null) return null;
    return { base_sha: (await mergeBase(p, start, head)) ?? start, head_sha: head, start_sha: start };
  }

  /** The service's detailed_merge_status, as far as the sandbox knows it (its checks, in the service's order). */
  async function detailedStatus(
    p: Project,
    mr: MergeRequest,
    refs: Awaited<ReturnType<typeof diffRefs>>,
  ): Promise<string> {
    if (mr.state !== 'opened') return 'not_open';
    if (isDraft(mr.title)) return 'draft_status';
    const source = await p.repo.refTarget(`refs/heads/${mr.source_branch}`);
    if (source === null || refs === null) return 'commits_status';
    if (mr.has_conflicts) return 'conflict';
    if (await needsRebase(p, refs.start_sha, source)) return 'need_rebase';
    if (p.only_allow_merge_if_pipeline_succeeds) {
      const status = headPipeline(p, mr)?.status;
      if (status === 'running' || status === 'pending') return 'ci_still_running';
      if (status !== 'success') return 'ci_must_pass';
    }
    return 'mergeable';
  }

  async function changesCount(refs: Awaited<ReturnType<typeof diffRefs>>, p: Project): Promise<string | null> {
    if (refs === null) return null;
    const names = await p.repo.text(['diff', '--name-only', refs.base_sha, refs.head_sha]);
    return String(names.split('\n').filter((line) => line !== '').length);
  }

  /** The single merge request form: the list form plus what the service adds for one (Entities::MergeRequest). */
  async function view(p: Project, mr: MergeRequest, caller: User | null, options: z.output<typeof readParams> = {}) {
    await refreshHead(p, mr);
    const refs = await diffRefs(p, mr);
    const pipeline = headPipeline(p, mr);
    const seesPipelines = ctx.canReadCode(caller, p);
    const mergeUserId = mr.merged_by_id ?? mr.merge_user_id ?? null;
    const mergeUser = mergeUserId === null ? undefined : store.findUser(String(mergeUserId));
    const diverged =
      options.include_diverged_commits_count && refs !== null
        ? Number((await p.repo.text(['rev-list', '--count', `${refs.head_sha}..${refs.start_sha}`])).trim())
        : undefined;
    return {
      ...mergeRequestView(store, p, mr, { kind: 'project', project: p }, false),
      ...(options.render_html
        ? { title_html: escapeHtml(mr.title), description_html: `<p>${escapeHtml(mr.description)}</p>` }
        : {}),
      imported: false,
      imported_from: 'none',
      draft: isDraft(mr.title),
      merge_user: mergeUser ? userBasic(store, mergeUser) : null,
      merge_after: null,
      prepared_at: mr.created_at.toISOString(),
      detailed_merge_status: await detailedStatus(p, mr, refs),
      subscribed:
        caller !== null &&
        (mr.author_id === caller.id || mr.assignee_ids.includes(caller.id) || mr.reviewer_ids.includes(caller.id)),
      changes_count: await changesCount(refs, p),
      latest_build_started_at: pipeline?.started_at?.toISOString() ?? null,
      latest_build_finished_at: pipeline?.finished_at?.toISOString() ?? null,
      first_deployed_to_production_at: null,
      pipeline: pipeline && seesPipelines ? { ...pipelineBasic(store, p, pipeline), project_id: p.id } : null,
      ...(seesPipelines
        ? { head_pipeline: pipeline ? { ...pipelineFull(store, p, pipeline), project_id: p.id } : null }
        : {}),
      diff_refs: refs,
      merge_error: null,
      ...(options.include_rebase_in_progress ? { rebase_in_progress: false } : {}),
      ...(diverged !== undefined ? { diverged_commits_count: diverged } : {}),
      first_contribution: false,
      user: { can_merge: canMerge(caller, p, mr) },
    };
  }

  async function checkBranch(p: Project, branch: string, which: 'source' | 'target'): Promise<void> {
    if (!(await p.repo.branchExists(branch))) {
      throw validationError({ [`${which}_branch`]: [`${branch} does not exist`] });
    }
  }

  function openDuplicate(
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

  router.route('GET', '/projects/:id/merge_requests/:merge_request_iid', { params: readParams }, async (req, reply) => {
    const { project: p, mr } = findMergeRequest(req);
    await p.repo.withWriteLock(() => checkMergeability(p, mr));
    reply.json(await view(p, mr, req.user, req.params));
  });

  router.route('POST', '/projects/:id/merge_requests', { params: createParams, auth: 'user' }, async (req, reply) => {
    const user = ctx.requireUser(req);
    const p = project(req);
    if (p.archived || !developer(user, p)) throw forbidden();
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
    const duplicate = openDuplicate(p, { ...params, id: -1 });
    if (duplicate) throw duplicateOf(duplicate);
    const items = workItemsOf(store);
    const now = new Date();
    const assignees = params.assignee_ids ?? (params.assignee_id === undefined ? [] : [params.assignee_id]);
    const mr: MergeRequest = {
      id: store.nextId('merge_request'),
      iid: Math.max(0, ...items.mergeRequests.filter((m) => m.project_id === p.id).map((m) => m.iid)) + 1,
      project_id: p.id,
      title: params.title,
      description: params.description ?? '',
      state: 'opened',
      author_id: user.id,
      assignee_ids: userIds(store, assignees),
      labels: [],
      milestone_id: p.milestones.some((m) => m.id === params.milestone_id) ? params.milestone_id! : null,
      created_at: now,
      updated_at: now,
      closed_at: null,
      closed_by_id: null,
      awards: [],
      user_notes_count: 0,
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
    reply.json(await view(p, mr, user), 201);
  });

  router.route(
    'PUT',
    '/projects/:id/merge_requests/:merge_request_iid',
    { params: updateParams, auth: 'user' },
    async (req, reply) => {
      const user = ctx.requireUser(req);
      requireOneOf(req.params, UPDATE_KEYS);
      const { project: p, mr } = findMergeRequest(req);
      if (!mayUpdate(user, p, mr)) throw forbidden();
      // Below developer (an author or assignee), labels, people, milestone and locking are quietly kept as they are.
      const params = developer(user, p) ? req.params : withoutMetadata(req.params);
      if (params.title !== undefined && params.title.trim() === '') throw paramError('title is empty');
      if (params.target_branch !== undefined) {
        if (params.target_branch === '') throw paramError('target_branch is empty');
        if (mr.state === 'merged')
          throw validationError({ target_branch: ['cannot be changed on a merged merge request'] });
        await checkBranch(p, params.target_branch, 'target');
        if (params.target_branch === mr.source_branch) throw sameBranch();
      }
      const now = new Date();
      if (params.title !== undefined) mr.title = params.title;
      if (params.description !== undefined) mr.description = params.description;
      if (params.target_branch !== undefined) mr.target_branch = params.target_branch;
      const assignees = params.assignee_ids ?? (params.assignee_id === undefined ? undefined : [params.assignee_id]);
      if (assignees !== undefined) mr.assignee_ids = userIds(store, assignees);
      if (params.reviewer_ids !== undefined) mr.reviewer_ids = userIds(store, params.reviewer_ids);
      if (params.milestone_id !== undefined)
        mr.milestone_id = p.milestones.some((m) => m.id === params.milestone_id) ? params.milestone_id : null;
      if (params.squash !== undefined) mr.squash = params.squash;
      if (params.remove_source_branch !== undefined) mr.force_remove_source_branch = params.remove_source_branch;
      if (params.discussion_locked !== undefined) mr.discussion_locked = params.discussion_locked;
      changeLabels(store, { kind: 'MergeRequest', item: mr }, params, user, now);
      if (params.state_event === 'close' && mr.state === 'opened') {
        // Closing cancels an auto-merge, as on the service: reopening does not bring it back.
        Object.assign(mr, {
          state: 'closed',
          closed_at: now,
          closed_by_id: user.id,
          merge_when_pipeline_succeeds: false,
          merge_user_id: null,
          merge_params: undefined,
        });
        addNote(store, p, mr, 'MergeRequest', user, 'closed', true, now);
      }
      if (params.state_event === 'reopen' && mr.state === 'closed') {
        const duplicate = openDuplicate(p, mr);
        if (duplicate) throw duplicateOf(duplicate);
        Object.assign(mr, { state: 'opened', closed_at: null, closed_by_id: null });
        addNote(store, p, mr, 'MergeRequest', user, 'reopened', true, now);
      }
      mr.updated_at = now;
      reply.json(await view(p, mr, user));
    },
  );

  router.route(
    'PUT',
    '/projects/:id/merge_requests/:merge_request_iid/merge',
    { params: mergeParams, auth: 'user' },
    async (req, reply) => {
      const user = ctx.requireUser(req);
      const found = ctx.findProjectFor(req, req.pathParams.id);
      const iid = integerPathParam(req, 'merge_request_iid');
      const mr = workItemsOf(store).mergeRequests.find((m) => m.project_id === found.id && m.iid === iid);
      // Found through the caller's own view of merge requests: one they may not read does not exist for them.
      if (!mr || !canSeeMergeRequests(ctx, user, found)) throw recordNotFound();
      const p = found;
      // The docs: "401 Unauthorized — this user does not have permission to accept this merge request" (push or merge
      // rights on the target branch, protected branches included).
      if (!developer(user, p) || !canMerge(user, p, mr)) throw unauthorized();
      const { merge_when_pipeline_succeeds: whenPipelineSucceeds, auto_merge: auto, ...choices } = req.params;
      await acceptMergeRequest(ctx, p, mr, user, choices, whenPipelineSucceeds === true || auto === true);
      reply.json(await view(p, mr, user));
    },
  );

  // The vendor's docs: 201 with the merge request once its automatic merge is canceled, 401 for who may neither
  // update it nor be the one who set the merge, 405 when it is merged or closed, 406 when no automatic merge is set.
  router.route(
    'POST',
    '/projects/:id/merge_requests/:merge_request_iid/cancel_merge_when_pipeline_succeeds',
    { auth: 'user' },
    async (req, reply) => {
      const user = ctx.requireUser(req);
      const { project: p, mr } = findMergeRequest(req);
      if (!mayUpdate(user, p, mr) && mr.merge_user_id !== user.id) throw unauthorized();
      if (mr.state === 'merged' || mr.state === 'closed') throw messageError(405, '405 Method Not Allowed');
      if (!mr.merge_when_pipeline_succeeds) throw messageError(406, '406 Not Acceptable');
      const now = new Date(store.clock.now());
      Object.assign(mr, { merge_when_pipeline_succeeds: false, merge_user_id: null, merge_params: undefined });
      mr.updated_at = now;
      addNote(store, p, mr, 'MergeRequest', user, 'canceled the automatic merge', true, now);
      reply.json(await view(p, mr, user), 201);
    },
  );

  router.route(
    'POST',
    '/projects/:id/merge_requests/:merge_request_iid/approve',
    { params: approveParams, auth: 'user' },
    async (req, reply) => {
      const user = ctx.requireUser(req);
      const { project: p, mr } = findMergeRequest(req);
      // The service's rule: who may update it and is a member of the project (its author or an assignee among them).
      if (!mayUpdate(user, p, mr) || store.projectAccess(user, p) < ACCESS.guest) throw forbidden();
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
          id: mr.id,
          iid: mr.iid,
          project_id: mr.project_id,
          title: mr.title,
          description: mr.description,
          state: mr.state,
          created_at: mr.created_at.toISOString(),
          updated_at: mr.updated_at.toISOString(),
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
    },
  );

  router.route(
    'GET',
    '/projects/:id/merge_requests/:merge_request_iid/notes',
    { params: noteListParams, pagination: 'offset', auth: 'user' },
    (req, reply) => {
      const { project: p, mr } = noteable(req);
      replyNotes(ctx, req, reply, 'MergeRequest', mr, p);
    },
  );

  router.route(
    'POST',
    '/projects/:id/merge_requests/:merge_request_iid/notes',
    { params: noteCreateParams, auth: 'user' },
    (req, reply) => {
      const { project: p, mr } = noteable(req);
      reply.json(noteView(store, commentOn(ctx, req, 'MergeRequest', mr, p)), 201);
    },
  );

  /** The notes API's lookup, through the caller's own view of merge requests: one they may not read is not there. */
  function noteable(req: SandboxRequest<unknown>) {
    const found = ctx.findProjectFor(req, req.pathParams.id);
    const iid = integerPathParam(req, 'merge_request_iid');
    const mr = workItemsOf(store).mergeRequests.find((m) => m.project_id === found.id && m.iid === iid);
    if (!mr || !canSeeMergeRequests(ctx, req.user, found)) throw recordNotFound();
    return { project: found, mr };
  }
}
