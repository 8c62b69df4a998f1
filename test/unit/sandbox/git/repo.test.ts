// Tests of GitRepo: ref resolution, commit records, and commits made of every kind of file action.
import { describe, expect, it } from 'vitest';
import { GitActionError, GitNotFoundError } from '../../../../src/sandbox/git/errors.js';
import { applyToFiles, type FileAction, type GitRepo, type TreeFile } from '../../../../src/sandbox/git/repo.js';
import { useRepos } from './helpers.js';
import { rejectionOf } from '../../../helpers/rejection.js';

const author = { name: 'Ada Lovelace', email: 'ada@example.com', date: new Date('2024-03-01T10:00:00Z') };
const newRepo = useRepos();

const text = (value: string) => Buffer.from(value);

async function commitOn(repo: GitRepo, actions: FileAction[], extra: Partial<Parameters<GitRepo['commit']>[0]> = {}) {
  return repo.commit({ branch: 'main', message: 'change', author, actions, ...extra });
}

async function fileText(repo: GitRepo, ref: string, file: string): Promise<string> {
  return (await repo.run(['cat-file', 'blob', `${ref}:${file}`])).stdout.toString();
}

async function expectActionError(promise: Promise<unknown>, kind: string): Promise<GitActionError> {
  const error = await rejectionOf(promise, GitActionError);
  expect(error.kind).toBe(kind);
  return error;
}

describe('GitRepo.init and commit basics', () => {
  it('creates a root commit on an empty repository and reads it back', async () => {
    const repo = await newRepo();
    expect(await repo.isEmpty()).toBe(true);
    expect(await repo.defaultBranch()).toBe('main');
    const sha = await commitOn(repo, [{ action: 'create', file_path: 'README.md', content: text('# Hello\n') }], {
      message: 'Initial commit\n\nWith a body.',
    });
    expect(sha).toMatch(/^[0-9a-f]{40}$/);
    const commit = await repo.getCommit(sha);
    expect(commit).toMatchObject({
      id: sha,
      short_id: sha.slice(0, 8),
      title: 'Initial commit',
      message: 'Initial commit\n\nWith a body.',
      author_name: 'Ada Lovelace',
      author_email: 'ada@example.com',
      authored_date: '2024-03-01T10:00:00.000+00:00',
      committer_name: 'Ada Lovelace',
      committed_date: '2024-03-01T10:00:00.000+00:00',
      created_at: '2024-03-01T10:00:00.000+00:00',
      parent_ids: [],
    });
    expect(await fileText(repo, 'main', 'README.md')).toBe('# Hello\n');
    expect(await repo.isEmpty()).toBe(false);
  });

  it('resolves branches, tags, full and short SHAs, and returns null for unknown refs', async () => {
    const repo = await newRepo();
    const first = await commitOn(repo, [{ action: 'create', file_path: 'a.txt', content: text('a') }]);
    const second = await commitOn(repo, [{ action: 'update', file_path: 'a.txt', content: text('b') }]);
    await repo.createTag('v1.0', first, 'Release 1.0', author);
    await repo.createTag('light', second);
    expect(await repo.resolveCommit('main')).toBe(second);
    expect(await repo.resolveCommit('v1.0')).toBe(first);
    expect(await repo.resolveCommit('light')).toBe(second);
    expect(await repo.resolveCommit(first)).toBe(first);
    expect(await repo.resolveCommit(first.slice(0, 8))).toBe(first);
    expect(await repo.resolveCommit('nope')).toBeNull();
    expect(await repo.resolveCommit('--all')).toBeNull();
    expect(await repo.resolveCommit('main~1')).toBeNull();
    expect(await repo.tagExists('v1.0')).toBe(true);
    expect(await repo.tagExists('v2.0')).toBe(false);
    expect(await repo.branchExists('main')).toBe(true);
    expect((await repo.getCommit(second)).parent_ids).toEqual([first]);
    await expectActionError(repo.createTag('v1.0', second), 'ref_exists');
    await expectActionError(repo.createTag('bad..name', second), 'invalid_ref');
    await expect(repo.createTag('v3', 'missing-branch')).rejects.toBeInstanceOf(GitNotFoundError);
    await expect(repo.getCommit('f'.repeat(40))).rejects.toBeInstanceOf(GitNotFoundError);
  });

  it('prefers a branch over a tag of the same name', async () => {
    const repo = await newRepo();
    const first = await commitOn(repo, [{ action: 'create', file_path: 'a.txt', content: text('a') }]);
    await repo.createTag('same', first);
    const second = await commitOn(repo, [{ action: 'create', file_path: 'b.txt', content: text('b') }], {
      branch: 'same',
      startRef: 'main',
    });
    expect(await repo.resolveCommit('same')).toBe(second);
    expect(await repo.resolveCommit('refs/tags/same')).toBe(first);
  });
});

