// Broadcast messages of the sandbox: their record, whether one shows now, and the demo messages.
//
// The demo instance has three: a maintenance banner shown now, an expired upgrade notice, and a notification
// scheduled for next week limited to merge request pages; so `active` reads true for one of them only.
import type { Store } from '../../core/store.js';
import { areaState } from '../../core/area.js';

export interface BroadcastMessage {
  id: number;
  message: string;
  starts_at: Date;
  ends_at: Date;
  color: string;
  font: string;
  target_path: string;
  broadcast_type: 'banner' | 'notification';
}

/** The spec: a message is shown between starts_at and ends_at; `active` is computed, never stored. */
export function isActive(message: BroadcastMessage, now = Date.now()): boolean {
  return message.starts_at.getTime() <= now && now < message.ends_at.getTime();
}

const DAY = 24 * 60 * 60 * 1000;

export function seedBroadcastMessages(store: Store, epoch: number): void {
  const at = (days: number) => new Date(epoch + days * DAY);
  const seeds: Array<Omit<BroadcastMessage, 'id'>> = [
    {
      message: 'Upgrade to 17.0 on Saturday 06:00 UTC: expect 15 minutes of downtime.',
      starts_at: at(-40),
      ends_at: at(-39),
      color: '#E75E40',
      font: '#FFFFFF',
      target_path: '',
      broadcast_type: 'banner',
    },
    {
      message: 'Runners are migrating to the new fleet this month; report slow jobs in #ci-help.',
      starts_at: at(-1),
      ends_at: at(30),
      color: '#1F78D1',
      font: '#FFFFFF',
      target_path: '',
      broadcast_type: 'banner',
    },
    {
      message: 'New: merge trains are on for acme/web.',
      starts_at: at(7),
      ends_at: at(14),
      color: '#E75E40',
      font: '#FFFFFF',
      target_path: '*/merge_requests',
      broadcast_type: 'notification',
    },
  ];
  for (const seed of seeds) broadcastMessagesOf(store).push({ id: store.nextId('broadcast_message'), ...seed });
}

/** Instance banners and notifications, oldest first. */
export const broadcastMessagesOf = areaState('broadcast_messages', (): BroadcastMessage[] => []);
