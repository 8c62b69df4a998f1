// Audit events: the instance list for administrators (filters created_after, created_before, entity_type and
// entity_id, which needs entity_type), and a group's own for administrators and the group's owners (inherited
// ownership counting); newest first. An event of another group reads as missing.
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { auditEventsOf, type AuditEvent } from '../../core/audit.js';
import { notFound, paramError } from '../../core/errors.js';
import { paginate } from '../../core/paginate.js';
import { param } from '../../core/params.js';
import { integerPathParam, type Router, type SandboxRequest, signedInList } from '../../core/router.js';
import { ACCESS } from '../../core/store.js';
import { pickFields } from '../../core/views.js';

const periodParams = z.object({ created_after: param.datetime(), created_before: param.datetime() }).partial();
const instanceParams = periodParams
  .extend({ entity_type: param.enum(['User', 'Group', 'Project']), entity_id: param.integer() })
  .partial();

function eventView(event: AuditEvent) {
  return {
    ...pickFields(event, ['id', 'author_id', 'entity_id', 'entity_type', 'details']),
    created_at: event.created_at.toISOString(),
  };
}

/** Newest first, within the period when one is given (both bounds inclusive). */
function inPeriod(events: AuditEvent[], period: z.output<typeof periodParams>): AuditEvent[] {
  return events
    .filter(
      (e) =>
        (!period.created_after || e.created_at >= period.created_after) &&
        (!period.created_before || e.created_at <= period.created_before),
    )
    .sort((a, b) => b.id - a.id);
}

export function register(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;

  const ownedGroup = (req: SandboxRequest<unknown>) => {
    ctx.requireUser(req);
    return ctx.findGroupFor(req, req.pathParams.id, { minAccess: ACCESS.owner });
  };

  router.route(
    'GET',
    '/audit_events',
    { params: instanceParams, auth: 'admin', pagination: 'offset' },
    (req, reply) => {
      const { entity_type, entity_id } = req.params;
      if (entity_id !== undefined && entity_type === undefined) throw paramError('entity_type is missing');
      const events = inPeriod(auditEventsOf(store), req.params).filter(
        (e) =>
          (entity_type === undefined || e.entity_type === entity_type) &&
          (entity_id === undefined || e.entity_id === entity_id),
      );
      reply.json(paginate(req, reply, events).map(eventView));
    },
  );

  router.route('GET', '/audit_events/:id', { auth: 'admin' }, (req, reply) => {
    const id = integerPathParam(req, 'id');
    const event = auditEventsOf(store).find((e) => e.id === id);
    if (!event) throw notFound('Audit Event');
    reply.json(eventView(event));
  });

  router.route('GET', '/groups/:id/audit_events', signedInList(periodParams), (req, reply) => {
    const group = ownedGroup(req);
    const events = inPeriod(
      auditEventsOf(store).filter((e) => e.entity_type === 'Group' && e.entity_id === group.id),
      req.params,
    );
    reply.json(paginate(req, reply, events).map(eventView));
  });

  router.route('GET', '/groups/:id/audit_events/:audit_event_id', { auth: 'user' }, (req, reply) => {
    const group = ownedGroup(req);
    const id = integerPathParam(req, 'audit_event_id');
    const event = auditEventsOf(store).find(
      (e) => e.id === id && e.entity_type === 'Group' && e.entity_id === group.id,
    );
    if (!event) throw notFound('Audit Event');
    reply.json(eventView(event));
  });
}
