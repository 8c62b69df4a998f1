// Contract: groups — the group and subgroup lists per caller (all_available, owned, min_access_level, statistics and
// custom attributes for administrators), a group's projects with every filter, details capped at 100 projects,
// and creation with its refusals.
import { beforeAll, describe, expect, it } from 'vitest';
import { api } from '../unit/sandbox/sandbox-client.js';
import { contractSuite, type Role } from './harness.js';

const suite = contractSuite('groups');

type Group = Record<string, unknown> & { id: number; full_path: string };
type Project = Record<string, unknown> & { id: number; path_with_namespace: string };

const paths = async (name: string, input: Record<string, unknown>, as: Role = 'maintainer') =>
  (await suite.data<Group[]>(name, { per_page: 100, ...input }, as)).map((g) => g.full_path);
// The group lists are checked on the groups the sandbox was seeded with: other tests add groups, before or after.
let seededGroups = new Set<string>();
beforeAll(() => {
  seededGroups = new Set(suite.sandbox.store.groups.map((g) => g.full_path));
});
const seededPaths = async (name: string, input: Record<string, unknown>, as: Role = 'maintainer') =>
  (await paths(name, input, as)).filter((path) => seededGroups.has(path));
const projectPaths = async (input: Record<string, unknown>, as: Role = 'maintainer') =>
  (await suite.data<Project[]>('list_group_projects', { per_page: 100, ...input }, as)).map(
    (p) => p.path_with_namespace,
  );

