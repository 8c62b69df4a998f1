// Label events: who added or removed which label on an issue, a merge request or an epic, as lists and one by one.
//
// They are recorded whenever labels change (setLabels in state.ts). Reading needs a token and a view of the issue
// (confidential ones included), of the project's merge requests, or of the epic's group; anything the caller may
// not see is 404, as is an event of another issue, merge request or epic. `:epic_id` is the epic's id (not its
// iid), as for the other epic resources addressed through notes and events.
import type { SandboxContext } from '../../core/context.js';
import { notFound } from '../../core/errors.js';
import { paginate } from '../../core/paginate.js';
import { integerPathParam, type Router, type SandboxRequest } from '../../core/router.js';
import type { Store } from '../../core/store.js';
import { userBasic } from '../../core/views.js';
import { canSeeIssue, canSeeMergeRequests } from './shared.js';
import { labelEventsOf, type LabelEvent, type LabelEventResource, workItemsOf } from './state.js';

function eventView(store: Store, event: LabelEvent) {
  const user = store.findUser(String(event.user_id));
  return {
    id: event.id,
    user: user ? userBasic(store, user) : null,
    created_at: event.created_at.toISOString(),
    resource_type: event.resource_type,
    resource_id: event.resource_id,
    label: {
      id: event.label.id,
      name: event.label.name,
      color: event.label.color,
      description: event.label.description,
    },
    action: event.action,
  };
}

export function register(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;

  /** The caller (signed in), the project of the path (404 when hidden) and the item's number under `key`, in that order. */
  function signedInProjectItem(req: SandboxRequest<unknown>, key: 'issue_iid' | 'merge_request_iid') {
    const user = ctx.requireUser(req);
    const project = ctx.findProjectFor(req, req.pathParams.id);
    return { user, project, iid: integerPathParam(req, key) };
  }

  const resources: Array<{ base: string; find(req: SandboxRequest<unknown>): LabelEventResource }> = [
    {
      base: '/projects/:id/issues/:issue_iid',
      find(req) {
        const { user, project, iid } = signedInProjectItem(req, 'issue_iid');
        const issue = workItemsOf(store).issues.find((i) => i.project_id === project.id && i.iid === iid);
        if (!issue || !canSeeIssue(ctx, user, project, issue)) throw notFound('Issue');
        return { kind: 'Issue', item: issue };
      },
    },
    {
      base: '/projects/:id/merge_requests/:merge_request_iid',
      find(req) {
        const { user, project, iid } = signedInProjectItem(req, 'merge_request_iid');
        const mr = workItemsOf(store).mergeRequests.find((m) => m.project_id === project.id && m.iid === iid);
        if (!mr || !canSeeMergeRequests(ctx, user, project)) throw notFound('Merge Request');
        return { kind: 'MergeRequest', item: mr };
      },
    },
    {
      base: '/groups/:id/epics/:epic_id',
      find(req) {
        ctx.requireUser(req);
        const group = ctx.findGroupFor(req, req.pathParams.id);
        const id = integerPathParam(req, 'epic_id');
        const epic = workItemsOf(store).epics.find((e) => e.group_id === group.id && e.id === id);
        if (!epic) throw notFound('Epic');
        return { kind: 'Epic', item: epic };
      },
    },
  ];

  for (const { base, find } of resources) {
    router.route('GET', `${base}/resource_label_events`, { pagination: 'offset', auth: 'user' }, (req, reply) => {
      const resource = find(req);
      const events = labelEventsOf(store, resource.kind, resource.item.id);
      reply.json(paginate(req, reply, events).map((event) => eventView(store, event)));
    });

    router.route('GET', `${base}/resource_label_events/:resource_label_event_id`, { auth: 'user' }, (req, reply) => {
      const resource = find(req);
      const id = integerPathParam(req, 'resource_label_event_id');
      const event = labelEventsOf(store, resource.kind, resource.item.id).find((e) => e.id === id);
      if (!event) throw notFound();
      reply.json(eventView(store, event));
    });
  }
}