describe('GitRepo.commit actions', () => {
  it('applies create, update, delete, move and chmod in one commit, in order', async () => {
    const repo = await newRepo();
    await commitOn(repo, [
      { action: 'create', file_path: 'keep.txt', content: text('keep') },
      { action: 'create', file_path: 'old/name.txt', content: text('moving') },
      { action: 'create', file_path: 'gone.txt', content: text('bye') },
      { action: 'create', file_path: 'run.sh', content: text('#!/bin/sh\n') },
    ]);
    const sha = await commitOn(repo, [
      { action: 'update', file_path: 'keep.txt', content: text('kept, changed') },
      { action: 'delete', file_path: 'gone.txt' },
      { action: 'move', file_path: 'new/name.txt', previous_path: 'old/name.txt' },
      { action: 'chmod', file_path: 'run.sh', execute_filemode: true },
      { action: 'create', file_path: 'fresh.txt', content: text('new') },
      { action: 'update', file_path: 'fresh.txt', content: text('newer') },
    ]);
    const files = await repo.listFiles(sha);
    expect([...files.keys()].sort()).toEqual(['fresh.txt', 'keep.txt', 'new/name.txt', 'run.sh']);
    expect(files.get('run.sh')?.mode).toBe('100755');
    expect(files.get('keep.txt')?.mode).toBe('100644');
    expect(await fileText(repo, sha, 'new/name.txt')).toBe('moving');
    expect(await fileText(repo, sha, 'keep.txt')).toBe('kept, changed');
    expect(await fileText(repo, sha, 'fresh.txt')).toBe('newer');
  });

  it('moves with new content, and chmod back to not executable', async () => {
    const repo = await newRepo();
    await commitOn(repo, [{ action: 'create', file_path: 'a.sh', content: text('one') }]);
    await commitOn(repo, [{ action: 'chmod', file_path: 'a.sh', execute_filemode: true }]);
    const sha = await commitOn(repo, [
      { action: 'move', file_path: 'b.sh', previous_path: 'a.sh', content: text('two') },
      { action: 'chmod', file_path: 'b.sh', execute_filemode: false },
    ]);
    const files = await repo.listFiles(sha);
    expect([...files.keys()]).toEqual(['b.sh']);
    expect(files.get('b.sh')?.mode).toBe('100644');
    expect(await fileText(repo, sha, 'b.sh')).toBe('two');
  });

  it('stores binary content byte for byte', async () => {
    const repo = await newRepo();
    const bytes = Buffer.from([0, 255, 1, 254, 10, 13, 0, 128, 0x89, 0x50, 0x4e, 0x47]);
    const sha = await commitOn(repo, [{ action: 'create', file_path: 'img/logo.png', content: bytes }]);
    const { stdout } = await repo.run(['cat-file', 'blob', `${sha}:img/logo.png`]);
    expect(Buffer.compare(stdout, bytes)).toBe(0);
  });

  it('refuses a create on an existing file, a directory, or under a file', async () => {
    const repo = await newRepo();
    await commitOn(repo, [
      { action: 'create', file_path: 'a.txt', content: text('a') },
      { action: 'create', file_path: 'dir/b.txt', content: text('b') },
    ]);
    const exists = await expectActionError(
      commitOn(repo, [{ action: 'create', file_path: 'a.txt', content: text('x') }]),
      'file_exists',
    );
    expect(exists.message).toContain('A file with this name already exists');
    await expectActionError(
      commitOn(repo, [{ action: 'create', file_path: 'dir', content: text('x') }]),
      'directory_exists',
    );
    await expectActionError(
      commitOn(repo, [{ action: 'create', file_path: 'a.txt/c', content: text('x') }]),
      'file_exists',
    );
    await expectActionError(
      commitOn(repo, [{ action: 'move', file_path: 'a.txt', previous_path: 'dir/b.txt' }]),
      'file_exists',
    );
  });

  it('refuses update, delete, move and chmod of a missing file', async () => {
    const repo = await newRepo();
    await commitOn(repo, [{ action: 'create', file_path: 'a.txt', content: text('a') }]);
    for (const action of [
      { action: 'update', file_path: 'nope.txt', content: text('x') },
      { action: 'delete', file_path: 'nope.txt' },
      { action: 'move', file_path: 'b.txt', previous_path: 'nope.txt' },
      { action: 'chmod', file_path: 'nope.txt', execute_filemode: true },
    ] satisfies FileAction[]) {
      const error = await expectActionError(commitOn(repo, [action]), 'file_missing');
      expect(error.message).toContain("doesn't exist: nope.txt");
    }
  });

  it('refuses content identical to the current content', async () => {
    const repo = await newRepo();
    await commitOn(repo, [{ action: 'create', file_path: 'a.txt', content: text('same') }]);
    await expectActionError(
      commitOn(repo, [{ action: 'update', file_path: 'a.txt', content: text('same') }]),
      'identical',
    );
  });

  it('checks last_commit_id against the last commit touching the file', async () => {
    const repo = await newRepo();
    const created = await commitOn(repo, [{ action: 'create', file_path: 'a.txt', content: text('1') }]);
    const other = await commitOn(repo, [{ action: 'create', file_path: 'b.txt', content: text('1') }]);
    // Another file's commit does not count as a change of a.txt.
    const updated = await commitOn(repo, [
      { action: 'update', file_path: 'a.txt', content: text('2'), last_commit_id: created },
    ]);
    expect(updated).not.toBe(other);
    await expectActionError(
      commitOn(repo, [{ action: 'update', file_path: 'a.txt', content: text('3'), last_commit_id: created }]),
      'file_changed',
    );
    await expectActionError(
      commitOn(repo, [{ action: 'delete', file_path: 'a.txt', last_commit_id: other }]),
      'file_changed',
    );
    // A short SHA of the right commit is accepted.
    await commitOn(repo, [{ action: 'delete', file_path: 'a.txt', last_commit_id: updated.slice(0, 10) }]);
    expect((await repo.listFiles('main')).has('a.txt')).toBe(false);
  });

  it('refuses paths that climb out of the tree or touch .git', async () => {
    const repo = await newRepo();
    for (const filePath of ['a/../b', '../x', '/abs', 'a//b', '.git/config', 'dir/', '', 'a\nb']) {
      const error = await expectActionError(
        commitOn(repo, [{ action: 'create', file_path: filePath, content: text('x') }]),
        'invalid_path',
      );
      expect(error.message).toContain('actions[0][file_path]');
    }
  });

  it('refuses malformed actions, naming the field', async () => {
    const repo = await newRepo();
    const cases: [FileAction[], string][] = [
      [[{ action: 'create', file_path: 'a' }], 'actions[0][content]'],
      [[{ action: 'move', file_path: 'a' }], 'actions[0][previous_path]'],
      [[{ action: 'chmod', file_path: 'a' }], 'actions[0][execute_filemode]'],
      [[{ action: 'rename' as 'move', file_path: 'a' }], 'actions[0][action]'],
    ];
    for (const [actions, field] of cases) {
      const error = await expectActionError(commitOn(repo, actions), 'invalid_action');
      expect(error.message).toContain(field);
    }
  });

  it('leaves the branch where it was when an action fails', async () => {
    const repo = await newRepo();
    const first = await commitOn(repo, [{ action: 'create', file_path: 'a.txt', content: text('a') }]);
    await expectActionError(
      commitOn(repo, [
        { action: 'create', file_path: 'b.txt', content: text('b') },
        { action: 'delete', file_path: 'zzz' },
      ]),
      'file_missing',
    );
    expect(await repo.resolveCommit('main')).toBe(first);
  });
});

