// What every merge request route of the sandbox asks: the project and merge request a path names as the caller may
// see them, who may update or merge one, and the single merge request form (Entities::MergeRequest) with its diff
// refs and detailed merge status.
import type { SandboxContext } from '../../core/context.js';
import { forbidden, recordNotFound } from '../../core/errors.js';
import { branchPermissions } from '../../core/protected-branches.js';
import { integerPathParam, type SandboxRequest } from '../../core/router.js';
import { ACCESS, type Project, type User } from '../../core/store.js';
import { escapeHtml, pipelineBasic, pipelineFull, userBasic } from '../../core/views.js';
import { headPipeline, needsRebase, refreshHead } from './merge.js';
import { canSeeMergeRequests } from './shared.js';
import { isDraft, mergeRequestView } from './item-views.js';
import { workItemsOf, type MergeRequest } from './state.js';

/** One merge request's path: its routes are this and the actions below it. */
export const MERGE_REQUEST = '/projects/:id/merge_requests/:merge_request_iid';

/** What the single merge request form may be asked for (GET's query). */
export interface ReadOptions {
  render_html?: boolean;
  include_diverged_commits_count?: boolean;
  include_rebase_in_progress?: boolean;
}

interface DiffRefs {
  base_sha: string;
  head_sha: string;
  start_sha: string;
}

export class MergeRequestAccess {
  private readonly store: SandboxContext['store'];

  constructor(private readonly ctx: SandboxContext) {
    this.store = ctx.store;
  }

  /** Found through the caller's own view of merge requests: one they may not read does not exist for them. */
  visible(req: SandboxRequest<unknown>): { project: Project; mr: MergeRequest } {
    const project = this.ctx.findProjectFor(req, req.pathParams.id);
    const iid = integerPathParam(req, 'merge_request_iid');
    const mr = workItemsOf(this.store).mergeRequests.find((m) => m.project_id === project.id && m.iid === iid);
    if (!mr || !canSeeMergeRequests(this.ctx, req.user, project)) throw recordNotFound();
    return { project, mr };
  }

  /** The project of a merge request route: 404 when hidden, 403 when its merge requests are off or unreadable. */
  project(req: SandboxRequest<unknown>): Project {
    const found = this.ctx.findProjectFor(req, req.pathParams.id);
    if (!canSeeMergeRequests(this.ctx, req.user, found)) throw forbidden();
    return found;
  }

  findMergeRequest(req: SandboxRequest<unknown>) {
    const found = this.ctx.findProjectFor(req, req.pathParams.id);
    const iid = integerPathParam(req, 'merge_request_iid');
    const mr = workItemsOf(this.store).mergeRequests.find((m) => m.project_id === found.id && m.iid === iid);
    if (!mr) throw recordNotFound();
    if (!canSeeMergeRequests(this.ctx, req.user, found)) throw forbidden();
    return { project: found, mr };
  }

  developer(user: User | null, p: Project): boolean {
    return user !== null && this.ctx.projectAccess(user, p) >= ACCESS.developer;
  }

  mayUpdate(user: User, p: Project, mr: MergeRequest): boolean {
    return (
      !p.archived &&
      (this.developer(user, p) ||
        ((mr.author_id === user.id || mr.assignee_ids.includes(user.id)) &&
          this.ctx.projectAccess(user, p) >= ACCESS.guest))
    );
  }

  /** Whether the caller may merge it: push or merge rights on the target branch, protected branches included. */
  canMerge(user: User | null, p: Project, mr: MergeRequest): boolean {
    if (user === null || p.archived) return false;
    const may = branchPermissions(this.store, p, user, this.ctx.projectAccess(user, p), mr.target_branch);
    return may.push || may.merge;
  }

  async mergeBase(p: Project, a: string, b: string): Promise<string | null> {
    const result = await p.repo.run(['merge-base', a, b], { okCodes: [1] });
    return result.exitCode === 0 ? result.stdout.toString('utf8').trim() : null;
  }

  /** base, head and start of the diff the merge request shows: the live branches while open, the merged diff after. */
  async diffRefs(p: Project, mr: MergeRequest) {
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
    return { base_sha: (await this.mergeBase(p, start, head)) ?? start, head_sha: head, start_sha: start };
  }

  /** The service's detailed_merge_status, as far as the sandbox knows it (its checks, in the service's order). */
  async detailedStatus(p: Project, mr: MergeRequest, refs: DiffRefs | null): Promise<string> {
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

  async changesCount(refs: DiffRefs | null, p: Project): Promise<string | null> {
    if (refs === null) return null;
    const names = await p.repo.text(['diff', '--name-only', refs.base_sha, refs.head_sha]);
    return String(names.split('\n').filter((line) => line !== '').length);
  }

  /** The single merge request form: the list form plus what the service adds for one (Entities::MergeRequest). */
  async view(p: Project, mr: MergeRequest, caller: User | null, options: ReadOptions = {}) {
    await refreshHead(p, mr);
    const refs = await this.diffRefs(p, mr);
    const pipeline = headPipeline(p, mr);
    const seesPipelines = this.ctx.canReadCode(caller, p);
    const mergeUserId = mr.merged_by_id ?? mr.merge_user_id ?? null;
    const mergeUser = mergeUserId === null ? undefined : this.store.findUser(String(mergeUserId));
    const diverged =
      options.include_diverged_commits_count && refs !== null
        ? Number((await p.repo.text(['rev-list', '--count', `${refs.head_sha}..${refs.start_sha}`])).trim())
        : undefined;
    return {
      ...mergeRequestView(this.store, p, mr, { kind: 'project', project: p }, false),
      ...(options.render_html
        ? { title_html: escapeHtml(mr.title), description_html: `<p>${escapeHtml(mr.description)}</p>` }
        : {}),
      imported: false,
      imported_from: 'none',
      draft: isDraft(mr.title),
      merge_user: mergeUser ? userBasic(this.store, mergeUser) : null,
      merge_after: null,
      prepared_at: mr.created_at.toISOString(),
      detailed_merge_status: await this.detailedStatus(p, mr, refs),
      subscribed:
        caller !== null &&
        (mr.author_id === caller.id || mr.assignee_ids.includes(caller.id) || mr.reviewer_ids.includes(caller.id)),
      changes_count: await this.changesCount(refs, p),
      latest_build_started_at: pipeline?.started_at?.toISOString() ?? null,
      latest_build_finished_at: pipeline?.finished_at?.toISOString() ?? null,
      first_deployed_to_production_at: null,
      pipeline: pipeline && seesPipelines ? { ...pipelineBasic(this.store, p, pipeline), project_id: p.id } : null,
      ...(seesPipelines
        ? { head_pipeline: pipeline ? { ...pipelineFull(this.store, p, pipeline), project_id: p.id } : null }
        : {}),
      diff_refs: refs,
      merge_error: null,
      ...(options.include_rebase_in_progress ? { rebase_in_progress: false } : {}),
      ...(diverged !== undefined ? { diverged_commits_count: diverged } : {}),
      first_contribution: false,
      user: { can_merge: this.canMerge(caller, p, mr) },
    };
  }
}
