// One merge request, opening, editing, merging and approving it, and its notes (beyond the spec: the Merge
// requests, Merge request approvals and Notes APIs, v4).
//
// A token is needed (401 without). Reading follows the lists (404 when the caller may not see the project's merge
// requests). Opening, editing, merging and approving need developer access (403 below it; a merge without it is the
// service's 401); comments need reporter access. sha is the live head of the source branch. Merging is a real git
// merge: `git merge-tree` computes the result, a merge commit (target head, source head) lands on the target branch
// (with squash, a squash commit on the target head comes first and is the merge's second parent); conflicts are 422 "Branch cannot be merged", a closed or draft one 405.
// A sha that is not the source head is 409 "SHA does not match HEAD of source branch".
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { forbidden, messageError, notFound, unauthorized, validationError } from '../../core/errors.js';
import { param } from '../../core/params.js';
import { integerPathParam, type Router, type SandboxRequest } from '../../core/router.js';
import { ACCESS, type Project, type User } from '../../core/store.js';
import type { GitIdentity } from '../../git/repo.js';
import {
  addNote, changeLabels, labelChangeShape, noteBody, noteCreateParams, noteListParams, noteView, replyNotes, userIds,
} from './changes.js';
import { canSeeMergeRequests, mergeRequestView } from './shared.js';
import { workItemsOf, type MergeRequest } from './state.js';

const createParams = z.object({
  source_branch: z.string(),
  target_branch: z.string(),
  title: z.string(),
  description: z.string().optional(),
  ...labelChangeShape,
  assignee_ids: param.array(param.integer()).optional(),
  reviewer_ids: param.array(param.integer()).optional(),
  remove_source_branch: param.boolean().optional(),
  squash: param.boolean().optional(),
});

