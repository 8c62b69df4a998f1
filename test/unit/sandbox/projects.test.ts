// GET /projects: visibility, simple and full forms, filters, ordering, and keyset pagination.
import { symlink, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../../../src/sandbox/server.js';
import { api, parseLink, type Role } from './sandbox-client.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());

async function paths(query: string, as: Role = 'developer'): Promise<string[]> {
  const answer = await api(sandbox, 'GET', `/projects${query}`, { as });
  expect(answer.status).toBe(200);
  return answer.data.map((p: { path_with_namespace: string }) => p.path_with_namespace);
}

describe('who sees what', () => {
  test('anonymous callers get only public projects, in the simple form', async () => {
    const answer = await api(sandbox, 'GET', '/projects?order_by=id&sort=asc', { as: 'anonymous' });
    expect(answer.data.map((p: { path_with_namespace: string }) => p.path_with_namespace)).toEqual([
      'acme/web',
      'acme/handbook',
    ]);
    expect(answer.data[0]).not.toHaveProperty('visibility');
    expect(answer.data[0]).toMatchObject({
      id: 1,
      name: 'Web',
      default_branch: 'main',
      http_url_to_repo: `${sandbox.url}/acme/web.git`,
      readme_url: `${sandbox.url}/acme/web/-/blob/main/README.md`,
      star_count: 3,
    });
  });

  test('an outsider adds internal projects; a member of acme sees private ones too', async () => {
    expect(await paths('?order_by=id&sort=asc', 'outsider')).toEqual([
      'acme/web',
      'acme/platform/infra',
      'acme/handbook',
    ]);
    expect(await paths('?order_by=id&sort=asc', 'developer')).toEqual([
      'acme/web',
      'acme/platform/payments-api',
      'acme/platform/infra',
      'acme/handbook',
      'bob/scratchpad',
    ]);
    expect(await paths('?order_by=id&sort=asc', 'maintainer')).not.toContain('bob/scratchpad');
  });

  test('signed-in callers get the full form unless simple=true', async () => {
    const full = await api(sandbox, 'GET', '/projects?search=payments', { as: 'maintainer' });
    expect(full.data[0]).toMatchObject({
      visibility: 'private',
      archived: false,
      namespace: { kind: 'group', full_path: 'acme/platform', path: 'platform' },
      permissions: { project_access: null, group_access: { access_level: 40 } },
      _links: { self: `${sandbox.url}/api/v4/projects/2` },
    });
    const simple = await api(sandbox, 'GET', '/projects?search=payments&simple=true', { as: 'maintainer' });
    expect(simple.data[0]).not.toHaveProperty('namespace');
  });

  test('a personal project has an owner and the owner access level', async () => {
    const answer = await api(sandbox, 'GET', '/projects?owned=true');
    expect(answer.data).toHaveLength(1);
    expect(answer.data[0]).toMatchObject({
      path_with_namespace: 'bob/scratchpad',
      owner: { name: 'Bob Chen' },
      namespace: { kind: 'user', path: 'bob' },
      permissions: { project_access: { access_level: 50 } },
    });
  });
});

describe('filters and order', () => {
  test('archived, visibility, search', async () => {
    expect(await paths('?archived=true')).toEqual(['acme/handbook']);
    expect(await paths('?visibility=internal')).toEqual(['acme/platform/infra']);
    expect(await paths('?search=STOREFRONT')).toEqual(['acme/web']);
  });

  test('membership, starred, min_access_level', async () => {
    expect(await paths('?membership=true&order_by=id&sort=asc', 'outsider')).toEqual([]);
    expect(await paths('?starred=true', 'outsider')).toEqual(['acme/web']);
    expect(await paths('?min_access_level=50&order_by=id&sort=asc')).toEqual(['bob/scratchpad']);
    expect((await api(sandbox, 'GET', '/projects?min_access_level=35')).data).toEqual({
      error: 'min_access_level does not have a valid value',
    });
  });

  test('programming language and custom attributes (the latter for administrators only)', async () => {
    expect(await paths('?with_programming_language=go')).toEqual(['acme/platform/payments-api']);
    expect(await paths('?custom_attributes[team]=storefront', 'admin')).toEqual(['acme/web']);
    // Others' custom attribute filters are ignored, as on the service.
    expect(await paths('?custom_attributes[team]=storefront', 'developer')).toHaveLength(5);
    const withAttributes = await api(sandbox, 'GET', '/projects?search=storefront&with_custom_attributes=true', {
      as: 'admin',
    });
    expect(withAttributes.data[0].custom_attributes).toEqual([
      { key: 'team', value: 'storefront' },
      { key: 'tier', value: 'critical' },
    ]);
  });

  test('with_issues_enabled and with_merge_requests_enabled leave out projects without the feature', async () => {
    const everything = await paths('?order_by=id&sort=asc');
    expect(everything).toContain('acme/handbook');
    expect(everything).toContain('bob/scratchpad');
    expect(await paths('?with_issues_enabled=true&order_by=id&sort=asc')).toEqual(
      everything.filter((p) => p !== 'acme/handbook'),
    );
    expect(await paths('?with_merge_requests_enabled=true&order_by=id&sort=asc')).toEqual(
      everything.filter((p) => p !== 'bob/scratchpad'),
    );
    // false asks for nothing: it does not select the projects without the feature.
    expect(await paths('?with_issues_enabled=false&with_merge_requests_enabled=false&order_by=id&sort=asc')).toEqual(
      everything,
    );
  });

  test('statistics for members with reporter access', async () => {
    const answer = await api(sandbox, 'GET', '/projects?search=storefront&statistics=true', { as: 'reporter' });
    expect(answer.data[0].statistics.commit_count).toBe(15);
    expect(answer.data[0].statistics.repository_size).toBeGreaterThan(0);
    const outsider = await api(sandbox, 'GET', '/projects?search=storefront&statistics=true', { as: 'outsider' });
    expect(outsider.data[0]).not.toHaveProperty('statistics');
  });

  test('order_by name and path, both directions; default is newest first', async () => {
    expect(await paths('?order_by=name&sort=asc')).toEqual([
      'acme/handbook',
      'acme/platform/infra',
      'acme/platform/payments-api',
      'bob/scratchpad',
      'acme/web',
    ]);
    expect((await paths('?order_by=path&sort=desc'))[0]).toBe('acme/web');
    expect((await paths(''))[0]).toBe('bob/scratchpad');
  });

  test('id_after and id_before bound the ids', async () => {
    expect(await paths('?id_after=2&id_before=5&order_by=id&sort=asc')).toEqual([
      'acme/platform/infra',
      'acme/handbook',
    ]);
  });
});

describe('keyset pagination', () => {
  async function chain(first: string): Promise<number[][]> {
    const pages: number[][] = [];
    let next: string | undefined = `${sandbox.url}/api/v4${first}`;
    for (let i = 0; next && i < 10; i++) {
      const response: Response = await fetch(next, { headers: { 'PRIVATE-TOKEN': sandbox.tokens.admin } });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-total')).toBeNull();
      pages.push(((await response.json()) as Array<{ id: number }>).map((p) => p.id));
      next = parseLink(response.headers.get('link')).next;
    }
    return pages;
  }

  test('ascending: follows rel="next" with id_after until no Link comes', async () => {
    expect(await chain('/projects?pagination=keyset&order_by=id&sort=asc&per_page=2')).toEqual([[1, 2], [3, 4], [5]]);
  });

  test('descending uses id_before', async () => {
    const first = await api(sandbox, 'GET', '/projects?pagination=keyset&order_by=id&sort=desc&per_page=2', {
      as: 'admin',
    });
    expect(first.headers.get('link')).toBe(
      `<${sandbox.url}/api/v4/projects?pagination=keyset&order_by=id&sort=desc&per_page=2&id_before=4>; rel="next"`,
    );
    expect(await chain('/projects?pagination=keyset&order_by=id&sort=desc&per_page=2')).toEqual([[5, 4], [3, 2], [1]]);
  });

  test('keyset needs order_by=id, given explicitly (the default order is created_at)', async () => {
    for (const query of ['pagination=keyset&order_by=name', 'pagination=keyset', 'pagination=keyset&sort=asc']) {
      const answer = await api(sandbox, 'GET', `/projects?${query}`);
      expect(answer.status, query).toBe(405);
      expect(answer.data.message, query).toMatch(/^Keyset pagination is not yet available/);
    }
  });
});

describe('offset cap and statistics', () => {
  test('offset pagination serves at most 10,000 records: page 100 of 100 is the last page allowed', async () => {
    const last = await api(sandbox, 'GET', '/projects?per_page=100&page=100');
    expect(last.status).toBe(200);
    // page × per_page, as the service checks it: page 101 would hold records 10,001 to 10,100.
    for (const query of ['per_page=100&page=101', 'per_page=30&page=334', 'per_page=500&page=101']) {
      const beyond = await api(sandbox, 'GET', `/projects?${query}`);
      expect(beyond.status, query).toBe(405);
      expect(beyond.data.message, query).toMatch(/^Offset pagination has a maximum allowed offset of 10000/);
    }
    // Keyset pagination has no such cap.
    expect((await api(sandbox, 'GET', '/projects?pagination=keyset&order_by=id&per_page=100&page=101')).status).toBe(
      200,
    );
  });

  test('statistics survive a repository entry that vanishes while the size is summed', async () => {
    const project = sandbox.store.findProject('acme/web')!;
    // A dangling link stands in for a temporary file that a concurrent write removed after it was listed.
    const gone = join(project.repo.dir, 'sandbox-index-vanished');
    await symlink(join(project.repo.dir, 'no-such-file'), gone);
    try {
      const answer = await api(sandbox, 'GET', '/projects?search=storefront&statistics=true', { as: 'reporter' });
      expect(answer.status).toBe(200);
      expect(answer.data[0].statistics.repository_size).toBeGreaterThan(0);
    } finally {
      await unlink(gone);
    }
  });
});

describe('open_issues_count', () => {
  const WEB = `/projects/${encodeURIComponent('acme/web')}`;
  const count = async () => (await api(sandbox, 'GET', WEB, { as: 'maintainer' })).data.open_issues_count;

  test("counts the project's open issues, as the vendor's does, following a new issue and its close", async () => {
    const open = await api(sandbox, 'GET', `${WEB}/issues?state=opened&per_page=1`, { as: 'maintainer' });
    const before = Number(open.headers.get('x-total'));
    expect(before).toBeGreaterThan(0);
    expect(await count()).toBe(before);
    const created = await api(sandbox, 'POST', `${WEB}/issues`, { as: 'maintainer', json: { title: 'Counted' } });
    expect(created.status).toBe(201);
    expect(await count()).toBe(before + 1);
    const closed = await api(sandbox, 'PUT', `${WEB}/issues/${created.data.iid}`, {
      as: 'maintainer',
      json: { state_event: 'close' },
    });
    expect(closed.data.state).toBe('closed');
    expect(await count()).toBe(before);
  });
});
