// Audit events area: who changed what — the instance's events (administrators) and a group's (administrators and owners).
import { z } from 'zod';
import { defineOperation, fields, defineArea, demoLookup } from '../engine/define.js';
import { asRecord, presentList, show } from '../engine/present.js';
import { age } from './shared/work-items.js';

const period = {
  created_after: fields.dateTime().optional(),
  created_before: fields.dateTime().optional(),
};
const eventId = () => z.number().int().positive().describe('Audit event ID.');

/** One line per event: what changed, on what, by whom, how long ago. */
const presentEvents = presentList('audit event', (e) => {
  const d = asRecord(e.details);
  const what =
    d.custom_message ??
    (d.change !== undefined
      ? `changed ${show(d.change)}`
      : d.add !== undefined
        ? `added ${show(d.add)}`
        : d.remove !== undefined
          ? `removed ${show(d.remove)}`
          : 'change');
  return [
    `#${show(e.id)}`,
    [show(what), `${show(e.entity_type)} ${show(d.entity_path)}`, show(d.author_name), age(e.created_at)].join(' · '),
  ];
});

const auditEventsOperations = [
  defineOperation({
    name: 'list_audit_events',
    chat: 'audit list',
    area: 'audit_events',
    title: 'List audit events',
    description: "Administrators only: the instance's audit events (who changed what), newest first.",
    adminOnly: true,
    route: 'GET /audit_events',
    input: z.object({
      ...period,
      entity_type: z.enum(['User', 'Group', 'Project']).optional(),
      entity_id: z.number().int().optional().describe('Needs entity_type.'),
    }),
    effect: 'read',
    rules: [{ kind: 'requires', keys: ['entity_id', 'entity_type'] }],
    pagination: 'offset',
    present: presentEvents,
    examples: [{ input: {} }],
  }),
  defineOperation({
    name: 'get_audit_event',
    chat: 'audit get',
    area: 'audit_events',
    title: 'Get audit event',
    description: 'Administrators only: one instance audit event with its details.',
    adminOnly: true,
    route: 'GET /audit_events/:id',
    input: z.object({ id: eventId() }),
    effect: 'read',
    examples: [{ input: { id: demoLookup('/audit_events') } }],
  }),
  defineOperation({
    name: 'list_group_audit_events',
    chat: 'audit list-group',
    area: 'audit_events',
    title: 'List group audit events',
    description: "A group's audit events, newest first. Needs Owner access.",
    route: 'GET /groups/:id/audit_events',
    input: z.object({ id: fields.groupId(), ...period }),
    effect: 'read',
    pagination: 'offset',
    present: presentEvents,
    examples: [{ input: { id: 'acme' } }],
  }),
  defineOperation({
    name: 'get_group_audit_event',
    chat: 'audit get-group',
    area: 'audit_events',
    title: 'Get group audit event',
    description: 'One audit event of a group, with its details. Needs Owner access.',
    route: 'GET /groups/:id/audit_events/:audit_event_id',
    input: z.object({ id: fields.groupId(), audit_event_id: z.number().int().positive() }),
    effect: 'read',
    examples: [{ input: { id: 'acme', audit_event_id: demoLookup('/groups/:id/audit_events') } }],
  }),
];

export const area = defineArea({ name: 'audit_events', operations: auditEventsOperations });