describe.shuffle('groups, in any order', () => {
  describe('list_groups', () => {
    it('shows anonymous callers public groups, members their own, and administrators every group by default', async () => {
      expect(await seededPaths('list_groups', {}, 'anonymous')).toEqual(['acme']);
      expect(await seededPaths('list_groups', {}, 'maintainer')).toEqual(['acme', 'acme/platform']);
      // erin belongs to nothing: her own list is empty until she asks for everything she can see.
      expect(await seededPaths('list_groups', {}, 'outsider')).toEqual([]);
      expect(await seededPaths('list_groups', { all_available: true }, 'outsider')).toEqual(['acme']);
      expect(await seededPaths('list_groups', {}, 'admin')).toEqual(['acme', 'acme/platform']);
      expect(await seededPaths('list_groups', { all_available: false }, 'admin')).toEqual(['acme', 'acme/platform']);
    });

    it('lets owned and min_access_level take precedence over all_available', async () => {
      expect(await seededPaths('list_groups', { owned: true, all_available: true }, 'maintainer')).toEqual([]);
      expect(await seededPaths('list_groups', { owned: true }, 'admin')).toEqual(['acme', 'acme/platform']);
      expect(await seededPaths('list_groups', { min_access_level: 30, all_available: true }, 'developer')).toEqual([
        'acme',
        'acme/platform',
      ]);
      expect(await seededPaths('list_groups', { min_access_level: 30, all_available: true }, 'reporter')).toEqual([]);
    });

    it('searches, skips and orders', async () => {
      const acme = suite.sandbox.store.findGroup('acme')!;
      expect(await seededPaths('list_groups', { search: 'PLAT' })).toEqual(['acme/platform']);
      expect(await seededPaths('list_groups', { skip_groups: [acme.id] })).toEqual(['acme/platform']);
      expect(await seededPaths('list_groups', { order_by: 'id', sort: 'desc' })).toEqual(['acme/platform', 'acme']);
      expect(await seededPaths('list_groups', { order_by: 'path', sort: 'asc' })).toEqual(['acme', 'acme/platform']);
    });

    it("gives statistics and custom attributes to administrators only, and ignores others' attribute filters", async () => {
      const acme = suite.sandbox.store.findGroup('acme')!;
      acme.custom_attributes.tier = 'gold';
      const [stats] = await suite.data<Group[]>(
        'list_groups',
        { statistics: true, with_custom_attributes: true, custom_attributes: { tier: 'gold' } },
        'admin',
      );
      expect(stats.full_path).toBe('acme');
      expect(stats.statistics).toMatchObject({
        storage_size: expect.any(Number),
        repository_size: expect.any(Number),
        packages_size: 0,
      });
      expect((stats.statistics as { storage_size: number }).storage_size).toBeGreaterThan(0);
      expect(stats.custom_attributes).toEqual([{ key: 'tier', value: 'gold' }]);
      const mine = await suite.data<Group[]>('list_groups', {
        statistics: true,
        with_custom_attributes: true,
        custom_attributes: { tier: 'none' },
      });
      expect(mine.map((g) => g.full_path).filter((path) => seededGroups.has(path))).toEqual(['acme', 'acme/platform']);
      for (const group of mine) expect(Object.keys(group)).not.toContain('statistics');
      for (const group of mine) expect(Object.keys(group)).not.toContain('custom_attributes');
    });

    it('reads the group fields the spec lists', async () => {
      const [acme] = await suite.data<Group[]>('list_groups', { search: 'acme', order_by: 'id' }, 'anonymous');
      expect(acme).toMatchObject({
        name: 'Acme',
        path: 'acme',
        full_name: 'Acme',
        full_path: 'acme',
        visibility: 'public',
        parent_id: null,
        project_creation_level: 'developer',
        two_factor_grace_period: 48,
        lfs_enabled: true,
        web_url: expect.stringMatching(/\/groups\/acme$/),
      });
    });

    suite.pagingCase('list_groups', { all_available: true }, { as: 'admin' });
  });

  describe('list_subgroups', () => {
    it('lists direct subgroups the caller may see, and 404 for a parent they may not', async () => {
      expect(await seededPaths('list_subgroups', { id: 'acme' })).toEqual(['acme/platform']);
      expect(await seededPaths('list_subgroups', { id: 'acme' }, 'anonymous')).toEqual([]);
      expect(await seededPaths('list_subgroups', { id: 'acme', all_available: true }, 'outsider')).toEqual([]);
      expect(await seededPaths('list_subgroups', { id: 'acme/platform' })).toEqual([]);
      const error = await suite.refusal('list_subgroups', { id: 'acme/platform' }, 'outsider');
      expect([error.status, error.serviceMessage]).toEqual([404, '404 Group Not Found']);
    });

    it('takes every filter of the group list', async () => {
      const store = suite.sandbox.store;
      const acme = store.findGroup('acme')!;
      const docs = store.addGroup({ name: 'Docs', path: 'docs', parent: acme, visibility: 'public' });
      const deep = store.addGroup({
        name: 'Deep',
        path: 'deep',
        parent: store.findGroup('acme/platform')!,
        visibility: 'public',
      });
      // Other tests may add subgroups to acme: what is checked is where these two are.
      const anonymous = await paths('list_subgroups', { id: 'acme' }, 'anonymous');
      expect(anonymous).toContain('acme/docs');
      expect(anonymous).not.toContain('acme/platform');
      const byName = await paths('list_subgroups', { id: 'acme', order_by: 'name', sort: 'desc' });
      expect(byName.filter((path) => ['acme/platform', 'acme/docs'].includes(path))).toEqual([
        'acme/platform',
        'acme/docs',
      ]);
      // Only direct children: acme/platform/deep is not acme's subgroup.
      expect(await paths('list_subgroups', { id: 'acme' }, 'admin')).not.toContain(deep.full_path);
      const everything = {
        id: acme.id,
        skip_groups: [docs.id],
        all_available: true,
        search: 'doc',
        order_by: 'path',
        sort: 'asc',
        statistics: true,
        with_custom_attributes: true,
        owned: false,
        min_access_level: 10,
        custom_attributes: {},
      };
      expect(await paths('list_subgroups', everything, 'admin')).toEqual([]);
      expect(await seededPaths('list_subgroups', { ...everything, skip_groups: [], search: 'a' }, 'admin')).toEqual([
        'acme/platform',
      ]);
    });

    suite.pagingCase(
      'list_subgroups',
      async () => {
        // acme has one subgroup as seeded: a second of the case's own to page to.
        const store = suite.sandbox.store;
        const path = suite.freshName('paged');
        store.addGroup({ name: path, path, parent: store.findGroup('acme')!, visibility: 'public' });
        return { id: 'acme' };
      },
      { as: 'admin' },
    );
  });

  describe('list_group_projects', () => {
    it("lists the group's own projects newest first, its subgroups' with include_subgroups, per caller", async () => {
      expect(await projectPaths({ id: 'acme' })).toEqual(
        ['acme/web', 'acme/handbook'].sort((a, b) => {
          const created = (p: string) => suite.sandbox.store.findProject(p)!.created_at.getTime();
          return created(b) - created(a);
        }),
      );
      expect((await projectPaths({ id: 'acme', include_subgroups: true })).sort()).toEqual([
        'acme/handbook',
        'acme/platform/infra',
        'acme/platform/payments-api',
        'acme/web',
      ]);
      expect((await projectPaths({ id: 'acme', include_subgroups: true }, 'outsider')).sort()).toEqual([
        'acme/handbook',
        'acme/platform/infra',
        'acme/web',
      ]);
      const anonymous = await suite.data<Project[]>(
        'list_group_projects',
        { id: 'acme', include_subgroups: true },
        'anonymous',
      );
      expect(anonymous.map((p) => p.path_with_namespace).sort()).toEqual(['acme/handbook', 'acme/web']);
      // Without a token, the simple form.
      for (const project of anonymous) expect(Object.keys(project)).not.toContain('visibility');
      expect((await suite.refusal('list_group_projects', { id: 'acme/platform' }, 'anonymous')).status).toBe(404);
    });

    it.each([
      ['archived', { archived: true }, ['acme/handbook']],
      ['visibility', { visibility: 'internal' }, ['acme/platform/infra']],
      ['search', { search: 'payments' }, ['acme/platform/payments-api']],
      [
        'order_by name asc',
        { order_by: 'name', sort: 'asc' },
        ['acme/handbook', 'acme/platform/infra', 'acme/platform/payments-api', 'acme/web'],
      ],
      [
        'order_by path desc',
        { order_by: 'path', sort: 'desc' },
        ['acme/web', 'acme/platform/payments-api', 'acme/platform/infra', 'acme/handbook'],
      ],
      ['owned (alice owns nothing)', { owned: true }, []],
      ['starred', { starred: true, order_by: 'path', sort: 'asc' }, ['acme/platform/payments-api', 'acme/web']],
      ['with_issues_enabled', { with_issues_enabled: true, order_by: 'id', sort: 'asc' }, null],
      [
        'with_merge_requests_enabled',
        { with_merge_requests_enabled: true, order_by: 'path', sort: 'asc' },
        ['acme/handbook', 'acme/platform/infra', 'acme/platform/payments-api', 'acme/web'],
      ],
      ['min_access_level 50', { min_access_level: 50 }, []],
      ['with_security_reports (none here)', { with_security_reports: true }, []],
      [
        'with_shared',
        { with_shared: false, order_by: 'path', sort: 'asc' },
        ['acme/handbook', 'acme/platform/infra', 'acme/platform/payments-api', 'acme/web'],
      ],
    ] as const)('filters by %s', async (_what, filter, expected) => {
      const got = await projectPaths({ id: 'acme', include_subgroups: true, ...filter });
      if (expected !== null) expect(got).toEqual(expected);
      else {
        expect(got.length).toBeGreaterThan(0);
        expect(got).not.toContain('acme/handbook');
      }
    });

    it('gives the simple form with simple=true, and custom attributes to administrators', async () => {
      const simple = await suite.data<Project[]>('list_group_projects', { id: 'acme', simple: true });
      expect(simple.length).toBe(2);
      for (const project of simple) expect(Object.keys(project)).not.toContain('namespace');
      const full = await suite.data<Project[]>(
        'list_group_projects',
        { id: 'acme', with_custom_attributes: true },
        'admin',
      );
      expect(full[0]).toHaveProperty('custom_attributes');
      expect(full[0]).toHaveProperty('namespace');
    });

    suite.pagingCase('list_group_projects', { id: 'acme', include_subgroups: true });
  });

  describe('get_group', () => {
    it('reads a group with its projects, and its runners token only for owners', async () => {
      const acme = await suite.data<Group & { projects: Project[]; shared_projects: unknown[] }>('get_group', {
        id: 'acme',
      });
      expect(acme.full_path).toBe('acme');
      expect(acme.projects.map((p) => p.path_with_namespace).sort()).toEqual(['acme/handbook', 'acme/web']);
      expect(acme.shared_projects).toEqual([]);
      expect(acme).not.toHaveProperty('runners_token');
      expect(await suite.data<Group>('get_group', { id: 'acme' }, 'admin')).toHaveProperty('runners_token');
      const bare = await suite.data<Group>(
        'get_group',
        { id: 'acme', with_projects: false, with_custom_attributes: true },
        'admin',
      );
      expect(bare).not.toHaveProperty('projects');
      expect(bare).toHaveProperty('custom_attributes');
      const hidden = await suite.refusal('get_group', { id: 'acme/platform' }, 'outsider');
      expect([hidden.status, hidden.serviceMessage]).toEqual([404, '404 Group Not Found']);
      expect((await suite.refusal('get_group', { id: 'no/such/group' })).status).toBe(404);
    });

    it('lists at most 100 projects', async () => {
      const store = suite.sandbox.store;
      const big = store.addGroup({ name: 'Big', path: 'big', visibility: 'public' });
      const template = store.findProject('acme/web')!;
      const creator = store.findUser('alice')!.id;
      for (let i = 0; i < 101; i++) {
        // Every project shares acme/web's repository: only the count matters here.
        await store.addProject(
          {
            name: `p${i}`,
            path: `p${i}`,
            namespace: { kind: 'group', group: big },
            creator_id: creator,
            visibility: 'public',
          },
          async () => template.repo,
        );
      }
      const details = await suite.data<{ projects: Project[] }>('get_group', { id: 'big' }, 'anonymous');
      expect(details.projects).toHaveLength(100);
      expect(new Set(details.projects.map((p) => p.id)).size).toBe(100);
    });
  });

  describe('create_group', () => {
    it('creates a group with every setting; its creator owns it', async () => {
      const input = {
        name: 'Erin Lab',
        path: 'erin-lab',
        description: 'Experiments.',
        visibility: 'internal',
        share_with_group_lock: true,
        require_two_factor_authentication: true,
        two_factor_grace_period: 24,
        project_creation_level: 'maintainer',
        auto_devops_enabled: false,
      };
      const result = await suite.call('create_group', input, { as: 'outsider' });
      expect(result.status).toBe(201);
      expect(result.data).toMatchObject({ ...input, full_path: 'erin-lab', parent_id: null });
      expect(await paths('list_groups', { owned: true }, 'outsider')).toEqual(['erin-lab']);
      // Internal: every signed-in user sees it with all_available, anonymous callers do not.
      expect(await paths('list_groups', { all_available: true, search: 'erin' }, 'guest')).toEqual(['erin-lab']);
      expect(await paths('list_groups', { search: 'erin' }, 'anonymous')).toEqual([]);
    });

    it('refuses a taken or malformed path, anonymous callers and users who may not create groups', async () => {
      const taken = await suite.refusal('create_group', { name: 'Acme again', path: 'ACME' }, 'admin');
      expect(taken.status).toBe(400);
      expect(taken.message).toContain('has already been taken');
      expect((await suite.refusal('create_group', { name: 'x', path: '-x' }, 'admin')).status).toBe(400);
      expect((await suite.refusal('create_group', { name: 'x', path: 'x' }, 'anonymous')).status).toBe(401);
      const carol = suite.sandbox.store.findUser('carol')!;
      carol.can_create_group = false;
      try {
        expect((await suite.refusal('create_group', { name: 'x', path: 'x' }, 'reporter')).status).toBe(403);
      } finally {
        carol.can_create_group = true;
      }
      const missing = await api(suite.sandbox, 'POST', '/groups', { json: { name: 'x' }, as: 'admin' });
      expect([missing.status, missing.data]).toEqual([400, { error: 'path is missing' }]);
      const bad = await api(suite.sandbox, 'POST', '/groups', {
        json: { name: 'x', path: 'y', visibility: 'secret' },
        as: 'admin',
      });
      expect([bad.status, bad.data]).toEqual([400, { error: 'visibility does not have a valid value' }]);
    });
  });

  suite.badInputCases([
    ['an unknown group order', 'list_groups', { order_by: 'size' }, 'order_by'],
    ['a group without a path', 'create_group', { name: 'x' }, 'path'],
    ['an unknown project visibility', 'list_group_projects', { id: 'acme', visibility: 'secret' }, 'visibility'],
    ['skip_groups that are not whole numbers', 'list_groups', { skip_groups: [1.5] }, 'skip_groups.0'],
    [
      'a grace period that is not a whole number of hours',
      'create_group',
      { name: 'x', path: 'x', two_factor_grace_period: 1.5 },
      'two_factor_grace_period',
    ],
  ]);
});

suite.coverageCase();