const updateParams = z.object({
  title: z.string().optional(),
  description: z.string().optional(),
  target_branch: z.string().optional(),
  state_event: param.enum(['close', 'reopen']).optional(),
  ...labelChangeShape,
  assignee_ids: param.array(param.integer()).optional(),
  reviewer_ids: param.array(param.integer()).optional(),
  remove_source_branch: param.boolean().optional(),
  squash: param.boolean().optional(),
  discussion_locked: param.boolean().optional(),
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

const approveParams = z.object({ sha: z.string().optional(), approval_password: z.string().optional() });

function isDraft(title: string): boolean {
  return /^\s*(\[draft\]|\(draft\)|draft:|draft\s-|\[wip\]|wip:|wip\s-)/i.test(title);
}

/** The service's detailed_merge_status, as far as the sandbox knows it. */
function detailedStatus(mr: MergeRequest): string {
  if (mr.state !== 'opened') return 'not_open';
  if (isDraft(mr.title)) return 'draft_status';
  if (mr.has_conflicts) return 'conflict';
  return 'mergeable';
}

export function register(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;

  function project(req: SandboxRequest<unknown>): { user: User; project: Project } {
    const user = ctx.requireUser(req);
    const found = ctx.findProjectFor(req, req.pathParams.id);
    if (!canSeeMergeRequests(ctx, user, found)) throw found.merge_requests_enabled ? notFound() : forbidden();
    return { user, project: found };
  }

  function findMergeRequest(req: SandboxRequest<unknown>) {
    const found = project(req);
    const iid = integerPathParam(req, 'merge_request_iid');
    const mr = workItemsOf(store).mergeRequests.find((m) => m.project_id === found.project.id && m.iid === iid);
    if (!mr) throw notFound();
    return { ...found, mr };
  }

  const developer = (user: User, p: Project) => ctx.projectAccess(user, p) >= ACCESS.developer;
  const identity = (user: User): GitIdentity => ({ name: user.name, email: user.email });

  /** An open merge request's sha follows its source branch. */
  async function refresh(p: Project, mr: MergeRequest): Promise<void> {
    if (mr.state !== 'opened') return;
    const head = await p.repo.refTarget(`refs/heads/${mr.source_branch}`);
    if (head !== null) mr.sha = head;
  }

  async function view(p: Project, mr: MergeRequest) {
    await refresh(p, mr);
    return {
      ...mergeRequestView(store, p, mr, { kind: 'project', project: p }, false),
      detailed_merge_status: detailedStatus(mr),
      diff_refs: null,
      changes_count: null,
    };
  }

  async function checkBranch(p: Project, branch: string, which: 'source' | 'target'): Promise<void> {
    if (!(await p.repo.branchExists(branch))) {
      throw validationError({ [`${which}_branch`]: [`${branch} does not exist`] });
    }
  }

  function openDuplicate(p: Project, mr: Pick<MergeRequest, 'source_branch' | 'target_branch' | 'id'>): MergeRequest | undefined {
    return workItemsOf(store).mergeRequests.find((m) => m.project_id === p.id && m.id !== mr.id && m.state === 'opened'
      && m.source_branch === mr.source_branch && m.target_branch === mr.target_branch);
  }

  router.route('GET', '/projects/:id/merge_requests/:merge_request_iid', { auth: 'user' }, async (req, reply) => {
    const { project: p, mr } = findMergeRequest(req);
    reply.json(await view(p, mr));
  });

  router.route('POST', '/projects/:id/merge_requests', { params: createParams, auth: 'user' }, async (req, reply) => {
    const { user, project: p } = project(req);
    if (p.archived || !developer(user, p)) throw forbidden();
    const params = req.params;
    if (params.title.trim() === '') throw validationError({ title: ["can't be blank"] });
    await checkBranch(p, params.source_branch, 'source');
    await checkBranch(p, params.target_branch, 'target');
    if (params.source_branch === params.target_branch) {
      throw validationError({ base: ['You can\'t use same project/branch for source and target'] });
    }
    const duplicate = openDuplicate(p, { ...params, id: -1 });
    if (duplicate) {
      throw messageError(409, `Another open merge request already exists for this source branch: !${duplicate.iid}`);
    }
    const items = workItemsOf(store);
    const now = new Date();
    const mr: MergeRequest = {
      id: store.nextId('merge_request'),
      iid: Math.max(0, ...items.mergeRequests.filter((m) => m.project_id === p.id).map((m) => m.iid)) + 1,
      project_id: p.id, title: params.title, description: params.description ?? '', state: 'opened', author_id: user.id,
      assignee_ids: userIds(store, params.assignee_ids ?? []), labels: [], milestone_id: null, created_at: now, updated_at: now,
      closed_at: null, closed_by_id: null, awards: [], user_notes_count: 0, discussion_locked: null,
      source_branch: params.source_branch, target_branch: params.target_branch, merged_by_id: null, merged_at: null,
      sha: await p.repo.refTarget(`refs/heads/${params.source_branch}`), merge_commit_sha: null, squash: params.squash ?? false,
      has_conflicts: false, approver_ids: [], approved_by_ids: [], reviewer_ids: userIds(store, params.reviewer_ids ?? []),
      squash_commit_sha: null,
    };
    items.mergeRequests.push(mr);
    changeLabels(store, { kind: 'MergeRequest', item: mr }, params, user, now);
    reply.json(await view(p, mr), 201);
  });

  router.route('PUT', '/projects/:id/merge_requests/:merge_request_iid', { params: updateParams, auth: 'user' }, async (req, reply) => {
    const { user, project: p, mr } = findMergeRequest(req);
    if (p.archived || (!developer(user, p) && mr.author_id !== user.id)) throw forbidden();
    const params = req.params;
    if (params.title !== undefined && params.title.trim() === '') throw validationError({ title: ["can't be blank"] });
    if (params.target_branch !== undefined) {
      if (mr.state === 'merged') throw validationError({ target_branch: ['cannot be changed on a merged merge request'] });
      await checkBranch(p, params.target_branch, 'target');
      if (params.target_branch === mr.source_branch) {
        throw validationError({ base: ['You can\'t use same project/branch for source and target'] });
      }
    }
    const now = new Date();
    if (params.title !== undefined) mr.title = params.title;
    if (params.description !== undefined) mr.description = params.description;
    if (params.target_branch !== undefined) mr.target_branch = params.target_branch;
    if (params.assignee_ids !== undefined) mr.assignee_ids = userIds(store, params.assignee_ids);
    if (params.reviewer_ids !== undefined) mr.reviewer_ids = userIds(store, params.reviewer_ids);
    if (params.squash !== undefined) mr.squash = params.squash;
    if (params.discussion_locked !== undefined) mr.discussion_locked = params.discussion_locked;
    changeLabels(store, { kind: 'MergeRequest', item: mr }, params, user, now);
    if (params.state_event === 'close' && mr.state === 'opened') {
      Object.assign(mr, { state: 'closed', closed_at: now, closed_by_id: user.id });
      addNote(store, p, mr, 'MergeRequest', user, 'closed', true, now);
    }
    if (params.state_event === 'reopen' && mr.state === 'closed') {
      const duplicate = openDuplicate(p, mr);
      if (duplicate) {
        throw messageError(409, `Another open merge request already exists for this source branch: !${duplicate.iid}`);
      }
      Object.assign(mr, { state: 'opened', closed_at: null, closed_by_id: null });
      addNote(store, p, mr, 'MergeRequest', user, 'reopened', true, now);
    }
    mr.updated_at = now;
    reply.json(await view(p, mr));
  });

  router.route('PUT', '/projects/:id/merge_requests/:merge_request_iid/merge', { params: mergeParams, auth: 'user' }, async (req, reply) => {
    const { user, project: p, mr } = findMergeRequest(req);
    // The docs: "If you don't have permissions to accept this merge request, you get 401".
    if (p.archived || !developer(user, p)) throw unauthorized();
    const params = req.params;
    await p.repo.withWriteLock(async () => {
      await refresh(p, mr);
      if (mr.state !== 'opened' || isDraft(mr.title)) throw messageError(405, '405 Method Not Allowed');
      const source = await p.repo.refTarget(`refs/heads/${mr.source_branch}`);
      const target = await p.repo.refTarget(`refs/heads/${mr.target_branch}`);
      if (source === null || target === null) throw messageError(422, 'Branch cannot be merged');
      if (params.sha !== undefined && params.sha !== source) throw messageError(409, 'SHA does not match HEAD of source branch');
      const merged = await p.repo.run(['merge-tree', '--write-tree', '--no-messages', target, source], { okCodes: [1] });
      if (merged.exitCode === 1) {
        mr.has_conflicts = true;
        throw messageError(422, 'Branch cannot be merged');
      }
      const tree = merged.stdout.toString('utf8').split('\n')[0].trim();
      const squash = params.squash ?? mr.squash;
      let second = source;
      if (squash) {
        const message = params.squash_commit_message ?? mr.title;
        second = await p.repo.commitTree(tree, [target], message, identity(user));
        mr.squash_commit_sha = second;
      }
      const message = params.merge_commit_message
        ?? `Merge branch '${mr.source_branch}' into '${mr.target_branch}'\n\n${mr.title}\n\nSee merge request ${p.full_path}!${mr.iid}`;
      const commit = await p.repo.commitTree(tree, [target, second], message, identity(user));
      await p.repo.moveBranch(mr.target_branch, commit, target);
      if (params.should_remove_source_branch === true && mr.source_branch !== p.default_branch) {
        await p.repo.run(['update-ref', '-d', `refs/heads/${mr.source_branch}`, source]);
      }
      const now = new Date();
      Object.assign(mr, { state: 'merged', merged_at: now, merged_by_id: user.id, merge_commit_sha: commit, sha: source, updated_at: now });
      addNote(store, p, mr, 'MergeRequest', user, `merged`, true, now);
    });
    reply.json(await view(p, mr));
  });

  router.route('POST', '/projects/:id/merge_requests/:merge_request_iid/approve', { params: approveParams, auth: 'user' }, async (req, reply) => {
    const { user, project: p, mr } = findMergeRequest(req);
    if (!developer(user, p)) throw forbidden();
    await refresh(p, mr);
    if (req.params.sha !== undefined && req.params.sha !== mr.sha) throw messageError(409, 'SHA does not match HEAD of source branch');
    // The service answers an approval already given with 401.
    if (mr.approved_by_ids.includes(user.id)) throw unauthorized();
    if (mr.state !== 'opened') throw unauthorized();
    mr.approved_by_ids.push(user.id);
    addNote(store, p, mr, 'MergeRequest', user, 'approved this merge request', true);
    const approver = (id: number) => {
      const u = store.findUser(String(id));
      return u ? { user: { id: u.id, username: u.username, name: u.name, state: u.state, web_url: `${store.baseUrl}/${u.username}` } } : null;
    };
    reply.json({
      id: mr.id, iid: mr.iid, project_id: mr.project_id, title: mr.title, description: mr.description, state: mr.state,
      created_at: mr.created_at.toISOString(), updated_at: mr.updated_at.toISOString(), merge_status: 'can_be_merged',
      approvals_required: 0, approvals_left: 0, approved: true,
      approved_by: mr.approved_by_ids.map(approver).filter((a) => a !== null),
    }, 201);
  });

  router.route('GET', '/projects/:id/merge_requests/:merge_request_iid/notes', { params: noteListParams, pagination: 'offset', auth: 'user' }, (req, reply) => {
    const { mr } = findMergeRequest(req);
    replyNotes(store, req, reply, 'MergeRequest', mr);
  });

  router.route('POST', '/projects/:id/merge_requests/:merge_request_iid/notes', { params: noteCreateParams, auth: 'user' }, (req, reply) => {
    const { user, project: p, mr } = findMergeRequest(req);
    if (p.archived || ctx.projectAccess(user, p) < ACCESS.reporter) throw forbidden();
    const note = addNote(store, p, mr, 'MergeRequest', user, noteBody(req.params.body), false);
    mr.updated_at = note.created_at;
    reply.json(noteView(store, note), 201);
  });
}
