// Tests of cherry-pick and revert onto a branch: success, empty changes and conflicts.
import { describe, expect, it } from 'vitest';
import { GitActionError, GitNotFoundError } from '../../../../src/sandbox/git/errors.js';
import { pickCommit } from '../../../../src/sandbox/git/pick.js';
import { ada, grace, merge, useRepos, write } from './helpers.js';
import { rejectionOf } from '../../../helpers/rejection.js';

const newRepo = useRepos();

const refusal = (promise: Promise<unknown>) => rejectionOf(promise, GitActionError);

async function content(repo: Awaited<ReturnType<typeof newRepo>>, ref: string, file: string): Promise<string> {
  return (await repo.run(['cat-file', 'blob', `${ref}:${file}`])).stdout.toString();
}

describe('cherry-pick', () => {
  it('applies a commit of another branch, keeping its author and naming its origin', async () => {
    const repo = await newRepo();
    await write(repo, { 'a.txt': '1\n2\n3\n' });
    const picked = await write(
      repo,
      { 'a.txt': '1\n2\nthree\n', 'new.txt': 'n\n' },
      { branch: 'feature', startRef: 'main', author: grace, message: 'Fix three' },
    );
    const tip = await write(repo, { 'a.txt': 'one\n2\n3\n' });
    const sha = await pickCommit(repo, 'cherry_pick', picked, 'main', ada);
    const commit = await repo.getCommit(sha!);
    expect(commit.parent_ids).toEqual([tip]);
    expect(commit.message).toBe(`Fix three\n\n(cherry picked from commit ${picked})`);
    expect(commit).toMatchObject({ author_name: 'Grace Hopper', committer_name: 'Ada Lovelace' });
    expect(await repo.resolveCommit('main')).toBe(sha);
    expect(await content(repo, 'main', 'a.txt')).toBe('one\n2\nthree\n');
    expect(await content(repo, 'main', 'new.txt')).toBe('n\n');
    // The worktree used for the merge is gone again.
    expect(await repo.text(['worktree', 'list', '--porcelain'])).not.toContain('sandbox-worktree');
  });

  it('refuses a commit already on the branch as empty', async () => {
    const repo = await newRepo();
    await write(repo, { 'a.txt': '1' });
    const second = await write(repo, { 'a.txt': '2' });
    const error = await refusal(pickCommit(repo, 'cherry_pick', second, 'main', ada));
    expect(error.kind).toBe('empty');
    expect(error.message).toContain('cannot cherry-pick this commit automatically');
    expect(await repo.resolveCommit('main')).toBe(second);
  });

  it('refuses a conflicting commit and leaves the branch alone', async () => {
    const repo = await newRepo();
    await write(repo, { 'a.txt': 'base\n' });
    const theirs = await write(repo, { 'a.txt': 'theirs\n' }, { branch: 'feature', startRef: 'main' });
    const ours = await write(repo, { 'a.txt': 'ours\n' });
    const error = await refusal(pickCommit(repo, 'cherry_pick', theirs, 'main', ada));
    expect(error.kind).toBe('conflict');
    expect(await repo.resolveCommit('main')).toBe(ours);
    expect(await repo.text(['worktree', 'list', '--porcelain'])).not.toContain('sandbox-worktree');
  });

  it('picks a merge commit against its first parent', async () => {
    const repo = await newRepo();
    await write(repo, { 'a.txt': 'a\n' });
    await write(repo, { 'f.txt': 'f\n' }, { branch: 'feature', startRef: 'main' });
    await write(repo, { 'b.txt': 'b\n' }, { branch: 'target', startRef: 'main' });
    const mergeSha = await merge(repo, 'main', 'feature');
    const sha = await pickCommit(repo, 'cherry_pick', mergeSha, 'target', ada);
    expect([...(await repo.listFiles(sha!)).keys()].sort()).toEqual(['a.txt', 'b.txt', 'f.txt']);
  });

  it('is a 404 for an unknown branch or commit', async () => {
    const repo = await newRepo();
    const sha = await write(repo, { 'a.txt': '1' });
    await expect(pickCommit(repo, 'cherry_pick', sha, 'nope', ada)).rejects.toThrow('404 Branch Not Found');
    await expect(pickCommit(repo, 'cherry_pick', 'e'.repeat(40), 'main', ada)).rejects.toBeInstanceOf(GitNotFoundError);
  });
});

describe('revert', () => {
  it('undoes a commit with the user as author, then refuses to do it twice', async () => {
    const repo = await newRepo();
    await write(repo, { 'a.txt': '1\n' });
    const change = await write(
      repo,
      { 'a.txt': '2\n', 'b.txt': 'b\n' },
      { author: grace, message: 'Change a and add b' },
    );
    const sha = await pickCommit(repo, 'revert', change, 'main', ada);
    const commit = await repo.getCommit(sha!);
    expect(commit.message).toBe(`Revert "Change a and add b"\n\nThis reverts commit ${change}`);
    expect(commit).toMatchObject({ author_name: 'Ada Lovelace', committer_name: 'Ada Lovelace', parent_ids: [change] });
    expect(await content(repo, 'main', 'a.txt')).toBe('1\n');
    expect((await repo.listFiles('main')).has('b.txt')).toBe(false);
    const again = await refusal(pickCommit(repo, 'revert', change, 'main', ada));
    expect(again.kind).toBe('empty');
    expect(again.message).toContain('cannot revert this commit automatically');
  });

  it('refuses a revert that conflicts with later changes', async () => {
    const repo = await newRepo();
    await write(repo, { 'a.txt': '1\n' });
    const change = await write(repo, { 'a.txt': '2\n' });
    await write(repo, { 'a.txt': '3\n' });
    expect((await refusal(pickCommit(repo, 'revert', change, 'main', ada))).kind).toBe('conflict');
  });
});
