// Releases: ordering, the full release object, create (tag from ref, links, milestones, conflicts) and update.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../../../src/sandbox/server.js';
import { api } from './sandbox-client.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());

const WEB = '/projects/acme%2Fweb';
const web = () => sandbox.store.findProject('acme/web')!;

describe('read', () => {
  test('the list is ordered by released_at, newest first', async () => {
    const answer = await api(sandbox, 'GET', `${WEB}/releases`, { as: 'anonymous' });
    expect(answer.status).toBe(200);
    expect(answer.data.map((r: { tag_name: string }) => r.tag_name)).toEqual(['v1.1.0', 'v1.0.0']);
    expect(answer.headers.get('x-total')).toBe('2');
  });

  test('a release carries every field of the spec', async () => {
    const answer = await api(sandbox, 'GET', `${WEB}/releases/v1.1.0`);
    const sha = await web().repo.resolveCommit('v1.1.0');
    const release = answer.data;
    expect(release).toMatchObject({
      tag_name: 'v1.1.0',
      name: 'Web 1.1.0',
      author: { username: 'alice' },
      commit: { id: sha, title: 'Release 1.1.0', author_name: 'Alice Martin' },
      milestones: [{ title: '1.1', state: 'closed', project_id: 1 }],
      commit_path: `/acme/web/-/commit/${sha}`,
      tag_path: '/acme/web/-/tags/v1.1.0',
    });
    expect(release.description_html).toContain('<h2>Fixes</h2>');
    expect(release.evidence_sha).toMatch(/^[0-9a-f]{64}$/);
    expect(release.assets.count).toBe(6);
    expect(release.assets.sources.map((s: { format: string }) => s.format)).toEqual([
      'zip',
      'tar.gz',
      'tar.bz2',
      'tar',
    ]);
    expect(release.assets.sources[0].url).toBe(`${sandbox.url}/acme/web/-/archive/v1.1.0/web-v1.1.0.zip`);
    expect(release.assets.links[1]).toMatchObject({
      name: 'Runbook',
      url: 'https://docs.acme.example/runbooks/web',
      external: true,
    });
    expect(release.assets.evidence_file_path).toMatch(/\/acme\/web\/-\/releases\/v1\.1\.0\/evidences\/\d+\.json$/);
    for (const field of ['created_at', 'released_at']) expect(Number.isNaN(Date.parse(release[field]))).toBe(false);
  });

  test('an unknown tag is 404; a private project stays hidden', async () => {
    const missing = await api(sandbox, 'GET', `${WEB}/releases/v9.9.9`);
    expect(missing.status).toBe(404);
    expect(missing.data).toEqual({ message: '404 Release Not Found' });
    expect(
      (await api(sandbox, 'GET', '/projects/acme%2Fplatform%2Fpayments-api/releases', { as: 'outsider' })).status,
    ).toBe(404);
  });
});

describe('create', () => {
  test('from a ref: the tag is created and the release answers 201', async () => {
    const answer = await api(sandbox, 'POST', `${WEB}/releases`, {
      json: {
        tag_name: 'v1.2.0-rc1',
        ref: 'feature/dark-mode',
        description: 'Dark mode preview',
        milestones: ['1.2'],
        assets: { links: [{ name: 'Preview', url: 'https://preview.acme.example/1.2.0-rc1' }] },
        released_at: '2030-01-01T00:00:00Z',
      },
    });
    expect(answer.status).toBe(201);
    expect(await web().repo.resolveCommit('v1.2.0-rc1')).toBe(await web().repo.resolveCommit('feature/dark-mode'));
    expect(answer.data).toMatchObject({
      tag_name: 'v1.2.0-rc1',
      name: 'v1.2.0-rc1',
      released_at: '2030-01-01T00:00:00.000Z',
      author: { username: 'bob' },
      milestones: [{ title: '1.2' }],
      assets: { count: 5, links: [{ name: 'Preview', external: true }] },
    });
    const list = await api(sandbox, 'GET', `${WEB}/releases`);
    expect(list.data[0].tag_name).toBe('v1.2.0-rc1');
  });

  test('links in form encoding (assets[links][][name]) and an existing tag without ref', async () => {
    await web().repo.createTag('v0.9.0', 'v1.0.0');
    const answer = await api(sandbox, 'POST', `${WEB}/releases`, {
      form:
        'tag_name=v0.9.0&description=Old&assets[links][][name]=A&assets[links][][url]=https%3A%2F%2Fa.example' +
        '&assets[links][][name]=B&assets[links][][url]=https%3A%2F%2Fb.example',
    });
    expect(answer.status).toBe(201);
    expect(answer.data.assets.links.map((l: { name: string }) => l.name)).toEqual(['A', 'B']);
  });

  test('no tag and no ref is 422; a ref that names nothing is 400', async () => {
    const noRef = await api(sandbox, 'POST', `${WEB}/releases`, { json: { tag_name: 'v3.0.0', description: 'x' } });
    expect(noRef.status).toBe(422);
    expect(noRef.data).toEqual({ message: 'Ref is not specified' });
    const badRef = await api(sandbox, 'POST', `${WEB}/releases`, {
      json: { tag_name: 'v3.0.0', description: 'x', ref: 'nope' },
    });
    expect(badRef.status).toBe(400);
    expect(badRef.data).toEqual({ message: 'Target nope is invalid' });
    expect(await web().repo.tagExists('v3.0.0')).toBe(false);
  });

  test('required fields, unknown milestones, bad links, duplicates', async () => {
    expect((await api(sandbox, 'POST', `${WEB}/releases`, { json: { tag_name: 'v4' } })).data).toEqual({
      error: 'description is missing',
    });
    const link = await api(sandbox, 'POST', `${WEB}/releases`, {
      json: { tag_name: 'v4', ref: 'main', description: 'x', assets: { links: [{ name: 'no url' }] } },
    });
    expect(link.data).toEqual({ error: 'assets[links][0][url] is missing' });
    const scheme = await api(sandbox, 'POST', `${WEB}/releases`, {
      json: {
        tag_name: 'v4',
        ref: 'main',
        description: 'x',
        assets: { links: [{ name: 'x', url: 'ftp://x.example' }] },
      },
    });
    expect(scheme.data).toEqual({ message: { 'links.url': ['is blocked: Only allowed schemes are http, https'] } });
    const milestone = await api(sandbox, 'POST', `${WEB}/releases`, {
      json: { tag_name: 'v4', ref: 'main', description: 'x', milestones: ['9.9'] },
    });
    expect(milestone.data).toEqual({ message: 'Milestone(s) not found: 9.9' });
    const existing = await api(sandbox, 'POST', `${WEB}/releases`, {
      json: { tag_name: 'v1.0.0', description: 'again' },
    });
    expect(existing.status).toBe(409);
    expect(existing.data).toEqual({ message: 'Release already exists' });
  });

  test('needs push access', async () => {
    const reporter = await api(sandbox, 'POST', `${WEB}/releases`, {
      as: 'reporter',
      json: { tag_name: 'v5', ref: 'main', description: 'x' },
    });
    expect(reporter.status).toBe(403);
    expect(await web().repo.tagExists('v5')).toBe(false);
  });
});

