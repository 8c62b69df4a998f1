// Notification settings of the caller: global, per group and per project; `custom` switches the email events.
//
// Every call needs a token; a group or project the caller may not see is 404. A PUT changes only what it names
// (the level, the email, each event), so the event booleans may be set before or after choosing `custom`; they
// are shown (as `events`) only while the level is custom. The global notification_email must be the caller's own
// address. The defaults are `participating` globally and `global` (follow the global level) elsewhere.
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { validationError } from '../../core/errors.js';
import { param } from '../../core/params.js';
import type { Router, SandboxRequest } from '../../core/router.js';
import type { User } from '../../core/store.js';
import {
  NOTIFICATION_EVENTS,
  NOTIFICATION_LEVELS,
  notificationSetting,
  saveNotificationSetting,
  type NotificationScope,
  type NotificationSetting,
} from './state.js';

const eventShape = Object.fromEntries(
  NOTIFICATION_EVENTS.map((event) => [event, param.boolean().optional()]),
) as Record<(typeof NOTIFICATION_EVENTS)[number], z.ZodOptional<ReturnType<typeof param.boolean>>>;

const scopedParams = z.object({ level: param.enum(NOTIFICATION_LEVELS).optional(), ...eventShape });
const globalParams = scopedParams.extend({ notification_email: z.string().optional() });
type GlobalParams = z.output<typeof globalParams>;

function view(setting: NotificationSetting) {
  return { level: setting.level, ...(setting.level === 'custom' ? { events: { ...setting.events } } : {}) };
}

export function register(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;
  // A sandbox user has one address, so the notification email is always it.
  const emailOf = (user: User) => user.email;

  function update(
    user: User,
    scope: NotificationScope,
    params: Omit<GlobalParams, 'notification_email'>,
  ): NotificationSetting {
    const current = notificationSetting(store, user, scope);
    const events = { ...current.events };
    for (const event of NOTIFICATION_EVENTS) if (params[event] !== undefined) events[event] = params[event]!;
    const next = { level: params.level ?? current.level, events };
    saveNotificationSetting(store, user, scope, next);
    return next;
  }

  const scopes: Array<{ path: string; scope(req: SandboxRequest<unknown>): NotificationScope }> = [
    {
      path: '/groups/:id/notification_settings',
      scope: (req) => ({ kind: 'group', id: ctx.findGroupFor(req, req.pathParams.id).id }),
    },
    {
      path: '/projects/:id/notification_settings',
      scope: (req) => ({ kind: 'project', id: ctx.findProjectFor(req, req.pathParams.id).id }),
    },
  ];

  router.route('GET', '/notification_settings', { auth: 'user' }, (req, reply) => {
    const user = ctx.requireUser(req);
    reply.json({ ...view(notificationSetting(store, user, { kind: 'global' })), notification_email: emailOf(user) });
  });

  router.route('PUT', '/notification_settings', { params: globalParams, auth: 'user' }, (req, reply) => {
    const user = ctx.requireUser(req);
    const { notification_email: email, ...rest } = req.params;
    // Checked before anything changes: a refused call leaves the settings as they were.
    if (email !== undefined && email.toLowerCase() !== user.email.toLowerCase()) {
      throw validationError({ notification_email: ['must be an email you have verified'] });
    }
    const setting = update(user, { kind: 'global' }, rest);
    reply.json({ ...view(setting), notification_email: emailOf(user) });
  });

  for (const { path, scope } of scopes) {
    router.route('GET', path, { auth: 'user' }, (req, reply) => {
      const user = ctx.requireUser(req);
      reply.json(view(notificationSetting(store, user, scope(req))));
    });
    router.route('PUT', path, { params: scopedParams, auth: 'user' }, (req, reply) => {
      const user = ctx.requireUser(req);
      reply.json(view(update(user, scope(req), req.params)));
    });
  }
}
