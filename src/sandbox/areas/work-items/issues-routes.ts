// Issue lists: instance-wide (scope created_by_me by default), a group with its subgroups, one project.
//
// Every call needs a token (401 without); a private project or group seen by a non-member is 404; a project with
// issues disabled is 403. Lists hold only issues the caller may see (confidential ones: author, assignees,
// reporters and up). Filters, ordering and shapes are shared with merge requests (../work-items.js).
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { forbidden } from '../../core/errors.js';
import { param } from '../../core/params.js';
import type { Router } from '../../core/router.js';
import {
  canSeeIssue,
  checkIssueParams,
  issueParamsShape,
  issuePredicates,
  issueSortKey,
  itemList,
  registerItemLists,
  type IssueParams,
} from './shared.js';
import { issueView } from './item-views.js';
import { workItemsOf, type Issue } from './state.js';

const listParams = z.object(issueParamsShape);
const groupParams = z.object({ ...issueParamsShape, non_archived: param.boolean().optional() });

export function register(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;
  const list = itemList<IssueParams & { non_archived?: boolean }, Issue>(ctx, {
    check: checkIssueParams,
    // A group's list leaves archived projects out unless non_archived=false.
    readsProject: (params, _user, project, from) =>
      !(from.kind === 'group' && (params.non_archived ?? true) && project.archived),
    items: () => workItemsOf(store).issues,
    predicates: issuePredicates,
    sees: (user, project, issue) => canSeeIssue(ctx, user, project, issue),
    sortKey: (params, projectOf) => issueSortKey(store, projectOf, params.order_by ?? 'created_at'),
    view: (_params, project, issue, from, details) => issueView(store, project, issue, from, details),
  });

  const params = { instance: listParams, group: groupParams, project: listParams };
  registerItemLists(router, ctx, 'issues', params, list, (req) => {
    const project = ctx.findProjectFor(req, req.pathParams.id);
    if (!project.issues_enabled) throw forbidden();
    return project;
  });
}
