// Merge request lists: instance-wide (scope created_by_me by default), a group with its subgroups, one project.
//
// Every call needs a token (401 without); a private project or group seen by a non-member is 404. Merge requests
// show code, so on a private project they need reporter access (403 for its guests; left out of wider lists), and
// a project with merge requests disabled is 403. `in` belongs to the instance-wide list and `iids[]` to the
// project list, as the spec lists them. view=simple gives the short form.
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { forbidden } from '../../core/errors.js';
import { param } from '../../core/params.js';
import type { Router } from '../../core/router.js';
import {
  canSeeMergeRequests,
  checkMergeRequestParams,
  itemList,
  mergeRequestParamsShape,
  mergeRequestPredicates,
  registerItemLists,
  type MergeRequestParams,
} from './shared.js';
import { mergeRequestSimple, mergeRequestView } from './item-views.js';
import { workItemsOf, type MergeRequest } from './state.js';

const groupParams = z.object(mergeRequestParamsShape);
const instanceParams = z.object({ ...mergeRequestParamsShape, in: z.string().optional() });
const projectParams = z.object({ ...mergeRequestParamsShape, iids: param.array(param.integer()).optional() });

export function register(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;
  const list = itemList<MergeRequestParams, MergeRequest>(ctx, {
    check: checkMergeRequestParams,
    // A private project's merge requests need reporter access: its guests' lists leave them out.
    readsProject: (_params, user, project) => canSeeMergeRequests(ctx, user, project),
    items: () => workItemsOf(store).mergeRequests,
    predicates: mergeRequestPredicates,
    sortKey: (params) => {
      const orderBy = params.order_by ?? 'created_at';
      return (mr) => mr[orderBy];
    },
    view: (params, project, mr, from, details) =>
      params.view === 'simple'
        ? mergeRequestSimple(store, project, mr)
        : mergeRequestView(store, project, mr, from, details),
  });

  const params = { instance: instanceParams, group: groupParams, project: projectParams };
  registerItemLists(router, ctx, 'merge_requests', params, list, (req) => {
    const user = ctx.requireUser(req);
    const project = ctx.findProjectFor(req, req.pathParams.id);
    if (!canSeeMergeRequests(ctx, user, project)) throw forbidden();
    return project;
  });
}
