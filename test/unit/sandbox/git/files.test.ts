// Tests of reading a repository at a ref: file metadata, blame ranges, trees and blobs.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { GitNotFoundError } from '../../../../src/sandbox/git/errors.js';
import { blame, listTree, readBlob, readFile } from '../../../../src/sandbox/git/files.js';
import { ada, grace, useRepos, write } from './helpers.js';

const newRepo = useRepos();

describe('readFile', () => {
  it('returns content, digest, blob id, commit and last commit touching the file', async () => {
    const repo = await newRepo();
    const first = await write(repo, { 'src/app.ts': 'export {};\n', 'README.md': 'hi' });
    const second = await write(repo, { 'README.md': 'hello' });
    const file = await readFile(repo, 'main', 'src/app.ts');
    expect(file).toMatchObject({
      file_name: 'app.ts',
      file_path: 'src/app.ts',
      size: 11,
      ref: 'main',
      commit_id: second,
      last_commit_id: first,
      execute_filemode: false,
      content_sha256: createHash('sha256').update('export {};\n').digest('hex'),
    });
    expect(file.content.toString()).toBe('export {};\n');
    expect(file.blob_id).toBe(await repo.text(['rev-parse', `${second}:src/app.ts`]));
    expect((await readFile(repo, first.slice(0, 8), 'README.md')).content.toString()).toBe('hi');
    expect((await readFile(repo, 'main', 'README.md')).last_commit_id).toBe(second);
  });

  it('is a 404 for a missing file, a directory, a bad path or an unknown ref', async () => {
    const repo = await newRepo();
    await write(repo, { 'src/app.ts': 'x' });
    for (const [ref, filePath, message] of [
      ['main', 'nope.txt', '404 File Not Found'],
      ['main', 'src', '404 File Not Found'],
      ['main', '../etc/passwd', '404 File Not Found'],
      ['no-such-branch', 'src/app.ts', '404 Commit Not Found'],
    ]) {
      const error = await readFile(repo, ref, filePath).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(GitNotFoundError);
      expect((error as Error).message).toBe(message);
    }
  });
});

describe('blame', () => {
  it('groups consecutive lines by the commit that last changed them', async () => {
    const repo = await newRepo();
    const first = await write(repo, { 'a.txt': 'one\ntwo\nthree\nfour\n' }, { author: ada, message: 'First\n\nbody' });
    const second = await write(repo, { 'a.txt': 'one\nTWO\nTHREE\nfour\n' }, { author: grace });
    const ranges = await blame(repo, 'main', 'a.txt');
    expect(ranges.map((range) => [range.commit.id, range.lines])).toEqual([
      [first, ['one']],
      [second, ['TWO', 'THREE']],
      [first, ['four']],
    ]);
    expect(ranges[0].commit).toMatchObject({ author_name: 'Ada Lovelace', message: 'First\n\nbody', parent_ids: [] });
    expect(ranges[1].commit).toMatchObject({ author_email: 'grace@example.com', parent_ids: [first] });
    expect(Object.keys(ranges[1].commit).sort()).toEqual([
      'author_email',
      'author_name',
      'authored_date',
      'committed_date',
      'committer_email',
      'committer_name',
      'id',
      'message',
      'parent_ids',
    ]);
    await expect(blame(repo, 'main', 'missing.txt')).rejects.toThrow('404 File Not Found');
  });
});

describe('listTree', () => {
  it('lists one level with directories first, a sub path, and everything recursively', async () => {
    const repo = await newRepo();
    await write(repo, { 'z.txt': 'z', 'a.txt': 'a', 'src/main.ts': 'm', 'src/lib/util.ts': 'u', 'docs/x.md': 'x' });
    const root = await listTree(repo, 'main', '', false);
    expect(root.map((e) => [e.type, e.path])).toEqual([
      ['tree', 'docs'],
      ['tree', 'src'],
      ['blob', 'a.txt'],
      ['blob', 'z.txt'],
    ]);
    expect(root[0].mode).toBe('040000');
    expect(root[2]).toMatchObject({ name: 'a.txt', mode: '100644' });
    expect(root[2].id).toMatch(/^[0-9a-f]{40}$/);
    const src = await listTree(repo, 'main', 'src', false);
    expect(src.map((e) => [e.name, e.path])).toEqual([
      ['lib', 'src/lib'],
      ['main.ts', 'src/main.ts'],
    ]);
    const all = await listTree(repo, 'main', 'src', true);
    expect(all.map((e) => e.path)).toEqual(['src/lib', 'src/lib/util.ts', 'src/main.ts']);
    await expect(listTree(repo, 'main', 'nope', false)).rejects.toThrow('404 Tree Not Found');
    await expect(listTree(repo, 'main', 'a.txt', false)).rejects.toThrow('404 Tree Not Found');
    await expect(listTree(repo, 'nope', '', false)).rejects.toThrow('404 Tree Not Found');
  });
});

describe('readBlob', () => {
  it('reads a blob by full or short SHA and refuses other objects', async () => {
    const repo = await newRepo();
    const bytes = Buffer.from([0, 1, 2, 255]);
    const sha = await write(repo, { 'bin.dat': bytes });
    const file = await readFile(repo, 'main', 'bin.dat');
    const blob = await readBlob(repo, file.blob_id.slice(0, 10));
    expect(blob.sha).toBe(file.blob_id);
    expect(blob.size).toBe(4);
    expect(Buffer.compare(blob.content, bytes)).toBe(0);
    await expect(readBlob(repo, sha)).rejects.toThrow('404 Blob Not Found');
    await expect(readBlob(repo, 'main')).rejects.toThrow('404 Blob Not Found');
  });
});
