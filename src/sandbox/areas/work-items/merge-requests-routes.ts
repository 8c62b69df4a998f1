// Merge request lists: instance-wide (scope created_by_me by default), a group with its subgroups, one project.
//
// Every call needs a token (401 without); a private project or group seen by a non-member is 404. Merge requests
// show code, so on a private project they need reporter access (403 for its guests; left out of wider lists), and
// a project with merge requests disabled is 403. `in` belongs to the instance-wide list and `iids[]` to the
// project list, as the spec lists them. view=simple gives the short form.
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { forbidden } from '../../core/errors.js';
import { paginate } from '../../core/paginate.js';
import { param } from '../../core/params.js';
import type { Reply, Router, SandboxRequest } from '../../core/router.js';
import {
  canSeeMergeRequests,
  checkMergeRequestParams,
  filterContext,
  mergeRequestParamsShape,
  mergeRequestPredicates,
  mergeRequestSimple,
  mergeRequestView,
  projectsIn,
  registerItemLists,
  sortItems,
  type MergeRequestParams,
  type ReferenceContext,
} from './shared.js';
import { workItemsOf } from './state.js';

const groupParams = z.object(mergeRequestParamsShape);
const instanceParams = z.object({ ...mergeRequestParamsShape, in: z.string().optional() });
const projectParams = z.object({ ...mergeRequestParamsShape, iids: param.array(param.integer()).optional() });

export function register(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;

  function list(req: SandboxRequest<MergeRequestParams>, reply: Reply, from: ReferenceContext): void {
    const user = ctx.requireUser(req);
    checkMergeRequestParams(req.params);
    const projects = new Map(
      projectsIn(store, from)
        .filter((p) => canSeeMergeRequests(ctx, user, p))
        .map((p) => [p.id, p]),
    );
    const tests = mergeRequestPredicates(
      req.params,
      filterContext(store, user),
      from.kind === 'instance' ? 'created_by_me' : 'all',
    );
    const mrs = workItemsOf(store).mergeRequests.filter(
      (mr) => projects.has(mr.project_id) && tests.every((test) => test(mr)),
    );
    const orderBy = req.params.order_by ?? 'created_at';
    const sorted = sortItems(mrs, (mr) => mr[orderBy], req.params.sort ?? 'desc');
    const details = req.params.with_labels_details ?? false;
    reply.json(
      paginate(req, reply, sorted).map((mr) => {
        const project = projects.get(mr.project_id)!;
        return req.params.view === 'simple'
          ? mergeRequestSimple(store, project, mr)
          : mergeRequestView(store, project, mr, from, details);
      }),
    );
  }

  const params = { instance: instanceParams, group: groupParams, project: projectParams };
  registerItemLists(router, ctx, 'merge_requests', params, list, (req) => {
    const user = ctx.requireUser(req);
    const project = ctx.findProjectFor(req, req.pathParams.id);
    if (!canSeeMergeRequests(ctx, user, project)) throw forbidden();
    return project;
  });
}
