// Issue lists: instance-wide (scope created_by_me by default), a group with its subgroups, one project.
//
// Every call needs a token (401 without); a private project or group seen by a non-member is 404; a project with
// issues disabled is 403. Lists hold only issues the caller may see (confidential ones: author, assignees,
// reporters and up). Filters, ordering and shapes are shared with merge requests (../work-items.js).
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { forbidden } from '../../core/errors.js';
import { paginate } from '../../core/paginate.js';
import { param } from '../../core/params.js';
import type { Router, SandboxRequest } from '../../core/router.js';
import type { Reply } from '../../core/router.js';
import {
  canSeeIssue,
  checkIssueParams,
  filterContext,
  issueParamsShape,
  issuePredicates,
  issueSortKey,
  issueView,
  projectsIn,
  registerItemLists,
  sortItems,
  type IssueParams,
  type ReferenceContext,
} from './shared.js';
import { workItemsOf } from './state.js';

const listParams = z.object(issueParamsShape);
const groupParams = z.object({ ...issueParamsShape, non_archived: param.boolean().optional() });

export function register(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;

  function list(
    req: SandboxRequest<IssueParams & { non_archived?: boolean }>,
    reply: Reply,
    from: ReferenceContext,
  ): void {
    const user = ctx.requireUser(req);
    checkIssueParams(req.params);
    const skipArchived = from.kind === 'group' && (req.params.non_archived ?? true);
    const projects = new Map(
      projectsIn(store, from)
        .filter((p) => !(skipArchived && p.archived))
        .map((p) => [p.id, p]),
    );
    const tests = issuePredicates(
      req.params,
      filterContext(store, user),
      from.kind === 'instance' ? 'created_by_me' : 'all',
    );
    const issues = workItemsOf(store).issues.filter((issue) => {
      const project = projects.get(issue.project_id);
      return project !== undefined && canSeeIssue(ctx, user, project, issue) && tests.every((test) => test(issue));
    });
    const key = issueSortKey(store, (issue) => projects.get(issue.project_id)!, req.params.order_by ?? 'created_at');
    const sorted = sortItems(issues, key, req.params.sort ?? 'desc');
    const details = req.params.with_labels_details ?? false;
    reply.json(
      paginate(req, reply, sorted).map((issue) =>
        issueView(store, projects.get(issue.project_id)!, issue, from, details),
      ),
    );
  }

  const params = { instance: listParams, group: groupParams, project: listParams };
  registerItemLists(router, ctx, 'issues', params, list, (req) => {
    const project = ctx.findProjectFor(req, req.pathParams.id);
    if (!project.issues_enabled) throw forbidden();
    return project;
  });
}
