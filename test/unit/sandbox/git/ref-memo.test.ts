// What a repository remembers of its refs: read once, forgotten by every command that may move a ref, never stale.
import { describe, expect, it } from 'vitest';
import { mayMoveRefs } from '../../../../src/sandbox/git/ref-memo.js';
import { useRepos, write } from './helpers.js';

const newRepo = useRepos();

describe('the refs a repository remembers', () => {
  it('tells reads from commands that may move a ref, counting an unknown command as a write', () => {
    for (const read of [
      ['for-each-ref', 'refs/heads/'],
      ['cat-file', '--batch-check'],
      ['symbolic-ref', '--short', 'HEAD'],
    ])
      expect(mayMoveRefs(read), read.join(' ')).toBe(false);
    for (const write of [
      ['update-ref', 'refs/heads/x', 'abc'],
      ['tag', '--annotate', 'v1'],
      ['fast-import', '--quiet'],
      ['symbolic-ref', 'HEAD', 'refs/heads/other'],
      ['some-new-command'],
    ])
      expect(mayMoveRefs(write), write.join(' ')).toBe(true);
  });

  it('sees every write at once: a branch made, moved and deleted, a tag, the default branch', async () => {
    const repo = await newRepo();
    expect(await repo.isEmpty()).toBe(true);
    const first = await write(repo, { 'a.txt': 'one' });
    expect(await repo.isEmpty()).toBe(false);
    expect(await repo.branchExists('topic')).toBe(false);
    await repo.run(['update-ref', 'refs/heads/topic', first]);
    expect(await repo.refTarget('refs/heads/topic')).toBe(first);
    const second = await write(repo, { 'a.txt': 'two' }, { branch: 'topic' });
    expect(await repo.resolveCommit('topic')).toBe(second);
    expect(await repo.resolveCommit(second)).toBe(second);
    await repo.run(['update-ref', '-d', 'refs/heads/topic']);
    expect(await repo.branchExists('topic')).toBe(false);
    // The commit only the deleted branch reached is no longer the project's.
    expect(await repo.resolveCommit(second)).toBeNull();
    await repo.createTag('v1', 'main', 'the first');
    expect(await repo.resolveCommit('v1')).toBe(first);
    expect(await repo.tagExists('v1')).toBe(true);
    expect(await repo.defaultBranch()).toBe('main');
    await repo.run(['symbolic-ref', 'HEAD', 'refs/heads/other']);
    expect(await repo.defaultBranch()).toBe('other');
  });

  it('does not keep what a read found while a write ran', async () => {
    const repo = await newRepo();
    const first = await write(repo, { 'a.txt': 'one' });
    // The read starts, then the branch is made before anyone reads again: the next read must see it.
    const before = repo.branchExists('late');
    await repo.run(['update-ref', 'refs/heads/late', first]);
    await before;
    expect(await repo.branchExists('late')).toBe(true);
  });
});
