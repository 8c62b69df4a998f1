// Times in readable answers read as people read them elsewhere in forgeops (triage's "13:02 UTC"), never as ISO strings.
import { describe, expect, it } from 'vitest';
import { presentBroadcastMessage } from '../../../src/operations/areas/broadcast-messages.js';
import { presentRelease } from '../../../src/operations/areas/releases.js';
import { momentText } from '../../../src/operations/engine/present.js';
import { findOperation } from '../../../src/operations/index.js';

const NOW = Date.parse('2026-12-06T20:00:00Z');

describe('momentText', () => {
  it('says the minute in UTC, with the day unless it is today, and leaves a non-time as it is', () => {
    expect(momentText('2026-12-06T13:02:59.000Z', NOW)).toBe('13:02 UTC');
    expect(momentText('2026-11-25T13:02:00.000+02:00', NOW)).toBe('2026-11-25 11:02 UTC');
    expect(momentText('soon', NOW)).toBe('soon');
    expect(momentText(null, NOW)).toBe('—');
  });
});

describe('releases and broadcast messages show times as people read them', () => {
  it('shows when a release was released, not its ISO string, in one release and in the list', () => {
    const release = { tag_name: 'v1.3', name: 'Web 1.3', released_at: '2026-11-29T11:36:00.000Z' };
    expect(presentRelease(release, NOW).fields).toContainEqual(['released', '2026-11-29 11:36 UTC']);
    const list = findOperation('list_releases')!.present!([release], { id: 'acme/web' });
    expect(list.fields).toEqual([['v1.3', 'Web 1.3 · 2026-11-29 11:36 UTC']]);
    expect(JSON.stringify(list)).not.toContain('T11:36');
  });

  it("shows a broadcast message's start and end as people read them, read or written", () => {
    const message = {
      id: 4,
      message: 'Upgrade on Saturday',
      starts_at: '2026-12-12T06:00:00.000Z',
      ends_at: '2026-12-12T07:00:00.000Z',
      active: false,
      broadcast_type: 'banner',
      color: '#E75E40',
      font: '#FFFFFF',
    };
    const shown = presentBroadcastMessage(message, NOW);
    expect(shown.title).toBe('Broadcast message #4: scheduled 2026-12-12 06:00 UTC to 2026-12-12 07:00 UTC');
    expect(shown.fields).toContainEqual(['starts', '2026-12-12 06:00 UTC']);
    expect(shown.fields).toContainEqual(['ends', '2026-12-12 07:00 UTC']);
    for (const name of ['get_broadcast_message', 'create_broadcast_message', 'update_broadcast_message']) {
      const text = JSON.stringify(findOperation(name)!.present!(message, { id: 4, message: 'x' } as never));
      expect(text, name).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d/);
    }
  });
});