describe('update', () => {
  test('name, description, released_at and milestones; an empty list removes all milestones', async () => {
    const changed = await api(sandbox, 'PUT', `${WEB}/releases/v1.0.0`, {
      json: { name: 'Web 1.0', description: 'First!', milestones: ['1.0', '1.1'], released_at: '2020-05-05T10:00:00Z' },
    });
    expect(changed.status).toBe(200);
    expect(changed.data).toMatchObject({
      name: 'Web 1.0',
      description: 'First!',
      released_at: '2020-05-05T10:00:00.000Z',
    });
    expect(changed.data.milestones.map((m: { title: string }) => m.title)).toEqual(['1.0', '1.1']);
    const cleared = await api(sandbox, 'PUT', `${WEB}/releases/v1.0.0`, { json: { milestones: [] } });
    expect(cleared.data.milestones).toEqual([]);
    expect(cleared.data.name).toBe('Web 1.0');
  });

  test('an unknown release is 404; reporters may not update', async () => {
    expect((await api(sandbox, 'PUT', `${WEB}/releases/v9`, { json: { name: 'x' } })).status).toBe(404);
    expect((await api(sandbox, 'PUT', `${WEB}/releases/v1.1.0`, { as: 'reporter', json: { name: 'x' } })).status).toBe(
      403,
    );
  });

  test('tag names with slashes are addressed encoded', async () => {
    await api(sandbox, 'POST', `${WEB}/releases`, {
      json: { tag_name: 'release/2024', ref: 'main', description: 'x' },
    });
    const answer = await api(sandbox, 'GET', `${WEB}/releases/release%2F2024`);
    expect(answer.status).toBe(200);
    expect(answer.data.tag_path).toBe('/acme/web/-/tags/release/2024');
  });
});

describe('list order, as the vendor runs it', () => {
  test('order_by released_at (the default) or created_at, sort desc (the default) or asc', async () => {
    const made = await api(sandbox, 'POST', `${WEB}/releases`, {
      as: 'maintainer',
      json: {
        tag_name: 'v0.0.1-backdated',
        ref: 'main',
        name: 'Backdated',
        description: 'Old',
        released_at: '2001-01-01T00:00:00Z',
      },
    });
    expect(made.status, made.text).toBe(201);
    const tags = async (query: string) =>
      (
        (await api(sandbox, 'GET', `${WEB}/releases?per_page=100${query}`, { as: 'maintainer' })).data as Array<{
          tag_name: string;
        }>
      ).map((r) => r.tag_name);
    const byReleased = await tags('');
    expect(byReleased.length).toBeGreaterThan(2);
    expect(byReleased.at(-1)).toBe('v0.0.1-backdated');
    expect(await tags('&order_by=released_at&sort=desc')).toEqual(byReleased);
    expect(await tags('&sort=asc')).toEqual([...byReleased].reverse());
    const byCreated = await tags('&order_by=created_at');
    expect(byCreated[0]).toBe('v0.0.1-backdated');
    expect(await tags('&order_by=created_at&sort=asc')).toEqual([...byCreated].reverse());
    const refused = await api(sandbox, 'GET', `${WEB}/releases?order_by=name`, { as: 'maintainer' });
    expect({ status: refused.status, data: refused.data }).toEqual({
      status: 400,
      data: { error: 'order_by does not have a valid value' },
    });
  });
});
