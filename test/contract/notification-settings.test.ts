// Contract: notification settings at the global, group and project levels — defaults, custom with its event
// booleans, a change kept per user and per place, the caller's own email only, visibility, authentication.
import { describe, expect, it } from 'vitest';
import { api } from '../unit/sandbox/sandbox-client.js';
import { expectNeedsToken, expectRefusal } from './builders.js';
import { contractSuite, type Role } from './harness.js';

const suite = contractSuite('notification_settings');

interface Setting {
  level: string;
  notification_email?: string;
  events?: Record<string, boolean>;
}

function read(name: string, input: Record<string, unknown>, as: Role = 'maintainer'): Promise<Setting> {
  return suite.data<Setting>(name, input, as);
}

// The three places, each with its own default, a target the outsider may not see, and a user who changes it.
const LEVELS = [
  {
    where: 'global',
    get: 'get_notification_settings',
    set: 'update_notification_settings',
    target: {},
    fallback: 'participating',
    as: 'developer' as Role,
  },
  {
    where: 'group',
    get: 'get_group_notification_settings',
    set: 'update_group_notification_settings',
    target: { id: 'acme/platform' },
    fallback: 'global',
    as: 'reporter' as Role,
  },
  {
    where: 'project',
    get: 'get_project_notification_settings',
    set: 'update_project_notification_settings',
    target: { id: 'acme/platform/payments-api' },
    fallback: 'global',
    as: 'guest' as Role,
  },
] as const;

describe.shuffle('notification-settings, in any order', () => {
  describe.each(LEVELS)('$where notification settings', ({ where, get, set, target, fallback, as }) => {
    it('starts at the default level, without events', async () => {
      // Read as a user whose settings no test here changes: `as` is the one the change test changes.
      const setting = await read(get, target, 'maintainer');
      expect(setting.level).toBe(fallback);
      expect(setting.events).toBeUndefined();
    });

    it('keeps a custom level with its event booleans, shows them only while custom, and per user', async () => {
      const custom = await read(
        set,
        { ...target, level: 'custom', events: { new_note: true, failed_pipeline: true, new_issue: false } },
        as,
      );
      expect(custom.level).toBe('custom');
      expect(custom.events).toMatchObject({
        new_note: true,
        failed_pipeline: true,
        new_issue: false,
        merge_merge_request: false,
      });
      expect(Object.keys(custom.events!)).toHaveLength(15);
      expect(await read(get, target, as)).toEqual(custom);
      // Another user's settings of the same place are their own.
      expect((await read(get, target, 'admin')).level).toBe(fallback);

      // Events switched while another level is chosen are kept for when custom comes back.
      const watch = await read(set, { ...target, level: 'watch', events: { success_pipeline: true } }, as);
      expect(watch).toEqual(expect.objectContaining({ level: 'watch' }));
      expect(watch.events).toBeUndefined();
      const back = await read(set, { ...target, level: 'custom' }, as);
      expect(back.events).toMatchObject({ new_note: true, failed_pipeline: true, success_pipeline: true });
      // A call that names nothing changes nothing.
      expect(await read(set, target, as)).toEqual(back);
    });

    it('needs a token', async () => {
      await expectNeedsToken(suite, get, target);
      expect((await suite.refusal(set, { ...target, level: 'watch' }, 'anonymous')).status).toBe(401);
    });

    it('refuses a level the service does not have, over HTTP too', async () => {
      await expect(suite.call(set, { ...target, level: 'loud' })).rejects.toThrow(/level/);
      const path =
        where === 'global'
          ? '/notification_settings'
          : `/${where === 'group' ? 'groups' : 'projects'}/${encodeURIComponent((target as { id: string }).id)}/notification_settings`;
      const answer = await api(suite.sandbox, 'PUT', path, { json: { level: 'loud' } });
      expect([answer.status, answer.data]).toEqual([400, { error: 'level does not have a valid value' }]);
    });
  });

  describe('global notification settings', () => {
    it("send emails to the caller's own address only, and a refused change changes nothing", async () => {
      const before = await read('get_notification_settings', {}, 'reporter');
      expect(before).toEqual({ level: 'participating', notification_email: 'carol@acme.example' });
      const own = await read(
        'update_notification_settings',
        { notification_email: 'carol@acme.example', level: 'mention' },
        'reporter',
      );
      expect(own).toEqual({ level: 'mention', notification_email: 'carol@acme.example' });
      const error = await suite.refusal(
        'update_notification_settings',
        { notification_email: 'someone@elsewhere.example', level: 'disabled' },
        'reporter',
      );
      expect(error.status).toBe(400);
      expect(error.serviceMessage).toContain('notification_email');
      expect(await read('get_notification_settings', {}, 'reporter')).toEqual(own);
    });

    it('reads the event booleans as other clients write them (True/False)', async () => {
      const answer = await api(
        suite.sandbox,
        'PUT',
        '/notification_settings?level=custom&new_note=True&close_issue=False',
        { as: 'outsider' },
      );
      expect(answer.status).toBe(200);
      expect(answer.data.events).toMatchObject({ new_note: true, close_issue: false });
    });
  });

  describe('visibility', () => {
    it('answers 404 for a private group or project the caller may not see', async () => {
      await expectRefusal(suite, 'get_group_notification_settings', { id: 'acme/platform' }, 'outsider', [
        404,
        '404 Group Not Found',
      ]);
      const project = await suite.refusal(
        'update_project_notification_settings',
        { id: 'bob/scratchpad', level: 'watch' },
        'outsider',
      );
      expect([project.status, project.message]).toEqual([404, '404 Project Not Found']);
      // Public places are anyone's to follow.
      expect(
        (await read('update_project_notification_settings', { id: 'acme/web', level: 'watch' }, 'outsider')).level,
      ).toBe('watch');
    });
  });

  describe('presentation', () => {
    it('shows the level, the email and the events that are on', async () => {
      const result = await suite.call(
        'update_group_notification_settings',
        { id: 'acme', level: 'custom', events: { new_merge_request: true } },
        { as: 'admin' },
      );
      expect(suite.operation('update_group_notification_settings').present!(result.data, { id: 'acme' })).toEqual({
        title: 'Notification level: custom',
        fields: [['events on', 'new_merge_request']],
      });
      const global = await suite.call('get_notification_settings', {}, { as: 'admin' });
      expect(suite.operation('get_notification_settings').present!(global.data, {})).toEqual({
        title: 'Notification level: participating',
        fields: [['email', 'root@acme.example']],
      });
    });
  });
});

suite.coverageCase();
