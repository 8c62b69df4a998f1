// Label events area: who added or removed which label, and when, on an issue, a merge request or an epic.
import { z } from 'zod';
import { defineOperation, fields, defineArea, demoLookup } from '../engine/define.js';
import type { Area } from '../engine/define.js';
import { asRecord, presentList, show } from '../engine/present.js';
import { age } from './shared/work-items.js';

const eventId = () => z.number().int().positive();

const presentEvents = presentList('label event', (event) => {
  const user = asRecord(event.user);
  return [
    `#${show(event.id)}`,
    `${show(event.action)} ${show(asRecord(event.label).name)} · @${show(user.username)} · ${age(event.created_at)}`,
  ];
});

function presentEvent(data: unknown) {
  const event = asRecord(data);
  return {
    title: `Label event #${show(event.id)}: ${show(event.action)} ${show(asRecord(event.label).name)}`,
    fields: [
      ['by', show(asRecord(event.user).username)],
      ['at', show(event.created_at)],
      ['on', `${show(event.resource_type)} ${show(event.resource_id)}`],
    ] as Array<[string, string]>,
  };
}

const LABEL_EVENTS: Area = 'label_events';

/** The list and single read of one kind of resource: the same pair for issues, merge requests and epics. */
function labelEventOperations<K extends string>(spec: {
  noun: string;
  name: string;
  chat: string;
  base: string;
  key: K;
  keyField: z.ZodNumber;
  parent: 'project' | 'group';
  /** The demo input of the list and of the single read (OperationSpec.examples). */
  demo: { list: Record<string, unknown>; get: Record<string, unknown> };
}) {
  const parent = spec.parent === 'project' ? fields.projectId() : fields.groupId();
  const target = { id: parent, [spec.key]: spec.keyField } as { id: typeof parent } & Record<K, z.ZodNumber>;
  const a = /^[aeiou]/.test(spec.noun) ? 'an' : 'a';
  return [
    defineOperation({
      name: `list_${spec.name}_label_events`,
      chat: `${spec.chat} label-events`,
      area: LABEL_EVENTS,
      title: `List ${spec.noun} label events`,
      description: `List who added or removed which label on ${a} ${spec.noun}, oldest first.`,
      route: `GET ${spec.base}/resource_label_events`,
      input: z.object(target),
      effect: 'read',
      pagination: 'offset',
      present: presentEvents,
      examples: [{ input: spec.demo.list }],
    }),
    defineOperation({
      name: `get_${spec.name}_label_event`,
      chat: `${spec.chat} label-event`,
      area: LABEL_EVENTS,
      title: `Get ${spec.noun} label event`,
      description: `Read one label event of ${a} ${spec.noun}.`,
      route: `GET ${spec.base}/resource_label_events/:resource_label_event_id`,
      input: z.object({ ...target, resource_label_event_id: eventId() }),
      effect: 'read',
      present: presentEvent,
      examples: [{ input: spec.demo.get }],
    }),
  ];
}

/** An epic of the demo data's group: its ID is only known once the sandbox runs. */
const epicOfDemo = demoLookup('/groups/:id/epics', { query: { include_descendant_groups: 'false' } });

const labelEventsOperations = [
  ...labelEventOperations({
    noun: 'issue',
    name: 'issue',
    chat: 'issue',
    base: '/projects/:id/issues/:issue_iid',
    parent: 'project',
    key: 'issue_iid',
    keyField: z.number().int().positive().describe('The #number.'),
    demo: {
      list: { id: 'acme/web', issue_iid: 1 },
      get: {
        id: 'acme/web',
        issue_iid: 1,
        resource_label_event_id: demoLookup('/projects/:id/issues/:issue_iid/resource_label_events'),
      },
    },
  }),
  ...labelEventOperations({
    noun: 'merge request',
    name: 'merge_request',
    chat: 'mr',
    base: '/projects/:id/merge_requests/:merge_request_iid',
    parent: 'project',
    key: 'merge_request_iid',
    keyField: z.number().int().positive().describe('The !number.'),
    demo: {
      list: { id: 'acme/web', merge_request_iid: 2 },
      get: {
        id: 'acme/web',
        merge_request_iid: 2,
        resource_label_event_id: demoLookup('/projects/:id/merge_requests/:merge_request_iid/resource_label_events'),
      },
    },
  }),
  ...labelEventOperations({
    noun: 'epic',
    name: 'epic',
    chat: 'epic',
    base: '/groups/:id/epics/:epic_id',
    parent: 'group',
    key: 'epic_id',
    keyField: z.number().int().positive().describe('The ID, not the &number.'),
    demo: {
      list: { id: 'acme', epic_id: epicOfDemo },
      get: {
        id: 'acme',
        epic_id: epicOfDemo,
        resource_label_event_id: demoLookup('/groups/:id/epics/:epic_id/resource_label_events'),
      },
    },
  }),
];

export const area = defineArea({ name: 'label_events', operations: labelEventsOperations });
