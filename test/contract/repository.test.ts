// Contract: every repository-browsing operation against the sandbox — tree, blobs, archives in each format,
// compare straight and through the merge base, contributors, merge base, permissions and bad input.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/http/errors.js';
import { WEB, PAYMENTS } from './builders.js';
import { contractSuite } from './harness.js';

const suite = contractSuite('repository');
const FEATURE = 'feature/dark-mode';

type TreeEntry = { id: string; name: string; type: 'tree' | 'blob'; path: string; mode: string };
type Diff = {
  old_path: string;
  new_path: string;
  diff: string;
  new_file: boolean;
  renamed_file: boolean;
  deleted_file: boolean;
};
type Compare = {
  commit: { id: string } | null;
  commits: Array<{ id: string; title: string }>;
  diffs: Diff[];
  compare_timeout: boolean;
  compare_same_ref: boolean;
};

describe.shuffle('repository, in any order', () => {
  describe('tree and blobs', () => {
    it('lists the root, a subdirectory recursively, and pages', async () => {
      const root = (await suite.call('list_repository_tree', { id: WEB })).data as TreeEntry[];
      expect(root).toContainEqual(
        expect.objectContaining({ name: 'README.md', type: 'blob', path: 'README.md', mode: '100644' }),
      );
      expect(root).toContainEqual(expect.objectContaining({ name: 'src', type: 'tree', path: 'src' }));

      const src = (
        await suite.call('list_repository_tree', {
          id: WEB,
          path: 'src',
          recursive: true,
          ref: 'v1.0.0',
          per_page: 100,
        })
      ).data as TreeEntry[];
      expect(src.map((e) => e.path)).toContain('src/components/button.ts');
      expect(src.every((e) => e.path.startsWith('src/'))).toBe(true);
      // ref: the header component came after v1.0.0, so it is on main but not in the v1.0.0 tree.
      expect(src.map((e) => e.path)).not.toContain('src/components/header.ts');
      const mainSrc = (
        await suite.call('list_repository_tree', { id: WEB, path: 'src', recursive: true, per_page: 100 })
      ).data as TreeEntry[];
      expect(mainSrc.map((e) => e.path)).toContain('src/components/header.ts');
      const feature = (await suite.call('list_repository_tree', { id: WEB, path: 'src/theme', ref: FEATURE }))
        .data as TreeEntry[];
      expect(feature.map((e) => e.path)).toEqual(['src/theme/dark.ts']);

      const page = await suite.call('list_repository_tree', { id: WEB, per_page: 2 });
      expect(page.data).toHaveLength(2);
      expect(page.page).toMatchObject({ page: 1, per_page: 2, next_page: 2, has_more: true });
    });

    it('reads a blob as Base64 and as raw bytes, both the same content', async () => {
      const root = (await suite.call('list_repository_tree', { id: WEB, path: 'public' })).data as TreeEntry[];
      const logo = root.find((e) => e.name === 'logo.png')!;
      const blob = (await suite.call('get_blob', { id: WEB, sha: logo.id })).data as { size: number; content: string };
      const decoded = Buffer.from(blob.content, 'base64');
      expect(decoded.subarray(0, 4)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
      expect(blob.size).toBe(decoded.length);
      const raw = await suite.call('get_raw_blob', { id: WEB, sha: logo.id });
      expect(Buffer.compare(raw.data as Buffer, decoded)).toBe(0);
      expect(suite.requests().at(-1)?.path).toBe(`/projects/acme%2Fweb/repository/blobs/${logo.id}/raw`);
    });

    it('is a 404 for a blob that does not exist', async () => {
      await expect(suite.call('get_blob', { id: WEB, sha: 'f'.repeat(40) })).rejects.toMatchObject({ status: 404 });
    });
  });

  describe('download_archive', () => {
    const magic: Array<[format: string | undefined, suffix: string, bytes: (b: Buffer) => boolean]> = [
      ['zip', '.zip', (b) => b.subarray(0, 4).equals(Buffer.from('PK\x03\x04', 'latin1'))],
      ['tar.gz', '.tar.gz', (b) => b[0] === 0x1f && b[1] === 0x8b],
      [undefined, '', (b) => b[0] === 0x1f && b[1] === 0x8b],
      ['tar', '.tar', (b) => b.subarray(257, 262).toString('latin1') === 'ustar'],
      ...(['tar.bz2', 'tbz', 'tbz2', 'tb2', 'bz2'] as const).map((format): [string, string, (b: Buffer) => boolean] => [
        format,
        `.${format}`,
        (b) => b.subarray(0, 3).toString('latin1') === 'BZh',
      ]),
    ];

    it.each(magic)('downloads format %s with the right magic bytes', async (format, suffix, isRight) => {
      const result = await suite.call('download_archive', { id: WEB, sha: 'v1.0.0', ...(format ? { format } : {}) });
      expect(result.status).toBe(200);
      expect(Buffer.isBuffer(result.data)).toBe(true);
      expect(isRight(result.data as Buffer)).toBe(true);
      expect(suite.requests().at(-1)?.path).toBe(`/projects/acme%2Fweb/repository/archive${suffix}`);
      expect(result.fileName?.endsWith(format ?? 'tar.gz')).toBe(true);
    });
  });

  describe('download_archive of a chosen ref', () => {
    it('archives the ref given in sha, not the default branch', async () => {
      // tar is not compressed, so the member names can be read straight from the bytes.
      const names = (result: { data: unknown }) => (result.data as Buffer).toString('latin1');
      const atTag = await suite.call('download_archive', { id: WEB, format: 'tar', sha: 'v1.0.0' });
      const atMain = await suite.call('download_archive', { id: WEB, format: 'tar' });
      expect(names(atMain)).toContain('docs/getting started.md');
      expect(names(atTag)).toContain('CHANGELOG.md');
      expect(names(atTag)).not.toContain('docs/getting started.md');
    });
  });

  describe('paging', () => {
    suite.pagingCase('list_repository_tree', { id: WEB });
    suite.pagingCase('list_contributors', { id: WEB });
  });

  describe('compare, merge base and contributors', () => {
    it('finds the merge base of main and a feature branch', async () => {
      const result = await suite.call('get_merge_base', { id: WEB, refs: ['main', FEATURE] });
      const branchPoint = (result.data as { id: string }).id;
      expect(branchPoint).toMatch(/^[0-9a-f]{40}$/);
      // The merge base is where the feature branched: from it to main are main's commits since, none of the feature's.
      const since = (await suite.call('compare_refs', { id: WEB, from: branchPoint, to: 'main' })).data as Compare;
      expect(since.commits.map((c) => c.title)).toEqual([
        "Show order dates in the store's time zone",
        'Show 50 search results per page',
      ]);
      expect(since.diffs.map((d) => d.new_path)).not.toContain('src/theme/dark.ts');
    });

    it('compares through the merge base by default and directly with straight', async () => {
      // A branch of main that moves on (a commit of its own) after the feature branched, so the two ways differ.
      const branchPoint = (await suite.data<{ id: string }>('get_merge_base', { id: WEB, refs: ['main', FEATURE] })).id;
      const moved = await suite.freshBranch(WEB);
      const ownFile = `fresh/${moved.name}.txt`;

      const viaBase = (await suite.call('compare_refs', { id: WEB, from: moved.name, to: FEATURE })).data as Compare;
      expect(viaBase.commits.map((c) => c.title)).toEqual(['Add dark mode toggle', 'Wire dark mode into the header']);
      expect(viaBase.diffs.map((d) => d.new_path)).toContain('src/theme/dark.ts');
      expect(viaBase.diffs.map((d) => d.new_path)).not.toContain(ownFile);
      expect(viaBase).toMatchObject({ compare_timeout: false, compare_same_ref: false });

      const straight = (await suite.call('compare_refs', { id: WEB, from: moved.name, to: FEATURE, straight: true }))
        .data as Compare;
      expect(straight.diffs).toContainEqual(expect.objectContaining({ old_path: ownFile, deleted_file: true }));

      const base = await suite.call('get_merge_base', { id: WEB, refs: [moved.name, FEATURE] });
      expect((base.data as { id: string }).id).toBe(branchPoint);
    });

    it('says when both sides are the same ref', async () => {
      const result = (await suite.call('compare_refs', { id: WEB, from: 'main', to: 'main' })).data as Compare;
      expect(result.compare_same_ref).toBe(true);
    });

    it('lists contributors with their counts, in the order asked', async () => {
      const result = await suite.call('list_contributors', { id: WEB, order_by: 'commits', sort: 'desc' });
      const people = result.data as Array<{
        name: string;
        email: string;
        commits: number;
        additions: number;
        deletions: number;
      }>;
      expect(people.length).toBeGreaterThan(1);
      for (const person of people) {
        expect(person).toEqual(
          expect.objectContaining({
            name: expect.any(String),
            email: expect.any(String),
            commits: expect.any(Number),
            additions: expect.any(Number),
            deletions: expect.any(Number),
          }),
        );
      }
      const counts = people.map((p) => p.commits);
      expect(counts).toEqual([...counts].sort((a, b) => b - a));
      const byName = (await suite.call('list_contributors', { id: WEB, order_by: 'name' })).data as Array<{
        name: string;
      }>;
      expect(byName.map((p) => p.name)).toEqual([...byName.map((p) => p.name)].sort((a, b) => a.localeCompare(b)));
    });
  });

  describe('permissions', () => {
    it("hides a private project from an outsider behind the service's 404", async () => {
      const error = await suite
        .call('list_repository_tree', { id: PAYMENTS }, { as: 'outsider' })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).message).toBe('404 Project Not Found');
    });

    it('lets a guest of a private project see no code (403)', async () => {
      await expect(
        suite.call('download_archive', { id: PAYMENTS, format: 'zip' }, { as: 'guest' }),
      ).rejects.toMatchObject({ status: 403 });
    });

    it('serves a public repository without a token', async () => {
      const result = await suite.call('list_contributors', { id: WEB }, { as: 'anonymous' });
      expect((result.data as unknown[]).length).toBeGreaterThan(0);
    });
  });

  describe('bad input', () => {
    suite.badInputCases([
      ['an archive format the API does not have', 'download_archive', { id: WEB, format: 'rar' }, 'format'],
      ['a compare without `to`', 'compare_refs', { id: WEB, from: 'main' }, 'to'],
      ['a merge base of one ref', 'get_merge_base', { id: WEB, refs: ['main'] }, 'refs'],
      ['a contributor order the API does not have', 'list_contributors', { id: WEB, order_by: 'lines' }, 'order_by'],
      ['an unknown key', 'get_blob', { id: WEB, sha: 'abc', path: 'README.md' }, ''],
    ]);
  });
});

suite.coverageCase();
