// Contract: audit events against the sandbox — the instance list for administrators only, the group list for
// administrators and group owners only, the created_after/created_before and entity_type/entity_id filters
// (entity_id needing entity_type), newest first, and the sandbox recording the changes it makes.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/http/errors.js';
import { contractSuite, withoutRules, type Role } from './harness.js';

const suite = contractSuite('audit_events');

interface AuditEvent {
  id: number;
  author_id: number;
  entity_id: number;
  entity_type: string;
  details: Record<string, unknown>;
  created_at: string;
}

function read(name: string, input: Record<string, unknown>, as: Role = 'admin'): Promise<AuditEvent & AuditEvent[]> {
  return suite.data<AuditEvent & AuditEvent[]>(name, input, as);
}

function refusal(name: string, input: Record<string, unknown>, as: Role = 'admin'): Promise<ApiError> {
  return suite.refusal(name, input, as);
}

const group = (path: string) => suite.sandbox.store.findGroup(path)!;
const DAY = 24 * 60 * 60 * 1000;
const iso = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY).toISOString().replace(/\.\d+Z$/, 'Z');
// The seeded events, all a day old or more: the recording test adds events of its own, now, before or after these.
const seeded = (events: AuditEvent[]) => events.filter((e) => Date.parse(e.created_at) < Date.now() - DAY / 2);
const ids = (events: AuditEvent[]) => seeded(events).map((e) => e.id);

