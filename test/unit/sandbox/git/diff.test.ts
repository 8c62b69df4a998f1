// Tests of diffs, commit stats and compare (straight and through the merge base).
import { describe, expect, it } from 'vitest';
import { commitDiff, commitStats, compareRefs, diffTrees, MAX_PATCH_BYTES } from '../../../../src/sandbox/git/diff.js';
import { GitNotFoundError } from '../../../../src/sandbox/git/errors.js';
import { useRepos, write } from './helpers.js';

const newRepo = useRepos();

describe('commitDiff', () => {
  it('describes added, modified, deleted, renamed and binary files', async () => {
    const repo = await newRepo();
    const root = await write(repo, {
      'keep.txt': 'a\nb\nc\n',
      'gone.txt': 'bye\n',
      'old.txt': 'same content that is long enough to be detected as a rename\nline two\nline three\n',
    });
    const rootDiff = await commitDiff(repo, root);
    expect(rootDiff.map((d) => [d.new_path, d.new_file, d.a_mode, d.b_mode])).toEqual([
      ['gone.txt', true, null, '100644'],
      ['keep.txt', true, null, '100644'],
      ['old.txt', true, null, '100644'],
    ]);
    const sha = await repo.commit({
      branch: 'main',
      message: 'mixed',
      author: { name: 'A', email: 'a@x' },
      actions: [
        { action: 'update', file_path: 'keep.txt', content: Buffer.from('a\nB\nc\n') },
        { action: 'delete', file_path: 'gone.txt' },
        { action: 'move', file_path: 'new.txt', previous_path: 'old.txt' },
        { action: 'create', file_path: 'logo.bin', content: Buffer.from([0, 1, 2, 0, 255]) },
      ],
    });
    const diffs = await commitDiff(repo, sha);
    const byPath = new Map(diffs.map((d) => [d.new_path, d]));
    expect(byPath.get('keep.txt')).toEqual({
      diff: '@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n',
      old_path: 'keep.txt',
      new_path: 'keep.txt',
      a_mode: '100644',
      b_mode: '100644',
      new_file: false,
      renamed_file: false,
      deleted_file: false,
    });
    expect(byPath.get('gone.txt')).toMatchObject({ deleted_file: true, b_mode: '0', diff: '@@ -1 +0,0 @@\n-bye\n' });
    expect(byPath.get('new.txt')).toMatchObject({ old_path: 'old.txt', renamed_file: true, diff: '' });
    expect(byPath.get('logo.bin')).toMatchObject({
      new_file: true,
      diff: 'Binary files /dev/null and b/logo.bin differ\n',
    });
    expect(diffs).toHaveLength(4);
  });

  it('sends an empty diff string for a patch beyond the size limit', async () => {
    const repo = await newRepo();
    const big = `${'x'.repeat(80)}\n`;
    const sha = await write(repo, {
      'big.txt': big.repeat(Math.ceil(MAX_PATCH_BYTES / big.length) + 10),
      'small.txt': 's\n',
    });
    const diffs = await diffTrees(repo, null, sha);
    expect(diffs.find((d) => d.new_path === 'big.txt')?.diff).toBe('');
    expect(diffs.find((d) => d.new_path === 'small.txt')?.diff).toBe('@@ -0,0 +1 @@\n+s\n');
  });
});

describe('commitStats', () => {
  it('counts added and deleted lines against the first parent, for several commits at once', async () => {
    const repo = await newRepo();
    const first = await write(repo, { 'a.txt': '1\n2\n3\n' });
    const second = await write(repo, { 'a.txt': '1\nTWO\n3\n4\n', bin: Buffer.from([0, 0, 1]) });
    const stats = await commitStats(repo, [second, first]);
    expect(stats.get(first)).toEqual({ additions: 3, deletions: 0, total: 3 });
    expect(stats.get(second)).toEqual({ additions: 2, deletions: 1, total: 3 });
  });
});

describe('compareRefs', () => {
  it('compares through the merge base by default and directly when straight', async () => {
    const repo = await newRepo();
    const base = await write(repo, { 'shared.txt': 'base\n' });
    const f1 = await write(repo, { 'feature.txt': 'f1\n' }, { branch: 'feature', startRef: 'main' });
    const f2 = await write(repo, { 'feature.txt': 'f2\n' }, { branch: 'feature' });
    await write(repo, { 'main.txt': 'moved on\n' });

    const viaBase = await compareRefs(repo, 'main', 'feature', false);
    expect(viaBase.commits.map((c) => c.id)).toEqual([f1, f2]);
    expect(viaBase.commit?.id).toBe(f2);
    expect(viaBase.diffs.map((d) => d.new_path)).toEqual(['feature.txt']);
    expect(viaBase.compare_same_ref).toBe(false);
    expect(viaBase.compare_timeout).toBe(false);

    const straight = await compareRefs(repo, 'main', 'feature', true);
    expect(straight.commits.map((c) => c.id)).toEqual([f1, f2]);
    // Directly, main's own change shows up as removed on the way to feature.
    expect(straight.diffs.map((d) => [d.new_path, d.deleted_file])).toEqual([
      ['feature.txt', false],
      ['main.txt', true],
    ]);

    const same = await compareRefs(repo, 'feature', f2, false);
    expect(same).toMatchObject({ compare_same_ref: true, commit: null, commits: [], diffs: [] });
    const backwards = await compareRefs(repo, 'feature', base, true);
    expect(backwards.commits).toEqual([]);
    expect(backwards.diffs.map((d) => d.new_path)).toEqual(['feature.txt']);
  });

  it('is a 404 naming the unknown side', async () => {
    const repo = await newRepo();
    await write(repo, { 'a.txt': 'a' });
    const error = await compareRefs(repo, 'main', 'nope', false).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GitNotFoundError);
    expect((error as Error).message).toContain("to 'nope'");
  });
});
