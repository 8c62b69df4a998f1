// Contract: list_projects against the sandbox — keyset pagination across pages, filters, visibility per caller
// and bad input.
import { describe, expect, it } from 'vitest';
import { contractSuite } from './harness.js';

const suite = contractSuite('projects');

type Project = Record<string, unknown> & { id: number; path_with_namespace: string };

const ids = (data: unknown) => (data as Project[]).map((p) => p.id);

describe('list_projects', () => {
  it('reads every project across keyset pages with all_pages, in ID order', async () => {
    const everything = suite.sandbox.store.projects.map((p) => p.id).sort((a, b) => b - a);
    const before = suite.requests().length;
    const result = await suite.call('list_projects', { per_page: 2, all_pages: true }, { as: 'admin' });
    expect(result.status).toBe(200);
    expect(ids(result.data)).toEqual(everything);
    expect(result.page).toMatchObject({ has_more: false, pages_fetched: Math.ceil(everything.length / 2) });
    const sent = suite.requests().slice(before);
    expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual(sent.map(() => 'GET /projects'));
    expect(sent.length).toBe(Math.ceil(everything.length / 2));
  });

  it('hands back the keyset cursor of the next page when reading one page', async () => {
    const first = await suite.call('list_projects', { per_page: 2, sort: 'asc' }, { as: 'admin' });
    expect(first.data).toHaveLength(2);
    expect(first.page?.has_more).toBe(true);
    expect(first.page?.next_page).toBeUndefined();
    const cursor = new URL(first.page?.next_url ?? '');
    expect(cursor.searchParams.get('pagination')).toBe('keyset');
    expect(cursor.searchParams.get('id_after')).toBe(String(ids(first.data)[1]));
    // The cursor is also an input: id_after continues where the first page ended.
    const second = await suite.call('list_projects', { per_page: 2, sort: 'asc', id_after: ids(first.data)[1] }, { as: 'admin' });
    expect(Math.min(...ids(second.data))).toBeGreaterThan(Math.max(...ids(first.data)));
  });

  it('shows an outsider only public and internal projects, a member their private ones too', async () => {
    const outsider = (await suite.call('list_projects', { all_pages: true }, { as: 'outsider' })).data as Project[];
    const paths = outsider.map((p) => p.path_with_namespace);
    expect(paths).toContain('acme/web');
    expect(paths).not.toContain('acme/platform/payments-api');
    const member = (await suite.call('list_projects', { membership: true, all_pages: true }, { as: 'developer' })).data as Project[];
    expect(member.map((p) => p.path_with_namespace)).toContain('acme/platform/payments-api');
  });

  it('filters by search, visibility, access level, language and custom attributes', async () => {
    const search = (await suite.call('list_projects', { search: 'payments' }, { as: 'developer' })).data as Project[];
    expect(search.map((p) => p.path_with_namespace)).toEqual(['acme/platform/payments-api']);

    const publicOnly = (await suite.call('list_projects', { visibility: 'public', simple: true }, { as: 'developer' })).data as Project[];
    expect(publicOnly.length).toBeGreaterThan(0);
    for (const project of publicOnly) expect(project).not.toHaveProperty('visibility');

    const owned = (await suite.call('list_projects', { owned: true, min_access_level: 50 }, { as: 'developer' })).data as Project[];
    expect(owned.map((p) => p.path_with_namespace)).toEqual(['bob/scratchpad']);

    const goCode = (await suite.call('list_projects', { with_programming_language: 'Go' }, { as: 'admin' })).data as Project[];
    expect(goCode.map((p) => p.path_with_namespace)).toContain('acme/platform/payments-api');

    const team = (await suite.call('list_projects', { custom_attributes: { team: 'storefront' } }, { as: 'admin' })).data as Project[];
    expect(team.map((p) => p.path_with_namespace)).toEqual(['acme/web']);
  });

  it('returns the full form to a signed-in caller and the simple form to an anonymous one', async () => {
    const full = (await suite.call('list_projects', { search: 'web' }, { as: 'developer' })).data as Project[];
    expect(full[0]).toHaveProperty('visibility');
    expect(full[0]).toHaveProperty('permissions');
    const anonymous = (await suite.call('list_projects', { search: 'web' }, { as: 'anonymous' })).data as Project[];
    expect(anonymous[0]).toHaveProperty('path_with_namespace', 'acme/web');
    expect(anonymous[0]).not.toHaveProperty('permissions');
  });
});

describe('bad input', () => {
  suite.badInputCases([
    ['per_page 500', 'list_projects', { per_page: 500 }, 'per_page'],
    ['an order keyset pagination cannot follow', 'list_projects', { order_by: 'name' }, 'order_by'],
    ['an access level that does not exist', 'list_projects', { min_access_level: 35 }, 'min_access_level'],
    ['a page number (keyset lists have none)', 'list_projects', { page: 2 }, ''],
    ['a misspelt filter', 'list_projects', { serach: 'web' }, ''],
  ]);
});

suite.coverageCase();
