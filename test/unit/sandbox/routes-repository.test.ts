// Route tests of repository browsing over HTTP: tree, blobs, archives, compare, contributors and merge base.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { PAYMENTS, useSandbox, WEB } from './routes-git-helpers.js';

const { call, sandbox } = useSandbox();
const repoPath = (project: string, rest: string) => `/projects/${project}/repository/${rest}`;
const run = promisify(execFile);

async function commitFiles(branch: string, files: Record<string, string>, startBranch?: string) {
  const answer = await call('POST', repoPath(WEB, 'commits'), {
    json: {
      branch,
      ...(startBranch ? { start_branch: startBranch } : {}),
      commit_message: `Touch ${Object.keys(files).join(', ')}`,
      actions: Object.entries(files).map(([file_path, content]) => ({ action: 'create', file_path, content })),
    },
  });
  expect(answer.status).toBe(201);
  return answer.data.id as string;
}

describe('tree', () => {
  it('lists the root with directories first, a path, recursively, and paginates', async () => {
    await commitFiles('tree-test', { 'zz/a.txt': 'a', 'zz/sub/b.txt': 'b', 'zz/sub/c.txt': 'c' }, 'main');
    const root = await call('GET', repoPath(WEB, 'tree'), {
      as: 'anonymous',
      query: { ref: 'tree-test', per_page: '100' },
    });
    expect(root.status).toBe(200);
    const types = root.data.map((entry: { type: string }) => entry.type);
    expect(types.indexOf('blob')).toBeGreaterThan(types.lastIndexOf('tree'));
    expect(Object.keys(root.data[0]).sort()).toEqual(['id', 'mode', 'name', 'path', 'type']);

    const sub = await call('GET', repoPath(WEB, 'tree'), {
      query: { ref: 'tree-test', path: 'zz', recursive: 'true' },
    });
    expect(sub.data.map((e: { path: string }) => e.path)).toEqual([
      'zz/a.txt',
      'zz/sub',
      'zz/sub/b.txt',
      'zz/sub/c.txt',
    ]);
    const paged = await call('GET', repoPath(WEB, 'tree'), {
      query: { ref: 'tree-test', path: 'zz', recursive: 'true', per_page: '3', page: '2' },
    });
    expect(paged.data.map((e: { path: string }) => e.path)).toEqual(['zz/sub/c.txt']);
    expect(paged.headers.get('x-total')).toBe('4');
    expect(paged.headers.get('x-page')).toBe('2');

    const defaultRef = await call('GET', repoPath(WEB, 'tree'), { query: { path: 'zz' } });
    expect(defaultRef.status).toBe(404);
    expect(defaultRef.data).toEqual({ message: '404 Tree Not Found' });
    expect((await call('GET', repoPath(WEB, 'tree'), { query: { recursive: 'maybe' } })).data).toEqual({
      error: 'recursive does not have a valid value',
    });
  });
});

describe('blobs', () => {
  it('returns a blob record and its raw bytes, 404 for other SHAs', async () => {
    const sha = await commitFiles('blob-test', { 'blob.txt': 'blob body\n' }, 'main');
    const file = await call('GET', `/projects/${WEB}/repository/files/blob.txt`, { query: { ref: 'blob-test' } });
    const blob = await call('GET', repoPath(WEB, `blobs/${file.data.blob_id}`), { as: 'anonymous' });
    expect(blob.status).toBe(200);
    expect(blob.data).toMatchObject({
      size: 10,
      encoding: 'base64',
      content: Buffer.from('blob body\n').toString('base64'),
    });
    const raw = await call('GET', repoPath(WEB, `blobs/${file.data.blob_id}/raw`));
    expect(raw.body.toString()).toBe('blob body\n');
    expect(raw.headers.get('content-type')).toContain('text/plain');
    expect((await call('GET', repoPath(WEB, `blobs/${sha}`))).status).toBe(404);
    expect((await call('GET', repoPath(PAYMENTS, `blobs/${file.data.blob_id}`), { as: 'outsider' })).data).toEqual({
      message: '404 Project Not Found',
    });
  });
});

