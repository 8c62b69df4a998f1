// Contract: group and project members — direct and inherited lists (each user once, at the project's level or the
// nearest group's), query and user_ids, single reads, expires_at, owner on groups only, and the refusals of writes.
import { describe, expect, it, onTestFinished } from 'vitest';
import { api } from '../unit/sandbox/sandbox-client.js';
import { contractSuite, type Role } from './harness.js';

const suite = contractSuite('members');

interface Member {
  id: number;
  username: string;
  access_level: number;
  expires_at: string | null;
  name: string;
  web_url: string;
}

const id = (username: string) => suite.sandbox.store.findUser(username)!.id;

/** username → access level, in the order the service lists them. */
const levels = async (name: string, input: Record<string, unknown>, as: Role = 'maintainer') =>
  Object.fromEntries(
    (await suite.data<Member[]>(name, { per_page: 100, ...input }, as)).map((m) => [m.username, m.access_level]),
  );

const inFuture = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

/** acme's seeded members and their access levels (owner 50 down to guest 10). */
const ACME_LEVELS = { root: 50, alice: 40, bob: 30, carol: 20, dave: 10 };

describe.shuffle('members, in any order', () => {
  describe('direct members', () => {
    it("lists a group's own members with their levels, filtered by query and user_ids", async () => {
      expect(await levels('list_group_members', { id: 'acme' })).toEqual(ACME_LEVELS);
      expect(await levels('list_group_members', { id: 'acme', query: 'ALI' })).toEqual({ alice: 40 });
      expect(
        await levels('list_group_members', { id: 'acme', user_ids: [id('bob'), id('carol'), id('erin')] }),
      ).toEqual({
        bob: 30,
        carol: 20,
      });
      // A public group's members are public; a private group is 404 to non-members.
      expect(Object.keys(await levels('list_group_members', { id: 'acme' }, 'anonymous'))).toHaveLength(5);
      expect(await levels('list_group_members', { id: 'acme/platform' })).toEqual({});
      const hidden = await suite.refusal('list_group_members', { id: 'acme/platform' }, 'outsider');
      expect([hidden.status, hidden.serviceMessage]).toEqual([404, '404 Group Not Found']);
    });

    it('reads one direct member, and 404 for a user whose access is only inherited', async () => {
      const alice = await suite.data<Member>('get_group_member', { id: 'acme', user_id: id('alice') });
      expect(alice).toMatchObject({
        username: 'alice',
        name: 'Alice Martin',
        access_level: 40,
        expires_at: null,
        web_url: expect.stringMatching(/\/alice$/),
      });
      const inherited = await suite.refusal('get_group_member', { id: 'acme/platform', user_id: id('alice') });
      expect([inherited.status, inherited.serviceMessage]).toEqual([404, '404 Member Not Found']);
      expect((await suite.refusal('get_project_member', { id: 'acme/web', user_id: id('alice') })).status).toBe(404);
    });
  });

  describe('inherited members', () => {
    it("lists each user once, at the project's own level or the nearest group's", async () => {
      // acme/platform has no members of its own: everyone comes from acme.
      expect(await levels('list_all_group_members', { id: 'acme/platform' })).toEqual(ACME_LEVELS);
      await suite.call(
        'add_group_member',
        { id: 'acme/platform', user_id: id('carol'), access_level: 40 },
        { as: 'admin' },
      );
      await suite.call('add_project_member', { id: 'acme/platform/infra', user_id: id('dave'), access_level: 30 });
      // The users are the seeded ones, nothing to make afresh: the memberships go again, for the tests that list them.
      onTestFinished(async () => {
        await suite.call('remove_group_member', { id: 'acme/platform', user_id: id('carol') }, { as: 'admin' });
        await suite.call('remove_project_member', { id: 'acme/platform/infra', user_id: id('dave') }, { as: 'admin' });
      });
      const infra = await suite.data<Member[]>('list_all_project_members', {
        id: 'acme/platform/infra',
        per_page: 100,
      });
      // dave at the project's own level (30, not acme's 10), carol at platform's (40, not acme's 20), each once.
      expect(infra.map((m) => m.username).sort()).toEqual(['alice', 'bob', 'carol', 'dave', 'root']);
      expect(Object.fromEntries(infra.map((m) => [m.username, m.access_level]))).toEqual({
        dave: 30,
        carol: 40,
        root: 50,
        alice: 40,
        bob: 30,
      });
      expect(infra[0].username).toBe('dave');
      expect(await levels('list_all_project_members', { id: 'acme/web' })).toMatchObject({ carol: 20, dave: 10 });
      expect(await levels('list_project_members', { id: 'acme/platform/infra' })).toEqual({ dave: 30 });
      expect(
        await suite.data<Member>('get_project_member', { id: 'acme/platform/infra', user_id: id('dave') }),
      ).toMatchObject({ access_level: 30 });
      expect(
        await levels('list_all_project_members', {
          id: 'acme/platform/infra',
          query: 'car',
          user_ids: [id('carol'), id('dave')],
        }),
      ).toEqual({ carol: 40 });
      expect(
        await levels('list_all_group_members', { id: 'acme/platform', query: 'o', user_ids: [id('root'), id('bob')] }),
      ).toEqual({ root: 50, bob: 30 });
    });

    it("reads one user's direct or inherited access", async () => {
      expect(
        await suite.data<Member>('get_inherited_project_member', { id: 'acme/web', user_id: id('alice') }),
      ).toMatchObject({ access_level: 40 });
      expect(
        await suite.data<Member>('get_inherited_group_member', { id: 'acme/platform', user_id: id('bob') }),
      ).toMatchObject({ access_level: 30 });
      const outsider = await suite.refusal('get_inherited_group_member', { id: 'acme', user_id: id('erin') });
      expect([outsider.status, outsider.serviceMessage]).toEqual([404, '404 Member Not Found']);
    });

    it('counts the owner of a personal project as its owner', async () => {
      expect(await levels('list_all_project_members', { id: 'bob/scratchpad' }, 'developer')).toEqual({ bob: 50 });
      expect(await levels('list_project_members', { id: 'bob/scratchpad' }, 'developer')).toEqual({});
    });
  });

  describe('adding, changing and removing', () => {
    it('adds a member with an expiry date, changes the level keeping the expiry, and removes them', async () => {
      const until = inFuture(30);
      const added = await suite.call('add_project_member', {
        id: 'acme/web',
        user_id: id('erin'),
        access_level: 20,
        expires_at: until,
      });
      expect(added.status).toBe(201);
      expect(added.data).toMatchObject({ username: 'erin', access_level: 20, expires_at: until });
      // erin now sees what reporters of acme/web see, and the list of her projects has it.
      expect(await levels('list_project_members', { id: 'acme/web' }, 'outsider')).toEqual({ erin: 20 });
      const raised = await suite.data<Member>('update_project_member', {
        id: 'acme/web',
        user_id: id('erin'),
        access_level: 30,
      });
      expect(raised).toMatchObject({ access_level: 30, expires_at: until });
      const later = inFuture(60);
      expect(
        await suite.data<Member>('update_project_member', {
          id: 'acme/web',
          user_id: id('erin'),
          access_level: 30,
          expires_at: later,
        }),
      ).toMatchObject({ expires_at: later });
      const removed = await suite.call('remove_project_member', { id: 'acme/web', user_id: id('erin') });
      expect(removed.status).toBe(204);
      expect((await suite.refusal('get_project_member', { id: 'acme/web', user_id: id('erin') })).status).toBe(404);
      expect((await suite.refusal('remove_project_member', { id: 'acme/web', user_id: id('erin') })).status).toBe(404);
    });

    it('lets only owners make, change or remove owners of a group, and never its last owner', async () => {
      const owner = { id: 'acme', user_id: id('erin'), access_level: 50 };
      expect((await suite.refusal('add_group_member', owner)).status).toBe(403);
      expect(
        await suite.data<Member>('add_group_member', { ...owner, expires_at: inFuture(10) }, 'admin'),
      ).toMatchObject({ access_level: 50 });
      // alice (maintainer) may neither demote nor remove an owner.
      expect(
        (await suite.refusal('update_group_member', { id: 'acme', user_id: id('erin'), access_level: 10 })).status,
      ).toBe(403);
      expect((await suite.refusal('remove_group_member', { id: 'acme', user_id: id('erin') })).status).toBe(403);
      expect(
        (
          await suite.data<Member>(
            'update_group_member',
            { id: 'acme', user_id: id('erin'), access_level: 10, expires_at: inFuture(5) },
            'admin',
          )
        ).access_level,
      ).toBe(10);
      expect(
        (await suite.call('remove_group_member', { id: 'acme', user_id: id('erin') }, { as: 'admin' })).status,
      ).toBe(204);
      // root is acme's only owner.
      const last = await suite.refusal('remove_group_member', { id: 'acme', user_id: id('root') }, 'admin');
      expect([last.status, last.serviceMessage]).toEqual([
        403,
        '403 Forbidden - the last owner cannot be removed or demoted',
      ]);
      expect(
        (await suite.refusal('update_group_member', { id: 'acme', user_id: id('root'), access_level: 40 }, 'admin'))
          .status,
      ).toBe(403);
      expect(await levels('list_group_members', { id: 'acme', user_ids: [id('root')] })).toEqual({ root: 50 });
    });

    it('refuses developers, anonymous callers, duplicates, unknown users and past expiry dates', async () => {
      const input = { id: 'acme/web', user_id: id('erin'), access_level: 10 };
      expect((await suite.refusal('add_project_member', input, 'developer')).status).toBe(403);
      expect((await suite.refusal('add_project_member', input, 'anonymous')).status).toBe(401);
      expect(
        (await suite.refusal('remove_group_member', { id: 'acme', user_id: id('dave') }, 'developer')).status,
      ).toBe(403);
      const duplicate = await suite.refusal('add_group_member', { id: 'acme', user_id: id('bob'), access_level: 10 });
      expect([duplicate.status, duplicate.serviceMessage]).toEqual([409, 'Member already exists']);
      const nobody = await suite.refusal('add_group_member', { id: 'acme', user_id: 99_999, access_level: 10 });
      expect([nobody.status, nobody.serviceMessage]).toEqual([404, '404 User Not Found']);
      const past = await suite.refusal('add_project_member', { ...input, expires_at: '2020-01-01' });
      expect(past.status).toBe(400);
      expect(past.message).toContain('cannot be a date in the past');
      expect(
        (await suite.refusal('update_project_member', { id: 'acme/web', user_id: 99_999, access_level: 10 })).status,
      ).toBe(404);
    });

    it('refuses a level below the one inherited from an ancestor group, naming it (POST and PUT, projects and groups)', async () => {
      const below = (e: { status: number; fieldErrors?: unknown }) => [e.status, e.fieldErrors];
      // bob is a developer of acme.
      const add = await suite.refusal('add_project_member', { id: 'acme/web', user_id: id('bob'), access_level: 20 });
      expect(below(add)).toEqual([
        400,
        { access_level: ['should be greater than or equal to Developer inherited membership from group Acme'] },
      ]);
      expect((await suite.refusal('get_project_member', { id: 'acme/web', user_id: id('bob') })).status).toBe(404);
      const sub = await suite.refusal(
        'add_group_member',
        { id: 'acme/platform', user_id: id('bob'), access_level: 10 },
        'admin',
      );
      expect(below(sub)).toEqual([
        400,
        { access_level: ['should be greater than or equal to Developer inherited membership from group Acme'] },
      ]);
      // Equal or higher is taken; lowering it again below the inherited level is not.
      expect(
        await suite.data<Member>('add_project_member', { id: 'acme/web', user_id: id('bob'), access_level: 30 }),
      ).toMatchObject({ access_level: 30 });
      const lower = await suite.refusal('update_project_member', {
        id: 'acme/web',
        user_id: id('bob'),
        access_level: 10,
      });
      expect(below(lower)).toEqual([
        400,
        { access_level: ['should be greater than or equal to Developer inherited membership from group Acme'] },
      ]);
      expect(await suite.data<Member>('get_project_member', { id: 'acme/web', user_id: id('bob') })).toMatchObject({
        access_level: 30,
      });
      expect((await suite.call('remove_project_member', { id: 'acme/web', user_id: id('bob') })).status).toBe(204);
    });

    it('reports the highest level in the inherited list and read, even when a direct one is lower', async () => {
      const infra = 'acme/platform/infra';
      await suite.call(
        'add_group_member',
        { id: 'acme/platform', user_id: id('erin'), access_level: 20 },
        { as: 'admin' },
      );
      await suite.call('add_project_member', { id: infra, user_id: id('erin'), access_level: 30 }, { as: 'admin' });
      expect((await levels('list_all_project_members', { id: infra })).erin).toBe(30);
      // The group level rises past the project's own: the project's lower one is no longer what counts.
      await suite.call(
        'update_group_member',
        { id: 'acme/platform', user_id: id('erin'), access_level: 40 },
        { as: 'admin' },
      );
      expect((await levels('list_all_project_members', { id: infra })).erin).toBe(40);
      expect(
        await suite.data<Member>('get_inherited_project_member', { id: infra, user_id: id('erin') }),
      ).toMatchObject({
        access_level: 40,
      });
      expect(await suite.data<Member>('get_project_member', { id: infra, user_id: id('erin') })).toMatchObject({
        access_level: 30,
      });
      await suite.call('remove_project_member', { id: infra, user_id: id('erin') }, { as: 'admin' });
      await suite.call('remove_group_member', { id: 'acme/platform', user_id: id('erin') }, { as: 'admin' });
    });

    it('answers owner on a project, and a level that does not exist, over HTTP as the service does', async () => {
      const path = `/projects/${encodeURIComponent('acme/web')}/members`;
      const owner = await api(suite.sandbox, 'POST', path, {
        as: 'admin',
        json: { user_id: id('erin'), access_level: 50 },
      });
      expect([owner.status, owner.data]).toEqual([400, { message: { access_level: ['is not included in the list'] } }]);
      const odd = await api(suite.sandbox, 'POST', path, {
        as: 'admin',
        json: { user_id: id('erin'), access_level: 35 },
      });
      expect([odd.status, odd.data]).toEqual([400, { error: 'access_level does not have a valid value' }]);
      const missing = await api(suite.sandbox, 'PUT', `${path}/${id('erin')}`, { as: 'admin', json: {} });
      expect([missing.status, missing.data]).toEqual([400, { error: 'access_level is missing' }]);
    });
  });

  describe('bad input', () => {
    suite.badInputCases([
      ['a user id that is not a whole number', 'get_group_member', { id: 'acme', user_id: 1.5 }, 'user_id'],
      [
        'user_ids that are not whole numbers',
        'list_all_project_members',
        { id: 'acme/web', user_ids: [1.5] },
        'user_ids.0',
      ],
      ['owner on a project', 'add_project_member', { id: 'acme/web', user_id: 1, access_level: 50 }, 'access_level'],
    ]);
  });

  describe('paging', () => {
    suite.pagingCase('list_group_members', { id: 'acme' });
    suite.pagingCase('list_all_group_members', { id: 'acme/platform' });
    suite.pagingCase('list_all_project_members', { id: 'acme/web' });
    it('pages through list_project_members', async () => {
      await suite.call(
        'add_project_member',
        { id: 'acme/handbook', user_id: id('erin'), access_level: 10 },
        { as: 'admin' },
      );
      await suite.call(
        'add_project_member',
        { id: 'acme/handbook', user_id: id('dave'), access_level: 20 },
        { as: 'admin' },
      );
      const first = await suite.call('list_project_members', { id: 'acme/handbook', per_page: 1, page: 2 });
      expect((first.data as Member[]).map((m) => m.username)).toEqual(['dave']);
      const both = await suite.call('list_project_members', {
        id: 'acme/handbook',
        per_page: 1,
        all_pages: true,
        max_items: 2,
      });
      expect((both.data as Member[]).map((m) => m.username)).toEqual(['erin', 'dave']);
      expect(
        await levels('list_project_members', { id: 'acme/handbook', query: 'dav', user_ids: [id('dave'), id('erin')] }),
      ).toEqual({ dave: 20 });
    });
  });

  suite.badInputCases([
    ['owner on a project', 'add_project_member', { id: 'acme/web', user_id: 1, access_level: 50 }, 'access_level'],
    [
      'a level that does not exist',
      'update_group_member',
      { id: 'acme', user_id: 1, access_level: 35 },
      'access_level',
    ],
    [
      'an expiry that is not a date',
      'add_group_member',
      { id: 'acme', user_id: 1, access_level: 10, expires_at: 'tomorrow' },
      'expires_at',
    ],
    ['a member without a user', 'remove_group_member', { id: 'acme' }, 'user_id'],
  ]);
});

suite.coverageCase();
