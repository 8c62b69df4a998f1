// Contract: every releases operation against the sandbox — list and read, create with the tag made from a ref and
// asset links, update (milestones [] unlinks all), presentation, permissions and bad input.
import { describe, expect, it } from 'vitest';
import { HttpClient } from '../../src/http/client.js';
import { ApiError } from '../../src/http/errors.js';
import { executeCall } from '../../src/run/call.js';
import { operations } from '../../src/operations/index.js';
import { WEB, PAYMENTS, answered } from './builders.js';
import { contractSuite } from './harness.js';

const suite = contractSuite('releases');

type Release = Record<string, unknown> & {
  tag_name: string;
  name: string;
  released_at: string;
  milestones: Array<{ title: string }>;
  assets: {
    count: number;
    sources: Array<{ format: string; url: string }>;
    links: Array<{ id: number; name: string; url: string; external: boolean }>;
  };
};

describe.shuffle('releases, in any order', () => {
  describe('list_releases and get_release', () => {
    it("lists releases newest released_at first, with the spec's fields", async () => {
      const releases = await answered<Release[]>(suite, 'list_releases', { id: WEB });
      expect(releases.length).toBeGreaterThanOrEqual(2);
      const times = releases.map((r) => Date.parse(r.released_at));
      expect(times).toEqual([...times].sort((a, b) => b - a));
      for (const release of releases) {
        for (const key of [
          'tag_name',
          'name',
          'description',
          'description_html',
          'created_at',
          'released_at',
          'author',
          'commit',
          'milestones',
          'commit_path',
          'tag_path',
          'assets',
        ]) {
          expect(release).toHaveProperty(key);
        }
        expect(release.assets.sources.map((s) => s.format).sort()).toEqual(['tar', 'tar.bz2', 'tar.gz', 'zip']);
      }
      const shown = suite.operation('list_releases').present!(releases, { id: WEB });
      expect(shown.title).toBe(`${releases.length} releases`);
      expect(shown.fields?.[0][0]).toBe(releases[0].tag_name);
    });

    it('reads one release by tag and presents tag, name and when it was released, as people read times', async () => {
      const result = await suite.call('get_release', { id: WEB, tag_name: 'v1.0.0' });
      const release = result.data as Release;
      expect(release).toMatchObject({ tag_name: 'v1.0.0', name: 'Web 1.0.0' });
      expect(release.milestones.map((m) => m.title)).toEqual(['1.0']);
      expect(release.assets.links[0]).toMatchObject({ name: 'Static bundle', external: true });
      const shown = suite.operation('get_release').present!(release, { id: WEB, tag_name: 'v1.0.0' });
      expect(shown).toEqual({
        title: 'Release v1.0.0: Web 1.0.0',
        fields: [
          ['tag', 'v1.0.0'],
          ['name', 'Web 1.0.0'],
          // The demo release is days old: its day and minute in UTC, never the service's ISO string.
          ['released', `${new Date(release.released_at).toISOString().slice(0, 16).replace('T', ' ')} UTC`],
        ],
      });
    });

    it('reads a release of a nested private project by its full path', async () => {
      const result = await suite.call('get_release', { id: PAYMENTS, tag_name: 'v1.1.0' }, { as: 'reporter' });
      expect(result.data).toMatchObject({ tag_name: 'v1.1.0' });
      expect(suite.requests().at(-1)?.path).toBe('/projects/acme%2Fplatform%2Fpayments-api/releases/v1.1.0');
    });
  });

  describe('paging', () => {
    suite.pagingCase('list_releases', { id: WEB });
  });

  describe('create_release and update_release', () => {
    it('offers the commits since the previous release for the notes, as the next step after a release', async () => {
      const client = new HttpClient({ baseUrl: suite.sandbox.url, token: suite.sandbox.tokens.developer });
      const input = { id: WEB, tag_name: 'v1.3.0-notes', ref: 'main', description: 'Notes to come' };
      const made = await executeCall(suite.operation('create_release'), input, { client }, { operations }).finally(() =>
        client.close(),
      );
      if (!made.ok) throw new Error(made.message);
      const releases = (await suite.call('list_releases', { id: WEB })).data as Release[];
      const previous = releases.find((r) => r.tag_name !== 'v1.3.0-notes')!.tag_name;
      expect(made.result.data).toMatchObject({ previous_release: { tag_name: previous } });
      const shown = suite.operation('create_release').present!(made.result.data, input);
      expect(shown.sections).toEqual([{ title: 'notes', text: 'Notes to come' }]);
      expect(shown.actions).toEqual([
        {
          label: `Commits since ${previous} (for the notes)`,
          operation: 'compare_refs',
          input: { id: WEB, from: previous, to: 'v1.3.0-notes' },
        },
      ]);
    });

    it('creates a release whose tag is made from a ref, with asset links and milestones', async () => {
      const result = await suite.call(
        'create_release',
        {
          id: WEB,
          tag_name: 'v1.2.0-rc1',
          ref: 'main',
          name: 'Web 1.2.0 RC1',
          description: '## Preview\n\n- Dark mode',
          milestones: ['1.2'],
          released_at: '2030-01-02T03:04:05Z',
          assets: { links: [{ name: 'Preview bundle', url: 'https://downloads.acme.example/web/v1.2.0-rc1.tar.gz' }] },
        },
        { as: 'developer' },
      );
      expect(result.status).toBe(201);
      const release = result.data as Release;
      expect(release).toMatchObject({
        tag_name: 'v1.2.0-rc1',
        name: 'Web 1.2.0 RC1',
        released_at: '2030-01-02T03:04:05.000Z',
      });
      expect(release.milestones.map((m) => m.title)).toEqual(['1.2']);
      expect(release.assets.links).toEqual([
        expect.objectContaining({
          name: 'Preview bundle',
          url: 'https://downloads.acme.example/web/v1.2.0-rc1.tar.gz',
          external: true,
        }),
      ]);
      expect(release.assets.count).toBe(release.assets.sources.length + 1);
      // The answer echoes the notes as published, so a typo shows at once.
      const shown = suite.operation('create_release').present!(release, { id: WEB, tag_name: 'v1.2.0-rc1' } as never);
      expect(shown.sections).toEqual([{ title: 'notes', text: '## Preview\n\n- Dark mode' }]);
      const changed = await suite.call(
        'update_release',
        { id: WEB, tag_name: 'v1.2.0-rc1', description: '## Preview\n\n- Dark mode\n- Search' },
        { as: 'developer' },
      );
      const updated = suite.operation('update_release').present!(changed.data, { id: WEB, tag_name: 'v1.2.0-rc1' });
      expect(updated.sections?.[0].text).toBe('## Preview\n\n- Dark mode\n- Search');
      // The tag now exists: the release reads back, tied to a commit.
      const read = (await suite.call('get_release', { id: WEB, tag_name: 'v1.2.0-rc1' })).data as Release;
      expect(read.commit).toMatchObject({ id: expect.stringMatching(/^[0-9a-f]{40}$/) });
    });

    it('updates name and notes and unlinks every milestone with milestones []', async () => {
      const tag = suite.freshName('v1.2.0-rc');
      await suite.call('create_release', {
        id: WEB,
        tag_name: tag,
        ref: 'main',
        name: 'Web 1.2.0 RC',
        description: 'Preview.',
        milestones: ['1.2'],
        released_at: '2030-01-02T03:04:05Z',
      });
      const result = await suite.call(
        'update_release',
        {
          id: WEB,
          tag_name: tag,
          name: 'Web 1.2.0 RC1 (withdrawn)',
          description: 'Withdrawn.',
          milestones: [],
        },
        { as: 'developer' },
      );
      expect(result.status).toBe(200);
      // released_at was left out: it keeps the time given at creation (it does not become "now").
      expect(result.data).toMatchObject({
        name: 'Web 1.2.0 RC1 (withdrawn)',
        description: 'Withdrawn.',
        milestones: [],
        released_at: '2030-01-02T03:04:05.000Z',
      });
      // Fields left out stay as they were.
      const again = await suite.call(
        'update_release',
        { id: WEB, tag_name: tag, released_at: '2030-02-01T00:00:00Z' },
        { as: 'developer' },
      );
      expect(again.data).toMatchObject({ name: 'Web 1.2.0 RC1 (withdrawn)', released_at: '2030-02-01T00:00:00.000Z' });
    });

    it("passes on the service's own words when the tag has no release yet and no ref", async () => {
      const error = await suite
        .call('create_release', { id: WEB, tag_name: 'v9.9.9', description: 'x' }, { as: 'developer' })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).serviceMessage).toBe('Ref is not specified');
    });

    it('refuses a second release of the same tag with 409', async () => {
      await expect(
        suite.call('create_release', { id: WEB, tag_name: 'v1.0.0', description: 'again' }, { as: 'developer' }),
      ).rejects.toMatchObject({ status: 409, serviceMessage: 'Release already exists' });
    });
  });

  describe('permissions', () => {
    it("hides a private project from an outsider behind the service's 404", async () => {
      const error = await suite.call('list_releases', { id: PAYMENTS }, { as: 'outsider' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).message).toBe('404 Project Not Found');
    });

    it('needs push access to create or update', async () => {
      await expect(
        suite.call(
          'create_release',
          { id: WEB, tag_name: 'v0.0.1', ref: 'main', description: 'x' },
          { as: 'reporter' },
        ),
      ).rejects.toMatchObject({ status: 403 });
      await expect(
        suite.call('update_release', { id: WEB, tag_name: 'v1.0.0', name: 'hijacked' }, { as: 'guest' }),
      ).rejects.toMatchObject({ status: 403 });
    });
  });

  describe('bad input', () => {
    suite.badInputCases([
      ['a missing description', 'create_release', { id: WEB, tag_name: 'v2.0.0', ref: 'main' }, 'description'],
      [
        'a link without a url',
        'create_release',
        { id: WEB, tag_name: 'v2.0.0', description: 'x', assets: { links: [{ name: 'bin' }] } },
        'assets.links.0.url',
      ],
      [
        'an asset link that is not a URL',
        'create_release',
        { id: WEB, tag_name: 'v2.0.0', description: 'x', assets: { links: [{ name: 'bin', url: 'nope' }] } },
        'assets.links.0.url',
      ],
      ['an unknown key', 'update_release', { id: WEB, tag_name: 'v1.0.0', title: 'x' }, ''],
    ]);
  });
});

suite.coverageCase();