describe('archive', () => {
  it('serves every format with a content type and file name, and refuses unknown ones', async () => {
    const scratch = await mkdtemp(path.join(tmpdir(), 'forgeops-route-archive-'));
    try {
      const sha = await sandbox().store.findProject('acme/web')!.repo.resolveCommit('main');
      const plain = await call('GET', repoPath(WEB, 'archive'), { as: 'anonymous' });
      expect(plain.status).toBe(200);
      expect(plain.headers.get('content-type')).toBe('application/gzip');
      expect(plain.headers.get('content-disposition')).toBe(`attachment; filename="web-main-${sha}.tar.gz"`);
      expect(plain.body.subarray(0, 2).equals(Buffer.from([0x1f, 0x8b]))).toBe(true);

      for (const [suffix, magic] of [
        ['zip', 'PK'],
        ['tar.bz2', 'BZh'],
        ['tbz', 'BZh'],
        ['tbz2', 'BZh'],
        ['tb2', 'BZh'],
        ['bz2', 'BZh'],
      ]) {
        const answer = await call('GET', repoPath(WEB, `archive.${suffix}`), { query: { sha: 'v1.0.0' } });
        expect(answer.status, suffix).toBe(200);
        expect(answer.body.subarray(0, magic.length).toString('latin1'), suffix).toBe(magic);
        expect(answer.headers.get('content-disposition'), suffix).toMatch(
          new RegExp(`filename="web-v1\\.0\\.0-[0-9a-f]{40}\\.${suffix.replace('.', '\\.')}"`),
        );
      }
      const tar = await call('GET', repoPath(WEB, 'archive.tar'), { query: { sha: 'feature/dark-mode' } });
      expect(tar.headers.get('content-type')).toBe('application/x-tar');
      const tarFile = path.join(scratch, 'a.tar');
      await writeFile(tarFile, tar.body);
      const { stdout } = await run('tar', ['-tf', tarFile]);
      expect(stdout).toMatch(/^web-feature-dark-mode-[0-9a-f]{40}\/src\/theme\/dark\.ts$/m);

      const unknown = await call('GET', repoPath(WEB, 'archive.rar'));
      expect(unknown.status).toBe(400);
      expect(unknown.data.error).toContain('format does not have a valid value');
      expect((await call('GET', repoPath(WEB, 'archive.zip'), { query: { sha: 'nope' } })).data).toEqual({
        message: '404 Ref Not Found',
      });
      expect((await call('GET', repoPath(PAYMENTS, 'archive'), { as: 'anonymous' })).status).toBe(404);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  });
});

describe('archive of a path, as the vendor serves it', () => {
  it('holds only that subdirectory, is named after it, and a path the commit lacks is a 404', async () => {
    const scratch = await mkdtemp(path.join(tmpdir(), 'forgeops-route-archive-path-'));
    try {
      const tar = await call('GET', repoPath(WEB, 'archive.tar'), {
        query: { sha: 'feature/dark-mode', path: 'src/theme' },
      });
      expect(tar.status).toBe(200);
      expect(tar.headers.get('content-disposition')).toMatch(
        /filename="web-feature-dark-mode-[0-9a-f]{40}-src-theme\.tar"/,
      );
      const tarFile = path.join(scratch, 'a.tar');
      await writeFile(tarFile, tar.body);
      const files = (await run('tar', ['-tf', tarFile])).stdout
        .split('\n')
        .filter((line) => line && !line.endsWith('/'));
      expect(files.length).toBeGreaterThan(0);
      expect(files.every((file) => /^web-feature-dark-mode-[0-9a-f]{40}-src-theme\/src\/theme\//.test(file))).toBe(
        true,
      );
      expect(files.some((file) => file.endsWith('/src/theme/dark.ts'))).toBe(true);
      const missing = await call('GET', repoPath(WEB, 'archive.tar'), { query: { path: 'no/such/dir' } });
      expect({ status: missing.status, data: missing.data }).toEqual({
        status: 404,
        data: { message: '404 File Not Found' },
      });
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  });
});

describe('compare', () => {
  it('compares through the merge base by default and directly with straight', async () => {
    await commitFiles('cmp-base', { 'cmp/base.txt': 'base' }, 'main');
    const f1 = await commitFiles('cmp-feature', { 'cmp/feature.txt': 'f' }, 'cmp-base');
    await commitFiles('cmp-base', { 'cmp/moved-on.txt': 'm' });

    const viaBase = await call('GET', repoPath(WEB, 'compare'), {
      as: 'anonymous',
      query: { from: 'cmp-base', to: 'cmp-feature' },
    });
    expect(viaBase.status).toBe(200);
    expect(Object.keys(viaBase.data).sort()).toEqual([
      'commit',
      'commits',
      'compare_same_ref',
      'compare_timeout',
      'diffs',
    ]);
    expect(viaBase.data.commit.id).toBe(f1);
    expect(viaBase.data.commits.map((c: { id: string }) => c.id)).toEqual([f1]);
    expect(viaBase.data.diffs.map((d: { new_path: string }) => d.new_path)).toEqual(['cmp/feature.txt']);
    expect(viaBase.data).toMatchObject({ compare_timeout: false, compare_same_ref: false });

    const straight = await call('GET', repoPath(WEB, 'compare'), {
      query: { from: 'cmp-base', to: 'cmp-feature', straight: 'true' },
    });
    expect(
      straight.data.diffs.map((d: { new_path: string; deleted_file: boolean }) => [d.new_path, d.deleted_file]),
    ).toEqual([
      ['cmp/feature.txt', false],
      ['cmp/moved-on.txt', true],
    ]);
    const same = await call('GET', repoPath(WEB, 'compare'), { query: { from: 'cmp-feature', to: f1 } });
    expect(same.data).toMatchObject({ compare_same_ref: true, commit: null, commits: [], diffs: [] });
    expect((await call('GET', repoPath(WEB, 'compare'), { query: { from: 'main' } })).data).toEqual({
      error: 'to is missing',
    });
    expect((await call('GET', repoPath(WEB, 'compare'), { query: { from: 'main', to: 'nope' } })).status).toBe(404);
  });
});

describe('contributors', () => {
  it('lists authors ordered by commits ascending by default, and by name descending on request', async () => {
    const byCommits = await call('GET', repoPath(WEB, 'contributors'), { as: 'anonymous' });
    expect(byCommits.status).toBe(200);
    expect(byCommits.data.length).toBeGreaterThan(1);
    expect(Object.keys(byCommits.data[0]).sort()).toEqual(['additions', 'commits', 'deletions', 'email', 'name']);
    const counts = byCommits.data.map((c: { commits: number }) => c.commits);
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    const byName = await call('GET', repoPath(WEB, 'contributors'), { query: { order_by: 'name', sort: 'desc' } });
    const names = byName.data.map((c: { name: string }) => c.name);
    expect(names).toEqual([...names].sort((a, b) => b.localeCompare(a)));
    expect((await call('GET', repoPath(WEB, 'contributors'), { query: { order_by: 'lines' } })).data).toEqual({
      error: 'order_by does not have a valid value',
    });
  });
});

describe('merge_base', () => {
  it('finds the common ancestor of several refs', async () => {
    const fork = await commitFiles('mb-fork', { 'mb/fork.txt': 'x' }, 'main');
    await commitFiles('mb-one', { 'mb/one.txt': '1' }, 'mb-fork');
    await commitFiles('mb-two', { 'mb/two.txt': '2' }, 'mb-fork');
    const mainSha = await sandbox().store.findProject('acme/web')!.repo.resolveCommit('main');
    const two = await call('GET', repoPath(WEB, 'merge_base'), {
      as: 'anonymous',
      query: { 'refs[]': ['mb-one', 'mb-two'] },
    });
    expect(two.status).toBe(200);
    expect(two.data.id).toBe(fork);
    expect(two.data.parent_ids).toEqual([mainSha]);
    const three = await call('GET', repoPath(WEB, 'merge_base'), {
      query: { 'refs[]': ['mb-one', 'mb-two', 'feature/dark-mode'] },
    });
    expect(three.status).toBe(200);
    const repo = sandbox().store.findProject('acme/web')!.repo;
    expect(three.data.id).toBe(await repo.text(['merge-base', 'main', 'feature/dark-mode']));
    expect(three.data.id).not.toBe(fork);
    const unknown = await call('GET', repoPath(WEB, 'merge_base'), { query: { 'refs[]': ['mb-one', 'nope'] } });
    expect(unknown.status).toBe(404);
    expect(unknown.data).toEqual({ message: 'Could not find ref: nope' });
    expect((await call('GET', repoPath(WEB, 'merge_base'), { query: { 'refs[]': ['mb-one'] } })).data).toEqual({
      message: 'Provide at least 2 refs',
    });
    expect((await call('GET', repoPath(WEB, 'merge_base'))).data).toEqual({ error: 'refs is missing' });
  });
});

describe('tree paths', () => {
  it('answers a path that cannot name a directory as a missing tree, like any other missing path', async () => {
    for (const treePath of ['../docs', 'docs/../docs', './docs', '.git']) {
      const answer = await call('GET', repoPath(WEB, 'tree'), { query: { path: treePath } });
      expect(answer.status, treePath).toBe(404);
      expect(answer.data, treePath).toEqual({ message: '404 Tree Not Found' });
    }
  });
});
