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

/**
 * The list and single read of one kind of resource: the same pair for issues, merge requests and epics. The tool
 * names and the route follow from the noun as the service spells it (merge request: merge_request, under
 * /projects/:id/merge_requests/:merge_request_iid), so a spec cannot name one thing and route to another.
 */
function labelEventOperations<K extends string>(spec: {
  noun: string;
  chat: string;
  parent: 'project' | 'group';
  key: K;
  /** What the number in `key` is: the #number, the !number or the ID. */
  keyIs: string;
  /** The demo resource (OperationSpec.examples): the list reads its events, the single read the first of them. */
  demo: Record<string, unknown>;
}) {
  const name = spec.noun.replaceAll(' ', '_');
  const base = `/${spec.parent}s/:id/${name}s/:${spec.key}`;
  const parent = spec.parent === 'project' ? fields.projectId() : fields.groupId();
  const keyField = z.number().int().positive().describe(spec.keyIs);
  const target = { id: parent, [spec.key]: keyField } as { id: typeof parent } & Record<K, z.ZodNumber>;
  const a = /^[aeiou]/.test(spec.noun) ? 'an' : 'a';
  return [
    defineOperation({
      name: `list_${name}_label_events`,
      chat: `${spec.chat} label-events`,
      area: LABEL_EVENTS,
      title: `List ${spec.noun} label events`,
      description: `List who added or removed which label on ${a} ${spec.noun}, oldest first.`,
      route: `GET ${base}/resource_label_events`,
      input: z.object(target),
      effect: 'read',
      pagination: 'offset',
      present: presentEvents,
      examples: [{ input: spec.demo }],
    }),
    defineOperation({
      name: `get_${name}_label_event`,
      chat: `${spec.chat} label-event`,
      area: LABEL_EVENTS,
      title: `Get ${spec.noun} label event`,
      description: `Read one label event of ${a} ${spec.noun}.`,
      route: `GET ${base}/resource_label_events/:resource_label_event_id`,
      input: z.object({ ...target, resource_label_event_id: eventId() }),
      effect: 'read',
      present: presentEvent,
      // An event's ID is only known once the sandbox runs: one of the list above, on the same resource.
      examples: [
        {
          input: { ...spec.demo, resource_label_event_id: demoLookup(`${base}/resource_label_events`) },
        },
      ],
    }),
  ];
}

/** An epic of the demo data's group: its ID is only known once the sandbox runs. */
const epicOfDemo = demoLookup('/groups/:id/epics', { query: { include_descendant_groups: 'false' } });

const labelEventsOperations = [
  ...labelEventOperations({
    noun: 'issue',
    chat: 'issue',
    parent: 'project',
    key: 'issue_iid',
    keyIs: 'The #number.',
    demo: { id: 'acme/web', issue_iid: 1 },
  }),
  ...labelEventOperations({
    noun: 'merge request',
    chat: 'mr',
    parent: 'project',
    key: 'merge_request_iid',
    keyIs: 'The !number.',
    demo: { id: 'acme/web', merge_request_iid: 2 },
  }),
  ...labelEventOperations({
    noun: 'epic',
    chat: 'epic',
    parent: 'group',
    key: 'epic_id',
    keyIs: 'The ID, not the &number.',
    demo: { id: 'acme', epic_id: epicOfDemo },
  }),
];

export const area = defineArea({ name: 'label_events', operations: labelEventsOperations });
