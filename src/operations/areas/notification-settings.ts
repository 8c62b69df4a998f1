// Notification settings area: the caller's email notification level (and custom events) globally, per group and per project.
import { z } from 'zod';
import { defineOperation, fields, defineArea, casesOn, type Decisions } from '../engine/define.js';
import type { Presentation } from '../engine/define.js';
import { asRecord, show } from '../engine/present.js';

const LEVELS = ['disabled', 'participating', 'watch', 'global', 'mention', 'custom'] as const;
const EVENTS = [
  'new_note',
  'new_issue',
  'reopen_issue',
  'close_issue',
  'reassign_issue',
  'issue_due',
  'new_merge_request',
  'push_to_merge_request',
  'reopen_merge_request',
  'close_merge_request',
  'reassign_merge_request',
  'merge_merge_request',
  'failed_pipeline',
  'success_pipeline',
  'new_epic',
] as const;

const changeShape = {
  level: z.enum(LEVELS).optional().describe('custom uses events.'),
  // One object instead of 15 top-level booleans keeps the tool small; it is sent as the API's own booleans (spreadInput).
  events: z
    .partialRecord(z.enum(EVENTS), z.boolean())
    .optional()
    .describe('For level custom, e.g. {"new_note": false}.'),
};

function presentSettings(data: unknown): Presentation {
  const setting = asRecord(data);
  const events = Object.entries(asRecord(setting.events));
  const on = events.filter(([, value]) => value === true).map(([name]) => name);
  return {
    title: `Notification level: ${show(setting.level)}`,
    fields: [
      ...('notification_email' in setting ? [['email', show(setting.notification_email)] as [string, string]] : []),
      ...(events.length > 0 ? [['events on', on.length > 0 ? on.join(', ') : 'none'] as [string, string]] : []),
    ],
  };
}

const UNDO =
  'Replaces your notification level, events (and, globally, the email address); the earlier values are ' +
  'kept nowhere, so it asks a human whenever it changes one.';

/** Every setting given is overwritten without history; an empty call changes nothing. */
function changeNeedsApproval(where: string) {
  return (input: { level?: string; events?: object; notification_email?: string }) => {
    const changed = [
      input.level && 'level',
      input.events && 'events',
      input.notification_email && 'notification email',
    ].filter(Boolean);
    if (changed.length === 0) return undefined;
    return (
      `It replaces your ${where} notification ${changed.join(', ')}; the current values are kept nowhere, ` +
      `so read them first (get_${where === 'global' ? '' : `${where}_`}notification_settings) if they may be needed again.`
    );
  };
}

const getDescription = (where: string) => `Read your email notification level${where} and its custom events.`;
const setDescription = (where: string) => `Change your email notification level${where} or its custom events.`;

function update<S extends z.ZodObject>(spec: {
  name: string;
  chat: string;
  route: string;
  where: string;
  description: string;
  input: S;
  decisions: Decisions;
}) {
  return defineOperation({
    name: spec.name,
    chat: spec.chat,
    area: 'notification_settings',
    title: `Update ${spec.where} notification settings`,
    description: spec.description,
    route: spec.route,
    input: spec.input,
    effect: 'write',
    undo: UNDO,
    needsApproval: changeNeedsApproval(spec.where) as (input: z.infer<S>) => string | undefined,
    present: presentSettings,
    spreadInput: 'events',
    decisions: spec.decisions,
  });
}

/** Reading a group's or a project's own settings: the same read, named and routed by where. */
function getIn(where: 'group' | 'project', id: () => z.ZodType, example: string) {
  return defineOperation({
    name: `get_${where}_notification_settings`,
    chat: `notification get-${where}`,
    area: 'notification_settings',
    title: `Get ${where} notification settings`,
    description: getDescription(` for a ${where}`),
    route: `GET /${where}s/:id/notification_settings`,
    input: z.object({ id: id() }),
    effect: 'read',
    present: presentSettings,
    examples: [{ input: { id: example } }],
  });
}

const notificationSettingsOperations = [
  defineOperation({
    name: 'get_notification_settings',
    chat: 'notification get',
    area: 'notification_settings',
    title: 'Get global notification settings',
    description: 'Read your email notification level, its custom events and the address emails go to.',
    route: 'GET /notification_settings',
    input: z.object({}),
    effect: 'read',
    present: presentSettings,
    examples: [{ input: {} }],
  }),
  update({
    name: 'update_notification_settings',
    chat: 'notification set',
    route: 'PUT /notification_settings',
    where: 'global',
    description: setDescription(' everywhere'),
    input: z.object({
      ...changeShape,
      notification_email: z.string().optional().describe('One of your verified addresses.'),
    }),
    // Notification settings: the level, events and email they replace are kept nowhere; an empty call changes nothing.
    decisions: {
      runs: [{}],
      asks: [{ level: 'watch' }, { events: { new_note: false } }, { notification_email: 'alice@acme.example' }],
    },
  }),
  getIn('group', fields.groupId, 'acme'),
  update({
    name: 'update_group_notification_settings',
    chat: 'notification set-group',
    route: 'PUT /groups/:id/notification_settings',
    where: 'group',
    description: setDescription(' for a group'),
    input: z.object({ id: fields.groupId(), ...changeShape }),
    decisions: casesOn({ id: 'acme' }, { runs: [{}], asks: [{ level: 'disabled' }, { events: { new_note: true } }] }),
  }),
  getIn('project', fields.projectId, 'acme/web'),
  update({
    name: 'update_project_notification_settings',
    chat: 'notification set-project',
    route: 'PUT /projects/:id/notification_settings',
    where: 'project',
    description: setDescription(' for a project'),
    input: z.object({ id: fields.projectId(), ...changeShape }),
    decisions: casesOn(
      { id: 'acme/web' },
      { runs: [{}], asks: [{ level: 'custom' }, { events: { failed_pipeline: true } }] },
    ),
  }),
];

export const area = defineArea({ name: 'notification_settings', operations: notificationSettingsOperations });
