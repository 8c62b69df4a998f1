// Tests of history walks: commit lists and their filters, contributors, merge bases and refs containing a commit.
import { describe, expect, it } from 'vitest';
import { GitNotFoundError } from '../../../../src/sandbox/git/errors.js';
import { contributors, listCommits, mergeBase, refsContaining } from '../../../../src/sandbox/git/history.js';
import { ada, grace, merge, useRepos, write } from './helpers.js';

const newRepo = useRepos();
const ids = (commits: { id: string }[]) => commits.map((c) => c.id);

describe('listCommits', () => {
  it('filters by ref, range, inclusive dates, path, all and first parent, and orders topologically', async () => {
    const repo = await newRepo();
    const c1 = await write(repo, { 'a.txt': '1' }, { date: '2024-01-01T00:00:00Z' });
    const c2 = await write(repo, { 'b.txt': '1' }, { date: '2024-01-02T00:00:00Z' });
    const f1 = await write(
      repo,
      { 'f.txt': '1' },
      { branch: 'feature', startRef: 'main', date: '2024-01-03T00:00:00Z' },
    );
    const c3 = await write(repo, { 'a.txt': '2' }, { date: '2024-01-04T00:00:00Z' });
    const m = await merge(repo, 'main', 'feature');
    const lonely = await write(repo, { 'x.txt': '1' }, { branch: 'side', startRef: c1, date: '2024-01-05T00:00:00Z' });

    expect(await repo.defaultBranch()).toBe('main');
    const all = await listCommits(repo);
    expect(new Set(ids(all))).toEqual(new Set([m, c3, f1, c2, c1]));
    expect(all[0].id).toBe(m);
    expect(ids(await listCommits(repo, { ref: 'feature' }))).toEqual([f1, c2, c1]);
    expect(ids(await listCommits(repo, { ref: 'feature..main' }))).toEqual([m, c3]);
    expect(new Set(ids(await listCommits(repo, { ref: 'side...feature' })))).toEqual(new Set([lonely, f1, c2]));
    expect(ids(await listCommits(repo, { ref: 'main', firstParent: true }))).toEqual([m, c3, c2, c1]);
    expect(ids(await listCommits(repo, { ref: 'main', path: 'a.txt' }))).toEqual([c3, c1]);
    expect(ids(await listCommits(repo, { all: true }))).toContain(lonely);

    // Inclusive on both ends (the merge was committed now, so it is outside).
    const window = await listCommits(repo, {
      since: new Date('2024-01-02T00:00:00Z'),
      until: new Date('2024-01-04T00:00:00Z'),
    });
    expect(ids(window)).toEqual([c3, f1, c2]);

    const topo = ids(await listCommits(repo, { order: 'topo' }));
    expect(topo[0]).toBe(m);
    expect(topo.indexOf(c3)).toBeLessThan(topo.indexOf(c2));
    expect(topo.indexOf(f1)).toBeLessThan(topo.indexOf(c2));
    await expect(listCommits(repo, { ref: 'nope' })).rejects.toBeInstanceOf(GitNotFoundError);
    await expect(listCommits(repo, { ref: 'main..nope' })).rejects.toThrow("'nope'");
  });

  it('lists nothing for an empty repository', async () => {
    const repo = await newRepo();
    expect(await listCommits(repo)).toEqual([]);
  });
});

describe('contributors', () => {
  it('groups by e-mail and orders by commits, name or email in both directions', async () => {
    const repo = await newRepo();
    await write(repo, { 'a.txt': '1\n2\n' }, { author: grace });
    await write(repo, { 'a.txt': '1\n' }, { author: ada });
    await write(repo, { 'b.txt': 'x\n' }, { author: ada });
    await write(repo, { 'c.txt': 'y\n' }, { author: { name: 'Ada Byron', email: 'ADA@example.com' } });
    await write(repo, { 'd.txt': 'z\n' }, { author: { name: 'Zed', email: 'aaa@example.com' } });

    const byCommits = await contributors(repo);
    expect(byCommits.map((c) => [c.name, c.commits])).toEqual([
      ['Grace Hopper', 1],
      ['Zed', 1],
      ['Ada Byron', 3],
    ]);
    expect(byCommits[2]).toEqual({
      name: 'Ada Byron',
      email: 'ADA@example.com',
      commits: 3,
      additions: 2,
      deletions: 1,
    });
    expect(byCommits[0]).toMatchObject({ name: 'Grace Hopper', additions: 2, deletions: 0 });
    expect((await contributors(repo, { sort: 'desc' })).map((c) => c.name)).toEqual([
      'Ada Byron',
      'Grace Hopper',
      'Zed',
    ]);
    expect((await contributors(repo, { orderBy: 'name' })).map((c) => c.name)).toEqual([
      'Ada Byron',
      'Grace Hopper',
      'Zed',
    ]);
    expect((await contributors(repo, { orderBy: 'email', sort: 'desc' })).map((c) => c.email)).toEqual([
      'grace@example.com',
      'ADA@example.com',
      'aaa@example.com',
    ]);
  });
});

describe('mergeBase', () => {
  it('finds the common ancestor of three refs and reports unknown ones', async () => {
    const repo = await newRepo();
    const root = await write(repo, { 'a.txt': '1' });
    const fork = await write(repo, { 'a.txt': '2' });
    await write(repo, { 'b.txt': '1' }, { branch: 'one', startRef: fork });
    await write(repo, { 'c.txt': '1' }, { branch: 'two', startRef: fork });
    await write(repo, { 'd.txt': '1' }, { branch: 'three', startRef: root });
    expect(await mergeBase(repo, ['one', 'two'])).toBe(fork);
    expect(await mergeBase(repo, ['one', 'two', 'three'])).toBe(root);
    await repo.createTag('v1', 'one');
    expect(await mergeBase(repo, ['v1', fork.slice(0, 8)])).toBe(fork);
    await expect(mergeBase(repo, ['one', 'nope'])).rejects.toThrow('Could not find ref: nope');
  });
});

describe('refsContaining', () => {
  it('lists branches and tags whose history holds the commit, filtered by type', async () => {
    const repo = await newRepo();
    const first = await write(repo, { 'a.txt': '1' });
    await write(repo, { 'b.txt': '1' }, { branch: 'feature', startRef: 'main' });
    const second = await write(repo, { 'a.txt': '2' });
    await repo.createTag('v1', first, 'one');
    await repo.createTag('v2', second);
    expect(await refsContaining(repo, first, 'all')).toEqual([
      { type: 'branch', name: 'feature' },
      { type: 'branch', name: 'main' },
      { type: 'tag', name: 'v1' },
      { type: 'tag', name: 'v2' },
    ]);
    expect(await refsContaining(repo, second, 'branch')).toEqual([{ type: 'branch', name: 'main' }]);
    expect(await refsContaining(repo, second, 'tag')).toEqual([{ type: 'tag', name: 'v2' }]);
  });
});
