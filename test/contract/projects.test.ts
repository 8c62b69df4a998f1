// Contract: list_projects and list_user_projects against the sandbox — every order, offset pages capped at 10,000
// records and keyset pages beyond, filters, visibility and form per caller, and bad input.
import { describe, expect, it, onTestFinished } from 'vitest';
import { ApiError } from '../../src/http/errors.js';
import { expectRefusal } from './builders.js';
import { contractSuite } from './harness.js';

const suite = contractSuite('projects');

type Project = Record<string, unknown> & { id: number; path_with_namespace: string };

const ids = (data: unknown) => (data as Project[]).map((p) => p.id);

describe.shuffle('projects, in any order', () => {
  describe('list_projects', () => {
    it('reads every project across keyset pages with all_pages, in ID order', async () => {
      const everything = suite.sandbox.store.projects.map((p) => p.id).sort((a, b) => b - a);
      const before = suite.requests().length;
      const result = await suite.call(
        'list_projects',
        { per_page: 2, all_pages: true, pagination: 'keyset', order_by: 'id' },
        { as: 'admin' },
      );
      expect(result.status).toBe(200);
      expect(ids(result.data)).toEqual(everything);
      expect(result.page).toMatchObject({ has_more: false, pages_fetched: Math.ceil(everything.length / 2) });
      const sent = suite.requests().slice(before);
      expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual(sent.map(() => 'GET /projects'));
      expect(sent.length).toBe(Math.ceil(everything.length / 2));
    });

    it('hands back the keyset cursor of the next page when reading one page', async () => {
      const keyset = { pagination: 'keyset', order_by: 'id' };
      const first = await suite.call('list_projects', { per_page: 2, sort: 'asc', ...keyset }, { as: 'admin' });
      expect(first.data).toHaveLength(2);
      expect(first.page?.has_more).toBe(true);
      expect(first.page?.next_page).toBeUndefined();
      const cursor = new URL(first.page?.next_url ?? '');
      expect(cursor.searchParams.get('pagination')).toBe('keyset');
      expect(cursor.searchParams.get('id_after')).toBe(String(ids(first.data)[1]));
      // The cursor is also an input: id_after continues where the first page ended.
      const second = await suite.call(
        'list_projects',
        { per_page: 2, sort: 'asc', id_after: ids(first.data)[1], ...keyset },
        { as: 'admin' },
      );
      expect(Math.min(...ids(second.data))).toBeGreaterThan(Math.max(...ids(first.data)));
    });

    it('shows an outsider only public and internal projects, and none with membership', async () => {
      const outsider = (await suite.call('list_projects', { all_pages: true }, { as: 'outsider' })).data as Project[];
      const paths = outsider.map((p) => p.path_with_namespace);
      expect(paths).toContain('acme/web');
      expect(paths).toContain('acme/platform/infra');
      expect(paths).not.toContain('acme/platform/payments-api');
      // erin is a member of nothing.
      const mine = (await suite.call('list_projects', { membership: true, all_pages: true }, { as: 'outsider' }))
        .data as Project[];
      expect(mine).toEqual([]);
      const member = (await suite.call('list_projects', { membership: true, all_pages: true }, { as: 'developer' }))
        .data as Project[];
      expect(member.map((p) => p.path_with_namespace)).toContain('acme/platform/payments-api');
    });

    it('filters by search, visibility and archived', async () => {
      const search = (await suite.call('list_projects', { search: 'payments' }, { as: 'developer' })).data as Project[];
      expect(search.map((p) => p.path_with_namespace)).toEqual(['acme/platform/payments-api']);

      // The full form carries visibility, so the filter's effect can be seen (the developer also sees private ones).
      const publicOnly = (
        await suite.call('list_projects', { visibility: 'public', all_pages: true }, { as: 'developer' })
      ).data as Project[];
      expect(publicOnly.map((p) => p.path_with_namespace).sort()).toEqual(['acme/handbook', 'acme/web']);
      expect(publicOnly.map((p) => p.visibility)).toEqual(['public', 'public']);
      const simple = (await suite.call('list_projects', { visibility: 'public', simple: true }, { as: 'developer' }))
        .data as Project[];
      expect(simple.map((p) => p.path_with_namespace).sort()).toEqual(['acme/handbook', 'acme/web']);
      for (const project of simple) expect(project).not.toHaveProperty('visibility');

      const archived = (await suite.call('list_projects', { archived: true }, { as: 'developer' })).data as Project[];
      expect(archived.map((p) => p.path_with_namespace)).toEqual(['acme/handbook']);
      const active = (await suite.call('list_projects', { archived: false, all_pages: true }, { as: 'developer' }))
        .data as Project[];
      expect(active.length).toBeGreaterThan(1);
      expect(active.map((p) => p.path_with_namespace)).not.toContain('acme/handbook');
    });

    it('filters by ownership, access level, stars and language', async () => {
      // bob is a developer (30) of acme and owns only his personal project.
      const owned = (await suite.call('list_projects', { owned: true }, { as: 'developer' })).data as Project[];
      expect(owned.map((p) => p.path_with_namespace)).toEqual(['bob/scratchpad']);
      const asOwner = (await suite.call('list_projects', { min_access_level: 50 }, { as: 'developer' }))
        .data as Project[];
      expect(asOwner.map((p) => p.path_with_namespace)).toEqual(['bob/scratchpad']);
      const asDeveloper = (
        await suite.call('list_projects', { min_access_level: 30, all_pages: true }, { as: 'developer' })
      ).data as Project[];
      expect(asDeveloper.map((p) => p.path_with_namespace)).toContain('acme/web');

      const starred = (await suite.call('list_projects', { starred: true }, { as: 'developer' })).data as Project[];
      expect(starred.map((p) => p.path_with_namespace)).toEqual(['acme/web']);

      const goCode = (await suite.call('list_projects', { with_programming_language: 'Go' }, { as: 'admin' }))
        .data as Project[];
      expect(goCode.map((p) => p.path_with_namespace)).toEqual(['acme/platform/payments-api']);
    });

    it('filters by custom attributes and ID bounds', async () => {
      const team = (await suite.call('list_projects', { custom_attributes: { team: 'storefront' } }, { as: 'admin' }))
        .data as Project[];
      expect(team.map((p) => p.path_with_namespace)).toEqual(['acme/web']);

      const all = ids((await suite.call('list_projects', { all_pages: true }, { as: 'admin' })).data);
      const highest = Math.max(...all);
      const below = ids(
        (await suite.call('list_projects', { id_before: highest, all_pages: true }, { as: 'admin' })).data,
      );
      expect(below.sort((a, b) => a - b)).toEqual(all.filter((id) => id !== highest).sort((a, b) => a - b));
    });

    it('sends the licence-tier checksum filters (the sandbox never fails a checksum)', async () => {
      const everything = (await suite.call('list_projects', {}, { as: 'admin' })).data as Project[];
      expect(everything.length).toBeGreaterThan(0);
      expect((await suite.call('list_projects', { wiki_checksum_failed: true }, { as: 'admin' })).data).toEqual([]);
      expect((await suite.call('list_projects', { repository_checksum_failed: true }, { as: 'admin' })).data).toEqual(
        [],
      );
    });

    it('filters by issues and merge requests enabled (acme/handbook has no issues, bob/scratchpad no merge requests)', async () => {
      const everything = (
        (await suite.call('list_projects', { all_pages: true }, { as: 'admin' })).data as Project[]
      ).map((p) => p.path_with_namespace);
      expect(everything).toEqual(expect.arrayContaining(['acme/handbook', 'bob/scratchpad']));

      // Each feature filter leaves out exactly the one seeded project with that feature turned off.
      for (const [feature, disabledIn] of [
        ['issues', 'acme/handbook'],
        ['merge_requests', 'bob/scratchpad'],
      ] as const) {
        const enabled = (
          await suite.call('list_projects', { [`with_${feature}_enabled`]: true, all_pages: true }, { as: 'admin' })
        ).data as Project[];
        expect(
          enabled.map((p) => p.path_with_namespace),
          feature,
        ).toEqual(everything.filter((path) => path !== disabledIn));
        for (const project of enabled) expect(project).toMatchObject({ [`${feature}_enabled`]: true });
      }
    });

    it('orders by ID, ascending or descending as asked', async () => {
      const byId = suite.sandbox.store.projects.map((p) => p.id).sort((a, b) => a - b);
      const asc = await suite.call('list_projects', { order_by: 'id', sort: 'asc', all_pages: true }, { as: 'admin' });
      expect(ids(asc.data)).toEqual(byId);
      const desc = await suite.call(
        'list_projects',
        { order_by: 'id', sort: 'desc', all_pages: true },
        { as: 'admin' },
      );
      expect(ids(desc.data)).toEqual([...byId].reverse());
      // Keyset pages need order_by=id sent (the service's default order, created_at, has no keyset pages: 405),
      // and the seeded projects were not created in ID order, so a fallback to that order would show as well.
      const byCreation = [...suite.sandbox.store.projects].sort(
        (a, b) => b.created_at.getTime() - a.created_at.getTime(),
      );
      expect(byCreation.map((p) => p.id)).not.toEqual([...byId].reverse());
    });

    it('returns the full form to a signed-in caller and the simple form to an anonymous one', async () => {
      const full = (await suite.call('list_projects', { search: 'web' }, { as: 'developer' })).data as Project[];
      expect(full[0]).toHaveProperty('visibility');
      expect(full[0]).toHaveProperty('permissions');
      expect(full[0]).not.toHaveProperty('statistics');
      expect(full[0]).not.toHaveProperty('custom_attributes');
      const anonymous = (await suite.call('list_projects', { search: 'web' }, { as: 'anonymous' })).data as Project[];
      expect(anonymous[0]).toHaveProperty('path_with_namespace', 'acme/web');
      expect(anonymous[0]).not.toHaveProperty('permissions');
    });

    it('adds statistics and custom attributes when asked', async () => {
      const [web] = (await suite.call('list_projects', { search: 'web', statistics: true }, { as: 'developer' }))
        .data as Project[];
      expect(web.statistics).toMatchObject({ commit_count: expect.any(Number), repository_size: expect.any(Number) });
      const [attributed] = (
        await suite.call('list_projects', { search: 'web', with_custom_attributes: true }, { as: 'admin' })
      ).data as Project[];
      expect(attributed.custom_attributes).toContainEqual({ key: 'team', value: 'storefront' });
    });
  });

  describe('orders and pages', () => {
    const byCreation = () =>
      [...suite.sandbox.store.projects].sort((a, b) => b.created_at.getTime() - a.created_at.getTime() || b.id - a.id);

    it('orders newest first by default, and by every order the spec lists', async () => {
      expect(ids((await suite.call('list_projects', { all_pages: true }, { as: 'admin' })).data)).toEqual(
        byCreation().map((p) => p.id),
      );
      const byName = [...suite.sandbox.store.projects].sort((a, b) =>
        a.name.toLowerCase().localeCompare(b.name.toLowerCase()),
      );
      expect(
        ids(
          (await suite.call('list_projects', { order_by: 'name', sort: 'asc', all_pages: true }, { as: 'admin' })).data,
        ),
      ).toEqual(byName.map((p) => p.id));
      for (const order_by of ['path', 'created_at', 'updated_at', 'last_activity_at'] as const) {
        const got = (await suite.call('list_projects', { order_by, all_pages: true }, { as: 'admin' }))
          .data as Project[];
        expect(got.length, order_by).toBe(suite.sandbox.store.projects.length);
      }
    });

    it("refuses offset pages past 10,000 records and keyset pages in any order but id, in the service's words", async () => {
      const deep = await suite
        .call('list_projects', { per_page: 100, page: 101 }, { as: 'admin' })
        .catch((e: unknown) => e);
      expect(deep).toBeInstanceOf(ApiError);
      expect((deep as ApiError).status).toBe(405);
      expect((deep as ApiError).serviceMessage).toContain('Remaining records can be retrieved using keyset pagination');
      const named = await suite
        .call('list_projects', { pagination: 'keyset', order_by: 'name' }, { as: 'admin' })
        .catch((e: unknown) => e);
      expect((named as ApiError).status).toBe(405);
      // The last page allowed is still served.
      expect((await suite.call('list_projects', { per_page: 100, page: 100 }, { as: 'admin' })).data).toEqual([]);
    });

    it("gives the owner (the creator of a group's project) and the runners token to every maintainer, inherited or not", async () => {
      const [asMaintainer] = (await suite.call('list_projects', { search: 'acme/web' }, { as: 'maintainer' }))
        .data as Project[];
      expect(asMaintainer.owner).toMatchObject({ id: suite.sandbox.store.findProject('acme/web')!.creator_id });
      // alice is maintainer through group acme only.
      expect(asMaintainer.runners_token).toEqual(expect.any(String));
      const [asDeveloper] = (await suite.call('list_projects', { search: 'acme/web' }, { as: 'developer' }))
        .data as Project[];
      expect(asDeveloper).not.toHaveProperty('runners_token');
    });

    suite.pagingCase('list_projects', {}, { as: 'admin' });
  });

  describe('list_user_projects', () => {
    const names = async (
      input: Record<string, unknown>,
      as: 'admin' | 'maintainer' | 'developer' | 'anonymous' = 'developer',
    ) => ((await suite.call('list_user_projects', input, { as })).data as Project[]).map((p) => p.path_with_namespace);

    it("lists the projects of one user's namespace, by ID or username, that the caller may see", async () => {
      const bob = suite.sandbox.store.findUser('bob')!;
      expect(await names({ user_id: 'bob' })).toEqual(['bob/scratchpad']);
      expect(await names({ user_id: bob.id }, 'admin')).toEqual(['bob/scratchpad']);
      // Private: not even a maintainer of acme sees it, nor anyone without a token.
      expect(await names({ user_id: 'bob' }, 'maintainer')).toEqual([]);
      expect(await names({ user_id: 'bob' }, 'anonymous')).toEqual([]);
      expect(await names({ user_id: 'alice' }, 'admin')).toEqual([]);
      const missing = await suite.call('list_user_projects', { user_id: 'nobody' }).catch((e: unknown) => e);
      expect([(missing as ApiError).status, (missing as ApiError).serviceMessage]).toEqual([404, '404 User Not Found']);
    });

    it('takes every filter of the project list', async () => {
      const every = {
        user_id: 'bob',
        search: 'scratch',
        archived: false,
        visibility: 'private',
        order_by: 'name',
        sort: 'asc',
        simple: false,
        owned: true,
        starred: false,
        with_custom_attributes: true,
        with_issues_enabled: true,
        with_merge_requests_enabled: false,
        min_access_level: 50,
        membership: true,
        statistics: true,
        with_programming_language: 'typescript',
        id_after: 0,
        id_before: 100_000,
        custom_attributes: {},
      };
      const [scratchpad] = (await suite.call('list_user_projects', every, { as: 'developer' })).data as Project[];
      expect(scratchpad).toMatchObject({ path_with_namespace: 'bob/scratchpad', statistics: expect.any(Object) });
      expect(await names({ ...every, with_programming_language: 'Go' })).toEqual([]);
      expect(await names({ ...every, with_merge_requests_enabled: true })).toEqual([]);
      expect(await names({ user_id: 'bob', simple: true })).toEqual(['bob/scratchpad']);
    });

    it("pages through a user's projects, by offset or keyset", async () => {
      const store = suite.sandbox.store;
      const bob = store.findUser('bob')!;
      const template = store.findProject('bob/scratchpad')!;
      // A second project sharing scratchpad's repository: only the count matters here. It goes again when the test
      // finishes: the other tests read bob's projects as seeded.
      const notes = await store.addProject(
        { name: 'Notes', path: 'notes', namespace: { kind: 'user', user: bob }, creator_id: bob.id },
        async () => template.repo,
      );
      onTestFinished(() => {
        store.projects.splice(store.projects.indexOf(notes), 1);
      });
      const offset = await suite.call(
        'list_user_projects',
        { user_id: 'bob', per_page: 1, all_pages: true },
        { as: 'developer' },
      );
      expect((offset.data as Project[]).map((p) => p.path_with_namespace)).toEqual(['bob/notes', 'bob/scratchpad']);
      const keyset = await suite.call(
        'list_user_projects',
        { user_id: 'bob', per_page: 1, pagination: 'keyset', order_by: 'id', sort: 'asc' },
        { as: 'developer' },
      );
      expect(keyset.page?.next_url).toMatch(/id_after=/);
      const all = await suite.call(
        'list_user_projects',
        { user_id: 'bob', per_page: 1, page: 2, max_items: 1, all_pages: true },
        { as: 'developer' },
      );
      expect((all.data as Project[]).map((p) => p.path_with_namespace)).toEqual(['bob/scratchpad']);
    });
  });

  describe('bad input', () => {
    suite.badInputCases([
      ['per_page 0', 'list_projects', { per_page: 0 }, 'per_page'],
      ['an order the service does not know', 'list_projects', { order_by: 'stars' }, 'order_by'],
      ['a pagination other than keyset', 'list_projects', { pagination: 'offset' }, 'pagination'],
      ['an access level that does not exist', 'list_projects', { min_access_level: 35 }, 'min_access_level'],
      ['a user list without its user', 'list_user_projects', {}, 'user_id'],
      ['a user id that is not a whole number', 'list_user_projects', { user_id: 1.5 }, 'user_id'],
      ['an id_after that is not a whole number', 'list_projects', { id_after: 1.5 }, 'id_after'],
      [
        'an id_before that is not a whole number',
        'list_user_projects',
        { user_id: 'bob', id_before: 2.5 },
        'id_before',
      ],
      ['a misspelt filter', 'list_projects', { serach: 'web' }, ''],
    ]);
  });

  describe('get_project (beyond the spec)', () => {
    it("reads one project in the full form, with default branch, URL and the caller's permissions", async () => {
      const project = (
        await suite.call('get_project', { id: 'acme/web', statistics: true, license: true }, { as: 'developer' })
      ).data as Record<string, any>;
      expect(project).toMatchObject({ path_with_namespace: 'acme/web', default_branch: 'main', visibility: 'public' });
      expect(project.web_url).toMatch(/\/acme\/web$/);
      expect(project.permissions.group_access).toMatchObject({ access_level: 30 });
      expect(project.statistics).toBeDefined();
      await expectRefusal(suite, 'get_project', { id: 'acme/platform/payments-api' }, 'outsider', [
        404,
        '404 Project Not Found',
      ]);
    });

    it('triages a project (composed of reads, get_project among them)', async () => {
      const result = await suite.call('triage_project', { id: 'acme/web' });
      expect((result.data as { default_branch: string }).default_branch).toBe('main');
    });
  });
});

suite.coverageCase();
