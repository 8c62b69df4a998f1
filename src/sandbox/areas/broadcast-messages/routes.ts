// Broadcast messages: the instance's banners. Reading needs no token (the spec, since 12.8); every change is an
// administrator's: 401 without a token, 403 for anyone else. starts_at defaults to now and ends_at to an hour
// later; a message must end after it starts; `active` is computed from the two on every answer.
import { z } from 'zod';
import { recordAuditEvent } from '../../core/audit.js';
import type { SandboxContext } from '../../core/context.js';
import { isActive, type BroadcastMessage } from './state.js';
import { notFound, validationError } from '../../core/errors.js';
import { paginate } from '../../core/paginate.js';
import { param } from '../../core/params.js';
import { integerPathParam, type Router, type SandboxRequest } from '../../core/router.js';
import { broadcastMessagesOf } from './state.js';

const HOUR = 60 * 60 * 1000;
/** "#E75E40" or the short "#FFF", as the service's colour fields take them. */
const HEX_COLOR = /^#(?:[0-9a-fA-F]{3}){1,2}$/;

const updateParams = z
  .object({
    message: z.string().refine((s) => s.trim() !== '', 'is empty'),
    starts_at: param.datetime(),
    ends_at: param.datetime(),
    color: z.string(),
    font: z.string(),
    target_path: z.string(),
    broadcast_type: param.enum(['banner', 'notification']),
  })
  .partial();
const createParams = updateParams.required({ message: true });

function messageView(message: BroadcastMessage) {
  return {
    id: message.id,
    message: message.message,
    starts_at: message.starts_at.toISOString(),
    ends_at: message.ends_at.toISOString(),
    color: message.color,
    font: message.font,
    active: isActive(message),
    target_path: message.target_path,
    broadcast_type: message.broadcast_type,
  };
}

/** The model's checks on the message as it would be saved: hex colours, and an end after the start. */
function validate(message: Omit<BroadcastMessage, 'id'>): void {
  const errors: Record<string, string[]> = {};
  for (const key of ['color', 'font'] as const) {
    if (message[key] !== '' && !HEX_COLOR.test(message[key])) errors[key] = ['must be a valid color code'];
  }
  if (message.ends_at.getTime() <= message.starts_at.getTime()) errors.ends_at = ['must be after start'];
  if (Object.keys(errors).length > 0) throw validationError(errors);
}

export function register(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;

  /** An instance change, recorded against the administrator who made it (../../core/audit.ts). */
  const audit = (req: SandboxRequest<unknown>, message: string) => {
    const admin = ctx.requireUser(req);
    recordAuditEvent(
      store,
      admin,
      { type: 'User', user: admin },
      { custom_message: message, target_type: 'BroadcastMessage' },
    );
  };

  function findMessage(req: SandboxRequest<unknown>): BroadcastMessage {
    const id = integerPathParam(req, 'id');
    const message = broadcastMessagesOf(store).find((m) => m.id === id);
    if (!message) throw notFound('Broadcast Message');
    return message;
  }

  router.route('GET', '/broadcast_messages', { pagination: 'offset' }, (req, reply) => {
    reply.json(paginate(req, reply, broadcastMessagesOf(store)).map(messageView));
  });

  router.route('GET', '/broadcast_messages/:id', {}, (req, reply) => {
    reply.json(messageView(findMessage(req)));
  });

  router.route('POST', '/broadcast_messages', { params: createParams, auth: 'admin' }, (req, reply) => {
    const { message, starts_at, ends_at, color, font, target_path, broadcast_type } = req.params;
    const start = starts_at ?? new Date();
    const fields: Omit<BroadcastMessage, 'id'> = {
      message,
      starts_at: start,
      ends_at: ends_at ?? new Date(start.getTime() + HOUR),
      color: color ?? '#E75E40',
      font: font ?? '#FFFFFF',
      target_path: target_path ?? '',
      broadcast_type: broadcast_type ?? 'banner',
    };
    validate(fields);
    const created = { id: store.nextId('broadcast_message'), ...fields };
    broadcastMessagesOf(store).push(created);
    audit(req, `Created broadcast message #${created.id}`);
    reply.json(messageView(created), 201);
  });

  router.route('PUT', '/broadcast_messages/:id', { params: updateParams, auth: 'admin' }, (req, reply) => {
    const message = findMessage(req);
    const changes = Object.fromEntries(Object.entries(req.params).filter(([, value]) => value !== undefined));
    const updated = { ...message, ...changes };
    validate(updated);
    Object.assign(message, updated);
    audit(req, `Updated broadcast message #${message.id}: ${Object.keys(changes).join(', ')}`);
    reply.json(messageView(message));
  });

  router.route('DELETE', '/broadcast_messages/:id', { auth: 'admin' }, (req, reply) => {
    const message = findMessage(req);
    broadcastMessagesOf(store).splice(broadcastMessagesOf(store).indexOf(message), 1);
    audit(req, `Deleted broadcast message #${message.id}`);
    reply.empty(204);
  });
}