describe('GitRepo.commit branches', () => {
  it('needs a start ref to create a branch once the repository has commits', async () => {
    const repo = await newRepo();
    const first = await commitOn(repo, [{ action: 'create', file_path: 'a.txt', content: text('a') }]);
    await expectActionError(
      commitOn(repo, [{ action: 'create', file_path: 'b.txt', content: text('b') }], { branch: 'feature' }),
      'branch_missing',
    );
    const onFeature = await commitOn(repo, [{ action: 'create', file_path: 'b.txt', content: text('b') }], {
      branch: 'feature',
      startRef: 'main',
    });
    expect((await repo.getCommit(onFeature)).parent_ids).toEqual([first]);
    await expectActionError(
      commitOn(repo, [{ action: 'create', file_path: 'c.txt', content: text('c') }], {
        branch: 'other',
        startRef: 'no-such',
      }),
      'start_missing',
    );
  });

  it('refuses a start ref for an existing branch unless forced, and force rewrites the branch', async () => {
    const repo = await newRepo();
    const first = await commitOn(repo, [{ action: 'create', file_path: 'a.txt', content: text('a') }]);
    await commitOn(repo, [{ action: 'create', file_path: 'b.txt', content: text('b') }], {
      branch: 'feature',
      startRef: first,
    });
    const exists = await expectActionError(
      commitOn(repo, [{ action: 'create', file_path: 'c.txt', content: text('c') }], {
        branch: 'feature',
        startRef: 'main',
      }),
      'branch_exists',
    );
    expect(exists.message).toContain("A branch called 'feature' already exists");
    const forced = await commitOn(repo, [{ action: 'create', file_path: 'c.txt', content: text('c') }], {
      branch: 'feature',
      startRef: 'main',
      force: true,
    });
    expect((await repo.getCommit(forced)).parent_ids).toEqual([first]);
    expect([...(await repo.listFiles('feature')).keys()].sort()).toEqual(['a.txt', 'c.txt']);
    // Naming the branch itself as start ref is no conflict.
    await commitOn(repo, [{ action: 'create', file_path: 'd.txt', content: text('d') }], {
      branch: 'feature',
      startRef: 'feature',
    });
  });

  it('builds on a commit of another repository (start_project)', async () => {
    const upstream = await newRepo();
    const base = await commitOn(upstream, [{ action: 'create', file_path: 'up.txt', content: text('up') }]);
    const fork = await newRepo();
    const sha = await commitOn(fork, [{ action: 'create', file_path: 'fork.txt', content: text('f') }], {
      branch: 'main',
      startRef: 'main',
      startRepo: upstream,
    });
    expect((await fork.getCommit(sha)).parent_ids).toEqual([base]);
    expect([...(await fork.listFiles(sha)).keys()].sort()).toEqual(['fork.txt', 'up.txt']);
  });

  it('serializes concurrent commits so none is lost', async () => {
    const repo = await newRepo();
    await commitOn(repo, [{ action: 'create', file_path: 'seed.txt', content: text('s') }]);
    const shas = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        commitOn(repo, [{ action: 'create', file_path: `f${i}.txt`, content: text(String(i)) }]),
      ),
    );
    expect(new Set(shas).size).toBe(8);
    const files = await repo.listFiles('main');
    expect(files.size).toBe(9);
    const count = await repo.text(['rev-list', '--count', 'main']);
    expect(count).toBe('9');
  });

  it('refuses an invalid branch name and an empty author name', async () => {
    const repo = await newRepo();
    await expectActionError(
      commitOn(repo, [{ action: 'create', file_path: 'a', content: text('a') }], { branch: 'bad..branch' }),
      'invalid_ref',
    );
    await expectActionError(
      commitOn(repo, [{ action: 'create', file_path: 'a', content: text('a') }], {
        author: { name: '<>', email: 'x@y' },
      }),
      'invalid_action',
    );
  });
});

