// Contract: every tags operation against the sandbox — list (search, order, sort, paging) and read tags of the
// project's git repository with their release, create (annotated with a message) and delete, permissions and policy.
import { describe, expect, it } from 'vitest';
import { findOperation } from '../../src/operations/index.js';
import { policyKind, WEB, PAYMENTS, INFRA, answered } from './builders.js';
import { contractSuite } from './harness.js';

const suite = contractSuite('tags');

type Tag = {
  name: string;
  message: string;
  target: string;
  commit: { id: string; short_id: string; title: string; committed_date: string };
  release: { tag_name: string; description: string } | null;
  protected: boolean;
};

describe.shuffle('tags, in any order', () => {
  describe('list_tags and get_tag', () => {
    it('lists tags, newest commit first by default, with release and commit', async () => {
      const tags = await answered<Tag[]>(suite, 'list_tags', { id: WEB });
      expect(tags.map((t) => t.name)).toEqual(['v1.1.0', 'v1.0.0']);
      expect(tags[0]).toMatchObject({
        message: 'Version 1.1.0',
        protected: false,
        commit: { title: 'Release 1.1.0' },
        release: { tag_name: 'v1.1.0' },
      });
      expect(tags[0].target).toMatch(/^[0-9a-f]{40}$/);
      expect(tags[0].target).not.toBe(tags[0].commit.id);
      const shown = suite.operation('list_tags').present!(tags, { id: WEB });
      expect(shown.title).toBe('2 tags');
    });

    it('searches, orders by name, updated or version, and sorts', async () => {
      const names = async (input: Record<string, unknown>) =>
        (await suite.data<Tag[]>('list_tags', { id: WEB, ...input })).map((t) => t.name);
      expect(await names({ search: '1.0.0' })).toEqual(['v1.0.0']);
      expect(await names({ search: '^v1.1' })).toEqual(['v1.1.0']);
      expect(await names({ search: '0.0$' })).toEqual(['v1.0.0']);
      expect(await names({ order_by: 'name', sort: 'asc' })).toEqual(['v1.0.0', 'v1.1.0']);
      expect(await names({ order_by: 'updated', sort: 'asc' })).toEqual(['v1.0.0', 'v1.1.0']);
      expect(await names({ order_by: 'version', sort: 'desc' })).toEqual(['v1.1.0', 'v1.0.0']);
    });

    it('reads one tag; an unknown one is 404', async () => {
      const tag = await suite.data<Tag>('get_tag', { id: WEB, tag_name: 'v1.0.0' }, 'reporter');
      expect(tag).toMatchObject({ name: 'v1.0.0', message: 'Version 1.0.0', release: { tag_name: 'v1.0.0' } });
      const shown = suite.operation('get_tag').present!(tag, { id: WEB, tag_name: 'v1.0.0' });
      expect(shown.title).toBe('Tag v1.0.0');
      expect(shown.fields).toContainEqual(['release', 'v1.0.0']);
      const missing = await suite.refusal('get_tag', { id: WEB, tag_name: 'v9' });
      expect(missing.status).toBe(404);
      expect(missing.message).toContain('Tag Not Found');
    });

    it('shows a private project to its readers and hides it from outsiders', async () => {
      expect((await suite.data<Tag[]>('list_tags', { id: PAYMENTS }, 'reporter')).map((t) => t.name)).toContain(
        'v1.1.0',
      );
      expect((await suite.refusal('list_tags', { id: PAYMENTS }, 'outsider')).status).toBe(404);
      expect((await suite.refusal('get_tag', { id: PAYMENTS, tag_name: 'v1.1.0' }, 'outsider')).status).toBe(404);
    });
  });

  describe('paging', () => {
    suite.pagingCase('list_tags', { id: WEB });
  });

  // Writes go to acme/platform/infra, whose tags no other test of this file reads, under names of their own, so that
  // acme/web's tags stay as seeded for the tests that list them.
  describe('create_tag and delete_tag', () => {
    it('creates an annotated tag with a message and a lightweight one without, as a developer', async () => {
      const name = suite.freshName('v1.2.0-rc');
      const result = await suite.call(
        'create_tag',
        { id: INFRA, tag_name: name, ref: 'feature/bigger-staging', message: 'Bigger staging preview' },
        { as: 'developer' },
      );
      expect(result.status).toBe(201);
      const tag = result.data as Tag;
      expect(tag).toMatchObject({
        name,
        message: 'Bigger staging preview',
        release: null,
        commit: { title: 'Raise staging node count' },
      });
      expect(tag.target).not.toBe(tag.commit.id);
      const light = await suite.data<Tag>(
        'create_tag',
        { id: INFRA, tag_name: suite.freshName('nightly'), ref: 'main' },
        'developer',
      );
      expect(light.message).toBe('');
      expect(light.target).toBe(light.commit.id);
      expect(suite.operation('create_tag').present!(tag, {}).title).toBe(`Tag ${name}`);
    });

    it('refuses an existing name, an invalid ref, and reporters', async () => {
      const exists = await suite.refusal('create_tag', { id: INFRA, tag_name: 'v1.0.0', ref: 'main' }, 'developer');
      expect(exists.status).toBe(400);
      expect(exists.message).toContain('already exists');
      const badRef = await suite.refusal('create_tag', { id: INFRA, tag_name: 'v2', ref: 'no-such-ref' }, 'developer');
      expect(badRef.status).toBe(400);
      expect(badRef.message).toContain('invalid');
      expect((await suite.refusal('create_tag', { id: INFRA, tag_name: 'v3', ref: 'main' }, 'reporter')).status).toBe(
        403,
      );
    });

    it('deletes a tag as a developer, not as a reporter; 404 for an unknown one', async () => {
      const nightly = suite.freshName('nightly');
      await suite.call('create_tag', { id: INFRA, tag_name: nightly, ref: 'main' });
      expect((await suite.refusal('delete_tag', { id: INFRA, tag_name: nightly }, 'reporter')).status).toBe(403);
      expect((await suite.call('delete_tag', { id: INFRA, tag_name: nightly }, { as: 'developer' })).status).toBe(204);
      expect((await suite.refusal('get_tag', { id: INFRA, tag_name: nightly })).status).toBe(404);
      expect((await suite.refusal('delete_tag', { id: INFRA, tag_name: nightly })).status).toBe(404);
    });

    it('deletes a release on the tag with it, as the description says', async () => {
      expect(findOperation('delete_tag')!.description).toMatch(/deletes a release on it too/);
      const doomed = suite.freshName('v0.9-doomed');
      await suite.call('create_tag', { id: INFRA, tag_name: doomed, ref: 'main' });
      await suite.call('create_release', { id: INFRA, tag_name: doomed, description: 'Short-lived' });
      expect((await suite.call('get_release', { id: INFRA, tag_name: doomed })).status).toBe(200);
      await suite.call('delete_tag', { id: INFRA, tag_name: doomed });
      expect((await suite.refusal('get_release', { id: INFRA, tag_name: doomed })).status).toBe(404);
    });
  });

  describe('policy', () => {
    it('asks before delete_tag and runs the others', () => {
      expect(policyKind(suite, 'delete_tag', { id: WEB, tag_name: 'v1.0.0' })).toBe('approve');
      expect(policyKind(suite, 'create_tag', { id: WEB, tag_name: 'x', ref: 'main' })).toBe('run');
      expect(policyKind(suite, 'list_tags', { id: WEB })).toBe('run');
      expect(policyKind(suite, 'get_tag', { id: WEB, tag_name: 'v1.0.0' })).toBe('run');
    });
  });
});

suite.coverageCase();
