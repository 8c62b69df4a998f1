// Notification settings of the sandbox's users: the levels and email events, and each user's setting per scope
// (global, a group, a project); a setting never saved is the default.
import { areaState } from '../../core/area.js';
import type { Store, User } from '../../core/store.js';

export const NOTIFICATION_LEVELS = ['disabled', 'participating', 'watch', 'global', 'mention', 'custom'] as const;
type NotificationLevel = (typeof NOTIFICATION_LEVELS)[number];
/** The email events a `custom` level switches; new_epic belongs to the higher tier. */
export const NOTIFICATION_EVENTS = [
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
type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

export interface NotificationSetting {
  level: NotificationLevel;
  events: Record<NotificationEvent, boolean>;
}

/** Where a notification setting applies: the user's global one, or one group or project. */
export type NotificationScope = { kind: 'global' } | { kind: 'group'; id: number } | { kind: 'project'; id: number };

/** 'userId:global', 'userId:group:7', 'userId:project:3' → the setting; absent means the default. */
const notificationSettingsOf = areaState('notification_settings', () => new Map<string, NotificationSetting>());

/** A user's notification setting at a scope; the default when never set (participating globally, else global). */
export function notificationSetting(store: Store, user: User, scope: NotificationScope): NotificationSetting {
  const stored = notificationSettingsOf(store).get(notificationKey(user, scope));
  if (stored) return stored;
  const events = Object.fromEntries(NOTIFICATION_EVENTS.map((e) => [e, false])) as Record<NotificationEvent, boolean>;
  return { level: scope.kind === 'global' ? 'participating' : 'global', events };
}

export function saveNotificationSetting(
  store: Store,
  user: User,
  scope: NotificationScope,
  setting: NotificationSetting,
): void {
  notificationSettingsOf(store).set(notificationKey(user, scope), setting);
}

function notificationKey(user: User, scope: NotificationScope): string {
  return scope.kind === 'global' ? `${user.id}:global` : `${user.id}:${scope.kind}:${scope.id}`;
}