describe('directory checks of applyToFiles', () => {
  it('does not scan every file of the tree for each created file (n creates are not n² work)', () => {
    // Counts full scans of the file map: one to learn its directories is fine, one per action is not.
    class ScanCountingMap extends Map<string, TreeFile> {
      scans = 0;
      override keys(): MapIterator<string> {
        this.scans += 1;
        return super.keys();
      }
    }
    const files = new ScanCountingMap();
    for (let i = 0; i < 50; i++) files.set(`old/f${i}`, { mode: '100644', oid: 'a'.repeat(40) });
    for (let i = 0; i < 50; i++) applyToFiles(files, { action: 'create', file_path: `new/f${i}` }, 'b'.repeat(40));
    expect(files.size).toBe(100);
    expect(files.scans).toBeLessThanOrEqual(1);
  });

  it('keeps knowing which directories exist as files are created, deleted and moved in one commit', async () => {
    const repo = await newRepo();
    await commitOn(repo, [
      { action: 'create', file_path: 'd/x.txt', content: text('x') },
      { action: 'create', file_path: 'd/y.txt', content: text('y') },
    ]);
    // d still holds y.txt after x.txt moved away, and the new e/ is a directory as soon as it is made.
    await expectActionError(
      commitOn(repo, [
        { action: 'move', file_path: 'e/x.txt', previous_path: 'd/x.txt' },
        { action: 'create', file_path: 'd', content: text('file') },
      ]),
      'directory_exists',
    );
    await expectActionError(
      commitOn(repo, [
        { action: 'create', file_path: 'e/deep/z.txt', content: text('z') },
        { action: 'create', file_path: 'e/deep', content: text('file') },
      ]),
      'directory_exists',
    );
    // Once every file below d/ is gone, d may become a file.
    const sha = await commitOn(repo, [
      { action: 'move', file_path: 'e/x.txt', previous_path: 'd/x.txt' },
      { action: 'delete', file_path: 'd/y.txt' },
      { action: 'create', file_path: 'd', content: text('now a file') },
    ]);
    expect(await fileText(repo, sha, 'd')).toBe('now a file');
    expect(await fileText(repo, sha, 'e/x.txt')).toBe('x');
  });
});
