// Contract: broadcast messages against the sandbox — reading without a token, `active` computed from starts_at and
// ends_at, their defaults, hex colours, administrators-only changes (401 without a token, 403 for anyone else),
// and the decisions: an update that replaces something asks a human, a delete always does.
import { describe, expect, it } from 'vitest';
import type { ApiError } from '../../src/http/errors.js';
import { validateInput } from '../../src/operations/engine/validate.js';
import { decide } from '../../src/policy/policy.js';
import { expectNeedsToken } from './builders.js';
import { contractSuite, type Role } from './harness.js';

const suite = contractSuite('broadcast_messages');

interface Message {
  id: number;
  message: string;
  starts_at: string;
  ends_at: string;
  color: string;
  font: string;
  active: boolean;
  target_path: string;
  broadcast_type: string;
}

function read(name: string, input: Record<string, unknown>, as: Role = 'admin'): Promise<Message & Message[]> {
  return suite.data<Message & Message[]>(name, input, as);
}

function refusal(name: string, input: Record<string, unknown>, as: Role = 'admin'): Promise<ApiError> {
  return suite.refusal(name, input, as);
}

const HOUR = 60 * 60 * 1000;

describe.shuffle('broadcast-messages, in any order', () => {
  describe('reading', () => {
    it('lists the messages to anyone, without a token, with active computed from the dates', async () => {
      const all = await read('list_broadcast_messages', {}, 'anonymous');
      // The three seeded messages come first, by id; the tests that create messages add theirs after them.
      expect(all.slice(0, 3).map((m) => m.active)).toEqual([false, true, false]);
      const now = Date.now();
      for (const m of all) expect(m.active).toBe(Date.parse(m.starts_at) <= now && now < Date.parse(m.ends_at));
      expect(all[2]).toMatchObject({ broadcast_type: 'notification', target_path: '*/merge_requests' });
      expect(await read('get_broadcast_message', { id: all[1].id }, 'anonymous')).toEqual(all[1]);
    });

    it('answers 404 for an unknown message', async () => {
      const error = await refusal('get_broadcast_message', { id: 9999 }, 'guest');
      expect([error.status, error.message]).toEqual([404, '404 Broadcast Message Not Found']);
    });
  });

  describe('changes', () => {
    it('creates a banner shown from now for an hour by default', async () => {
      const before = Date.now();
      const created = await suite.call(
        'create_broadcast_message',
        { message: 'Deploy freeze until Monday' },
        { as: 'admin' },
      );
      const m = created.data as Message;
      expect(created.status).toBe(201);
      expect(m).toMatchObject({
        message: 'Deploy freeze until Monday',
        active: true,
        broadcast_type: 'banner',
        color: '#E75E40',
        font: '#FFFFFF',
        target_path: '',
      });
      expect(Date.parse(m.starts_at)).toBeGreaterThanOrEqual(before - 1000);
      expect(Date.parse(m.ends_at) - Date.parse(m.starts_at)).toBe(HOUR);
    });

    it('creates one with every field, edits it, and deletes it', async () => {
      const created = await read('create_broadcast_message', {
        message: 'Maintenance tonight',
        starts_at: '2030-01-01T20:00:00Z',
        ends_at: '2030-01-01T22:00:00Z',
        color: '#123456',
        font: '#FFF',
        target_path: '*/pipelines',
        broadcast_type: 'notification',
      });
      expect(created).toMatchObject({
        starts_at: '2030-01-01T20:00:00.000Z',
        ends_at: '2030-01-01T22:00:00.000Z',
        active: false,
        color: '#123456',
        font: '#FFF',
        target_path: '*/pipelines',
        broadcast_type: 'notification',
      });
      const edited = await read('update_broadcast_message', {
        id: created.id,
        message: 'Maintenance now',
        starts_at: '2020-01-01T00:00:00Z',
        ends_at: '2099-01-01T00:00:00Z',
        color: '#000000',
        font: '#FFFFFF',
        target_path: '',
        broadcast_type: 'banner',
      });
      expect(edited).toMatchObject({
        id: created.id,
        message: 'Maintenance now',
        active: true,
        color: '#000000',
        target_path: '',
        broadcast_type: 'banner',
      });
      // Fields left out stay as they were.
      expect(await read('update_broadcast_message', { id: created.id, font: '#EEE' })).toMatchObject({
        message: 'Maintenance now',
        font: '#EEE',
        active: true,
      });
      const deleted = await suite.call('delete_broadcast_message', { id: created.id }, { as: 'admin' });
      expect([deleted.status, deleted.data]).toEqual([204, null]);
      expect((await refusal('get_broadcast_message', { id: created.id })).status).toBe(404);
    });

    it('refuses a colour that is not a hex code and an end before the start, storing nothing', async () => {
      const count = (await read('list_broadcast_messages', {})).length;
      const colour = await refusal('create_broadcast_message', { message: 'x', color: 'red' });
      expect([colour.status, colour.fieldErrors]).toEqual([400, { color: ['must be a valid color code'] }]);
      const backwards = await refusal('create_broadcast_message', {
        message: 'x',
        starts_at: '2030-01-02T00:00:00Z',
        ends_at: '2030-01-01T00:00:00Z',
      });
      expect([backwards.status, backwards.fieldErrors]).toEqual([400, { ends_at: ['must be after start'] }]);
      // ends_at alone, before the default start (now), is refused too.
      expect(
        (await refusal('create_broadcast_message', { message: 'x', ends_at: '2000-01-01T00:00:00Z' })).status,
      ).toBe(400);
      const seeded = (await read('list_broadcast_messages', {}))[0];
      expect(
        (await refusal('update_broadcast_message', { id: seeded.id, ends_at: '1999-01-01T00:00:00Z' })).fieldErrors,
      ).toEqual({ ends_at: ['must be after start'] });
      expect(await read('list_broadcast_messages', {})).toHaveLength(count);
      expect((await read('get_broadcast_message', { id: seeded.id })).ends_at).toBe(seeded.ends_at);
    });

    it('refuses every change without a token (401) and from anyone but an administrator (403)', async () => {
      const [first] = await read('list_broadcast_messages', {});
      const calls = [
        ['create_broadcast_message', { message: 'hi' }],
        ['update_broadcast_message', { id: first.id, message: 'hi' }],
        ['delete_broadcast_message', { id: first.id }],
      ] as const;
      for (const [name, input] of calls) {
        await expectNeedsToken(suite, name, input);
        for (const role of ['maintainer', 'guest', 'outsider'] as const) {
          const error = await refusal(name, input, role);
          expect([error.status, error.message], `${name} as ${role}`).toEqual([403, '403 Forbidden']);
        }
      }
      expect(await read('get_broadcast_message', { id: first.id })).toEqual(first);
    });
  });

  describe('decisions', () => {
    const prompt = (name: string, raw: Record<string, unknown>) => {
      const op = suite.operation(name);
      const decision = decide(op, validateInput(op, raw) as Record<string, unknown>, { readOnly: false });
      return decision.kind === 'approve' ? decision.prompt : decision.kind;
    };

    it("asks before replacing a message's text or dates, naming what is replaced; deletes always ask", () => {
      expect(prompt('update_broadcast_message', { id: 2 })).toBe('run');
      expect(prompt('update_broadcast_message', { id: 2, message: 'new', ends_at: '2030-01-01T00:00:00Z' })).toContain(
        "overwrites the message's message, ends_at",
      );
      expect(prompt('delete_broadcast_message', { id: 2 })).toContain('Cannot be undone');
      expect(prompt('create_broadcast_message', { message: 'hi' })).toBe('run');
    });
  });

  suite.pagingCase('list_broadcast_messages', {}, { as: 'anonymous' });

  suite.badInputCases([
    ['a message without text', 'create_broadcast_message', { message: '' }, 'message'],
    [
      'an unknown broadcast type',
      'create_broadcast_message',
      { message: 'x', broadcast_type: 'popup' },
      'broadcast_type',
    ],
    ['a message id that is not a whole number', 'get_broadcast_message', { id: 1.5 }, 'id'],
    [
      'an update of a message id that is not a whole number',
      'update_broadcast_message',
      { id: 2.5, message: 'x' },
      'id',
    ],
  ]);
});

suite.coverageCase();