describe.shuffle('audit-events, in any order', () => {
  describe('the instance list (administrators)', () => {
    it("lists every event newest first, with the spec's fields", async () => {
      const everything = await read('list_audit_events', {});
      const times = everything.map((e) => Date.parse(e.created_at));
      expect(times).toEqual([...times].sort((a, b) => b - a));
      const all = seeded(everything);
      expect(all.map((e) => e.id)).toEqual([5, 4, 3, 2, 1]);
      expect(all.map((e) => e.entity_type)).toEqual(['Group', 'Group', 'User', 'Project', 'Group']);
      expect(all[3]).toMatchObject({
        entity_id: suite.sandbox.store.findProject('acme/web')!.id,
        details: {
          change: 'visibility',
          from: 'Private',
          to: 'Public',
          author_name: expect.any(String),
          entity_path: 'acme/web',
          ip_address: '127.0.0.1',
        },
      });
      expect(await read('get_audit_event', { id: 2 })).toEqual(all[3]);
      expect((await refusal('get_audit_event', { id: 999 })).message).toBe('404 Audit Event Not Found');
    });

    it('filters by period and by entity', async () => {
      expect(ids(await read('list_audit_events', { created_after: iso(25) }))).toEqual([5, 4, 3]);
      expect((await read('list_audit_events', { created_before: iso(25) })).map((e) => e.id)).toEqual([2, 1]);
      expect(
        (await read('list_audit_events', { created_after: iso(35), created_before: iso(15) })).map((e) => e.id),
      ).toEqual([3, 2]);
      expect(ids(await read('list_audit_events', { entity_type: 'Group' }))).toEqual([5, 4, 1]);
      expect(ids(await read('list_audit_events', { entity_type: 'Group', entity_id: group('acme').id }))).toEqual([
        5, 1,
      ]);
      // The same id as another kind of entity matches nothing.
      expect(await read('list_audit_events', { entity_type: 'Project', entity_id: group('acme').id })).toEqual([]);
    });

    it('refuses entity_id without entity_type, and a date that is not one', async () => {
      // entity_id needs entity_type: the operation's own rule, and the sandbox's answer to a client without it.
      const alone = (await suite
        .call(withoutRules(suite.operation('list_audit_events')), { entity_id: 1 }, { as: 'admin' })
        .catch((e: unknown) => e)) as ApiError;
      expect(alone).toBeInstanceOf(ApiError);
      expect([alone.status, alone.serviceMessage]).toEqual([400, 'entity_type is missing']);
      const bad = await refusal('list_audit_events', { created_after: 'last week' });
      expect([bad.status, bad.serviceMessage]).toEqual([400, 'created_after does not have a valid value']);
    });

    it('refuses anyone but an administrator', async () => {
      expect((await refusal('list_audit_events', {}, 'anonymous')).status).toBe(401);
      for (const role of ['maintainer', 'outsider'] as const) {
        expect((await refusal('list_audit_events', {}, role)).status, role).toBe(403);
        expect((await refusal('get_audit_event', { id: 1 }, role)).status, role).toBe(403);
      }
    });
  });

  describe("a group's list (administrators and owners)", () => {
    it("lists the group's own events only, filtered by period, and reads one", async () => {
      expect(ids(await read('list_group_audit_events', { id: 'acme' }))).toEqual([5, 1]);
      expect(
        (await read('list_group_audit_events', { id: 'acme', created_after: iso(20), created_before: iso(1) })).map(
          (e) => e.id,
        ),
      ).toEqual([5]);
      expect(await read('get_group_audit_event', { id: 'acme', audit_event_id: 1 })).toMatchObject({
        id: 1,
        entity_type: 'Group',
        details: { add: 'user_access' },
      });
      // An event of another group (or of no group) is not this group's.
      for (const id of [2, 4])
        expect((await refusal('get_group_audit_event', { id: 'acme', audit_event_id: id })).status).toBe(404);
    });

    it('lets an owner read, and refuses a maintainer and a group the caller cannot see', async () => {
      const carol = suite.sandbox.store.users.find((u) => u.username === 'carol')!;
      group('acme/platform').members.set(carol.id, { access_level: 50, expires_at: null, created_at: new Date() });
      expect((await read('list_group_audit_events', { id: 'acme/platform' }, 'reporter')).map((e) => e.id)).toEqual([
        4,
      ]);
      expect((await read('get_group_audit_event', { id: 'acme/platform', audit_event_id: 4 }, 'reporter')).id).toBe(4);
      // Owning a subgroup is not owning its parent.
      expect((await refusal('list_group_audit_events', { id: 'acme' }, 'reporter')).status).toBe(403);
      expect((await refusal('list_group_audit_events', { id: 'acme' }, 'maintainer')).status).toBe(403);
      expect((await refusal('get_group_audit_event', { id: 'acme', audit_event_id: 1 }, 'maintainer')).status).toBe(
        403,
      );
      expect((await refusal('list_group_audit_events', { id: 'acme' }, 'anonymous')).status).toBe(401);
      expect((await refusal('list_group_audit_events', { id: 'acme/platform' }, 'outsider')).message).toBe(
        '404 Group Not Found',
      );
    });
  });

  describe('recording', () => {
    it("records the sandbox's own changes: a group variable against its group, a broadcast message against its author", async () => {
      const headers = { 'private-token': suite.sandbox.tokens.admin, 'content-type': 'application/json' };
      const api = `${suite.sandbox.url}/api/v4`;
      expect(
        (
          await fetch(`${api}/groups/acme/variables`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ key: 'AUDITED', value: 's3cret' }),
          })
        ).status,
      ).toBe(201);
      expect((await fetch(`${api}/groups/acme/variables/AUDITED`, { method: 'DELETE', headers })).status).toBe(204);
      expect(
        (
          await fetch(`${api}/broadcast_messages`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ message: 'hello' }),
          })
        ).status,
      ).toBe(201);
      const root = suite.sandbox.store.users.find((u) => u.username === 'root')!;
      const [broadcast, removed, added] = await read('list_audit_events', { created_after: iso(0.01) });
      expect(broadcast).toMatchObject({
        author_id: root.id,
        entity_type: 'User',
        entity_id: root.id,
        details: { custom_message: expect.stringMatching(/^Created broadcast message #\d+$/) },
      });
      expect(removed).toMatchObject({
        entity_type: 'Group',
        entity_id: group('acme').id,
        details: { remove: 'variable', target_details: 'AUDITED', entity_path: 'acme' },
      });
      expect(added.details).toMatchObject({ add: 'variable', target_details: 'AUDITED' });
      expect(JSON.stringify([broadcast, removed, added])).not.toContain('s3cret');
      expect((await read('list_group_audit_events', { id: 'acme' })).slice(0, 2).map((e) => e.id)).toEqual([
        removed.id,
        added.id,
      ]);
    });
  });

  suite.pagingCase('list_audit_events', {}, { as: 'admin' });
  suite.pagingCase('list_group_audit_events', { id: 'acme' }, { as: 'admin' });

  suite.badInputCases([
    ['an unknown entity type', 'list_audit_events', { entity_type: 'Issue' }, 'entity_type'],
    ['entity_id without entity_type', 'list_audit_events', { entity_id: 1 }, 'entity_type'],
    [
      'an entity_id that is not a whole number',
      'list_audit_events',
      { entity_type: 'User', entity_id: 1.5 },
      'entity_id',
    ],
    ['an event id that is not a whole number', 'get_audit_event', { id: 1.5 }, 'id'],
    [
      'a group event id that is not a whole number',
      'get_group_audit_event',
      { id: 'acme', audit_event_id: 1.5 },
      'audit_event_id',
    ],
  ]);
});

suite.coverageCase();
