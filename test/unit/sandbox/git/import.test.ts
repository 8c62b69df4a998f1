// Tests of importHistory: the same history as commit() would write, byte for byte, in one fast-import run.
import { describe, expect, it } from 'vitest';
import { GitActionError } from '../../../../src/sandbox/git/errors.js';
import { importHistory, type ImportCommit } from '../../../../src/sandbox/git/import.js';
import { ada, grace, useRepos } from './helpers.js';

const newRepo = useRepos();
const at = (iso: string) => new Date(iso);
const text = (value: string) => Buffer.from(value);

const HISTORY: ImportCommit[] = [
  {
    branch: 'main',
    message: 'Initial commit\n',
    author: { ...ada, date: at('2024-01-01T09:00:00Z') },
    actions: [
      { action: 'create', file_path: 'README.md', content: text('# Demo\n') },
      { action: 'create', file_path: 'src/a "quoted" name.ts', content: text('export {};\n') },
      { action: 'create', file_path: 'bin/run', content: Buffer.from([0, 1, 2]) },
    ],
    tag: { name: 'v0.1.0', message: 'First' },
  },
  {
    branch: 'feature/x',
    startRef: 'main',
    message: 'Feature',
    author: { ...grace, date: at('2024-01-02T09:00:00Z') },
    actions: [
      { action: 'move', file_path: 'src/renamed.ts', previous_path: 'src/a "quoted" name.ts' },
      { action: 'chmod', file_path: 'bin/run', execute_filemode: true },
    ],
  },
  {
    branch: 'main',
    message: 'Update readme',
    author: { ...ada, date: at('2024-01-03T09:00:00Z') },
    committer: { ...grace, date: at('2024-01-03T10:00:00Z') },
    actions: [
      { action: 'update', file_path: 'README.md', content: text('# Demo\n\nMore.\n') },
      { action: 'delete', file_path: 'bin/run' },
    ],
    tag: { name: 'light' },
  },
];

describe('importHistory', () => {
  it('writes exactly the commits commit() writes, with branches and tags', async () => {
    const imported = await newRepo();
    const importedShas = await importHistory(imported, HISTORY);

    const oneByOne = await newRepo();
    const committedShas: string[] = [];
    for (const commit of HISTORY) {
      const sha = await oneByOne.commit(commit);
      committedShas.push(sha);
      if (commit.tag) await oneByOne.createTag(commit.tag.name, sha, commit.tag.message, commit.committer ?? commit.author);
    }

    expect(importedShas).toEqual(committedShas);
    expect(await imported.resolveCommit('main')).toBe(committedShas[2]);
    expect(await imported.resolveCommit('feature/x')).toBe(committedShas[1]);
    expect(await imported.resolveCommit('v0.1.0')).toBe(committedShas[0]);
    expect(await imported.resolveCommit('light')).toBe(committedShas[2]);
    expect(await imported.text(['cat-file', '-t', 'refs/tags/v0.1.0'])).toBe('tag');
    expect(await imported.text(['cat-file', '-t', 'refs/tags/light'])).toBe('commit');
    expect((await imported.listFiles('feature/x')).get('bin/run')?.mode).toBe('100755');
  });

  it('continues an existing history and refuses what commit() refuses, writing nothing then', async () => {
    const repo = await newRepo();
    const [first] = await importHistory(repo, HISTORY.slice(0, 1));
    const [second] = await importHistory(repo, [
      { branch: 'main', message: 'More', author: ada, actions: [{ action: 'create', file_path: 'more.txt', content: text('m') }] },
    ]);
    expect((await repo.getCommit(second)).parent_ids).toEqual([first]);

    const refusals: [ImportCommit[], string][] = [
      [[{ branch: 'main', message: 'm', author: ada, actions: [{ action: 'create', file_path: 'more.txt', content: text('x') }] }], 'file_exists'],
      [[{ branch: 'other', message: 'm', author: ada, actions: [{ action: 'create', file_path: 'o.txt', content: text('x') }] }], 'branch_missing'],
      [[{ branch: 'main', startRef: 'v0.1.0', message: 'm', author: ada, actions: [{ action: 'create', file_path: 'o.txt', content: text('x') }] }], 'branch_exists'],
      [[{ branch: 'b', startRef: 'nope', message: 'm', author: ada, actions: [{ action: 'create', file_path: 'o.txt', content: text('x') }] }], 'start_missing'],
      [[{ branch: 'main', message: 'm', author: ada, actions: [{ action: 'delete', file_path: 'more.txt', last_commit_id: second }] }], 'invalid_action'],
      [
        [
          { branch: 'main', message: 'ok', author: ada, actions: [{ action: 'create', file_path: 'fine.txt', content: text('x') }] },
          { branch: 'main', message: 'm', author: ada, actions: [{ action: 'create', file_path: 'x', content: text('x') }], tag: { name: 'v0.1.0' } },
        ],
        'ref_exists',
      ],
    ];
    for (const [history, kind] of refusals) {
      const error = await importHistory(repo, history).catch((caught: unknown) => caught);
      expect(error, kind).toBeInstanceOf(GitActionError);
      expect((error as GitActionError).kind).toBe(kind);
      expect(await repo.resolveCommit('main'), kind).toBe(second);
    }
  });
});
