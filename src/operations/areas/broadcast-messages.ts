// Broadcast messages area: the instance's banners and notifications — list and read (anyone), create, edit and delete (administrators).
import { z } from 'zod';
import { defineOperation, fields, defineArea, demoLookup } from '../engine/define.js';
import type { Presentation } from '../engine/define.js';
import { asRecord, momentText, presentList, show } from '../engine/present.js';

const messageId = () => z.number().int().positive().describe('Message ID.');

/** "2026-11-28 06:00 UTC" (or "06:00 UTC" today): a banner's times to the minute, as forgeops says times everywhere. */
const minute = (value: unknown, now?: number) => momentText(value, now);

/**
 * Where a message stands, with the dates that matter: showing now (until when), scheduled (from, to) or expired
 * (when) — the service's `active` alone says only "now or not".
 */
export function broadcastState(m: Record<string, unknown>, now = Date.now()): string {
  const starts = typeof m.starts_at === 'string' ? Date.parse(m.starts_at) : Number.NaN;
  const ends = typeof m.ends_at === 'string' ? Date.parse(m.ends_at) : Number.NaN;
  if (m.active === true) return `active until ${minute(m.ends_at, now)}`;
  if (starts > now) return `scheduled ${minute(m.starts_at, now)} to ${minute(m.ends_at, now)}`;
  if (ends <= now) return `expired ${minute(m.ends_at, now)}`;
  return 'inactive';
}

/** One message: its text, where it stands, and its times as people read them (not the service's ISO strings). */
export function presentBroadcastMessage(data: unknown, now = Date.now()): Presentation {
  const m = asRecord(data);
  return {
    title: `Broadcast message #${show(m.id)}: ${broadcastState(m, now)}`,
    fields: [
      ['message', show(m.message)],
      ['starts', minute(m.starts_at, now)],
      ['ends', minute(m.ends_at, now)],
      ['type', show(m.broadcast_type)],
      ['target', show(m.target_path)],
      ['colours', `${show(m.color)} on ${show(m.font)}`.replace(/^\u2014 on \u2014$/, '—')],
    ],
  };
}

const message = () => z.string().min(1);

/** The fields create and update share, all optional. */
const settable = {
  starts_at: fields.dateTime('Default now').optional(),
  ends_at: fields.dateTime('Default an hour after now').optional(),
  color: z.string().optional().describe('Background, e.g. "#E75E40".'),
  font: z.string().optional().describe('Text colour.'),
  target_path: z.string().optional().describe('Only on matching pages, e.g. "*/merge_requests".'),
  broadcast_type: z.enum(['banner', 'notification']).optional(),
};

// What an update replaces: the service keeps no earlier version of a message.
const REPLACEABLE = ['message', ...Object.keys(settable)] as const;

const broadcastMessagesOperations = [
  defineOperation({
    name: 'list_broadcast_messages',
    chat: 'broadcast list',
    area: 'broadcast_messages',
    title: 'List broadcast messages',
    description: "List the instance's banners and notifications; active ones show now.",
    route: 'GET /broadcast_messages',
    input: z.object({}),
    effect: 'read',
    pagination: 'offset',
    present: presentList('message', (m) => [`#${show(m.id)}`, `${broadcastState(m)} · ${show(m.message)}`]),
    examples: [{ input: {} }],
  }),
  defineOperation({
    name: 'get_broadcast_message',
    chat: 'broadcast get',
    area: 'broadcast_messages',
    title: 'Get broadcast message',
    description: 'Read one broadcast message: text, when it shows, colours and target path.',
    route: 'GET /broadcast_messages/:id',
    input: z.object({ id: messageId() }),
    effect: 'read',
    present: (data) => presentBroadcastMessage(data),
    examples: [{ input: { id: demoLookup('/broadcast_messages') } }],
  }),
  defineOperation({
    name: 'create_broadcast_message',
    chat: 'broadcast create',
    area: 'broadcast_messages',
    title: 'Create broadcast message',
    description: 'Administrators only: show a banner or notification to every user.',
    adminOnly: true,
    route: 'POST /broadcast_messages',
    input: z.object({ message: message(), ...settable }),
    effect: 'write',
    undo: 'Adds a new message and replaces nothing; delete_broadcast_message takes it down again.',
    present: (data) => presentBroadcastMessage(data),
    decisions: { runs: [{ message: 'm', ends_at: '2030-01-01T00:00:00Z' }], asks: [] },
  }),
  defineOperation({
    name: 'update_broadcast_message',
    chat: 'broadcast update',
    area: 'broadcast_messages',
    title: 'Update broadcast message',
    description: 'Administrators only: change a broadcast message; fields left out stay.',
    adminOnly: true,
    route: 'PUT /broadcast_messages/:id',
    input: z.object({ id: messageId(), message: message().optional(), ...settable }),
    effect: 'write',
    undo: 'The values it replaces are kept nowhere, so it asks a human whenever it replaces one.',
    needsApproval: (input) => {
      const replaced = REPLACEABLE.filter((key) => (input as Record<string, unknown>)[key] !== undefined);
      if (replaced.length === 0) return undefined;
      return `It overwrites the message's ${replaced.join(', ')} as every user sees it; the current values are kept nowhere.`;
    },
    present: (data) => presentBroadcastMessage(data),
    // Every user sees a message; its earlier text, dates, colours and target are kept nowhere.
    decisions: {
      runs: [{ id: 1 }],
      asks: ['message', 'starts_at', 'ends_at', 'color', 'font', 'target_path']
        .map((key) => ({ id: 1, [key]: 'x' }))
        .concat([{ id: 1, broadcast_type: 'banner' } as never]),
    },
  }),
  defineOperation({
    name: 'delete_broadcast_message',
    chat: 'broadcast delete',
    area: 'broadcast_messages',
    title: 'Delete broadcast message',
    description: 'Administrators only: delete a broadcast message for good.',
    adminOnly: true,
    route: 'DELETE /broadcast_messages/:id',
    input: z.object({ id: messageId() }),
    effect: 'destructive',
    undo: 'Cannot be undone: the message is gone; create_broadcast_message can post its text again.',
    decisions: { runs: [], asks: [{ id: 1 }] },
  }),
];

export const area = defineArea({ name: 'broadcast_messages', operations: broadcastMessagesOperations });
