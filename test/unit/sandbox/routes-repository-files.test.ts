// Route tests of the repository file endpoints over HTTP: reads with metadata headers, blame, raw, visibility,
// and single-file commits (create, update, delete) with their failures.
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { enc, PAYMENTS, useSandbox, WEB } from './routes-git-helpers.js';

const { call, sandbox } = useSandbox();

// These tests are about the writes themselves, made as a developer: main is unprotected here (protected branches
// have tests of their own).
beforeAll(async () => {
  for (const project of [WEB, PAYMENTS]) {
    expect((await call('DELETE', `/projects/${project}/protected_branches/main`, { as: 'maintainer' })).status).toBe(
      204,
    );
  }
});
const file = (project: string, path: string, suffix = '') =>
  `/projects/${project}/repository/files/${enc(path)}${suffix}`;

const METADATA_HEADERS = [
  'x-svc-blob-id',
  'x-svc-commit-id',
  'x-svc-content-sha256',
  'x-svc-encoding',
  'x-svc-file-name',
  'x-svc-file-path',
  'x-svc-last-commit-id',
  'x-svc-ref',
  'x-svc-size',
];

async function createFile(path: string, content: string, extra: Record<string, unknown> = {}) {
  return call('POST', file(WEB, path), { json: { branch: 'main', content, commit_message: `Add ${path}`, ...extra } });
}

describe('reading a file', () => {
  it('returns the file object, and HEAD the same metadata as headers without a body', async () => {
    expect((await createFile('docs/read me.md', 'Hello, reader.\n')).status).toBe(201);
    const got = await call('GET', file(WEB, 'docs/read me.md'), { as: 'anonymous', query: { ref: 'main' } });
    expect(got.status).toBe(200);
    const mainSha = await sandbox().store.findProject('acme/web')!.repo.resolveCommit('main');
    expect(got.data).toEqual({
      file_name: 'read me.md',
      file_path: 'docs/read me.md',
      size: 15,
      encoding: 'base64',
      content: Buffer.from('Hello, reader.\n').toString('base64'),
      content_sha256: createHash('sha256').update('Hello, reader.\n').digest('hex'),
      ref: 'main',
      blob_id: expect.stringMatching(/^[0-9a-f]{40}$/),
      commit_id: mainSha,
      last_commit_id: mainSha,
    });

    const head = await call('HEAD', file(WEB, 'docs/read me.md'), { as: 'anonymous', query: { ref: 'main' } });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    for (const name of METADATA_HEADERS) expect(head.headers.get(name), name).not.toBeNull();
    expect(head.headers.get('x-svc-blob-id')).toBe(got.data.blob_id);
    expect(head.headers.get('x-svc-size')).toBe('15');
    expect(head.headers.get('x-svc-file-path')).toBe('docs/read me.md');
    expect(head.headers.get('x-svc-ref')).toBe('main');

    for (const suffix of ['/blame', '/raw']) {
      const meta = await call('HEAD', file(WEB, 'docs/read me.md', suffix), { query: { ref: 'main' } });
      expect(meta.status).toBe(200);
      expect(meta.body.length).toBe(0);
      expect(meta.headers.get('x-svc-last-commit-id')).toBe(mainSha);
    }
  });

  it('requires ref and ignores unknown parameters', async () => {
    const missing = await call('GET', file(WEB, 'README.md'));
    expect(missing.status).toBe(400);
    expect(missing.data).toEqual({ error: 'ref is missing' });
    // The service ignores an unknown parameter; the request log names it.
    const unknown = await call('GET', file(WEB, 'README.md'), { query: { ref: 'main', refs: 'x' } });
    expect(unknown.status).toBe(200);
    expect(sandbox().requests.all().at(-1)?.unknownParams).toEqual(['refs']);
    const raw = await call('GET', file(WEB, 'README.md', '/raw'));
    expect(raw.data).toEqual({ error: 'ref is missing' });
  });

  it('answers 404 for a missing file or ref, and hides private projects from outsiders', async () => {
    expect((await call('GET', file(WEB, 'nope.txt'), { query: { ref: 'main' } })).data).toEqual({
      message: '404 File Not Found',
    });
    expect((await call('GET', file(WEB, 'README.md'), { query: { ref: 'no-such-ref' } })).data).toEqual({
      message: '404 Commit Not Found',
    });
    const hidden = await call('GET', file(PAYMENTS, 'README.md'), { as: 'outsider', query: { ref: 'main' } });
    expect(hidden.status).toBe(404);
    expect(hidden.data).toEqual({ message: '404 Project Not Found' });
    expect((await call('GET', file(PAYMENTS, 'README.md'), { as: 'anonymous', query: { ref: 'main' } })).status).toBe(
      404,
    );
    expect((await call('GET', file(PAYMENTS, 'README.md'), { as: 'reporter', query: { ref: 'main' } })).status).toBe(
      200,
    );
  });

  it('serves raw bytes and blame ranges', async () => {
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]);
    const created = await createFile('img/dot.png', bytes.toString('base64'), { encoding: 'base64' });
    expect(created.status).toBe(201);
    const raw = await call('GET', file(WEB, 'img/dot.png', '/raw'), { query: { ref: 'main' } });
    expect(raw.status).toBe(200);
    expect(raw.body.equals(bytes)).toBe(true);
    expect(raw.headers.get('content-type')).toBe('application/octet-stream');
    expect(raw.headers.get('x-svc-size')).toBe('8');

    await createFile('blame.txt', 'one\ntwo\n');
    await call('PUT', file(WEB, 'blame.txt'), {
      json: { branch: 'main', content: 'one\nTWO\n', commit_message: 'Shout two' },
    });
    const blame = await call('GET', file(WEB, 'blame.txt', '/blame'), { query: { ref: 'main' } });
    expect(blame.status).toBe(200);
    expect(blame.data.map((range: { lines: string[] }) => range.lines)).toEqual([['one'], ['TWO']]);
    expect(blame.data[1].commit).toMatchObject({ message: 'Shout two', author_name: 'Bob Chen' });
    expect(blame.data[1].commit.parent_ids).toEqual([blame.data[0].commit.id]);
  });
});

describe('writing a file', () => {
  it('creates (201), updates and deletes (204) with single commits and the given author', async () => {
    const created = await call('POST', file(WEB, 'notes/todo.md'), {
      form: [
        ['branch', 'main'],
        ['content', '- write tests\n'],
        ['commit_message', 'Add todo'],
        ['author_name', 'Pat Doe'],
        ['author_email', 'pat@example.com'],
      ],
    });
    expect(created.status).toBe(201);
    expect(created.data).toEqual({ file_path: 'notes/todo.md', branch: 'main' });
    const repo = sandbox().store.findProject('acme/web')!.repo;
    const commit = await repo.getCommit((await repo.resolveCommit('main'))!);
    expect(commit).toMatchObject({
      title: 'Add todo',
      author_name: 'Pat Doe',
      author_email: 'pat@example.com',
      committer_name: 'Bob Chen',
    });

    const lastCommit = commit.id;
    const updated = await call('PUT', file(WEB, 'notes/todo.md'), {
      json: { branch: 'main', content: '- done\n', commit_message: 'Update todo', last_commit_id: lastCommit },
    });
    expect(updated.status).toBe(200);
    expect(updated.data).toEqual({ file_path: 'notes/todo.md', branch: 'main' });
    const read = await call('GET', file(WEB, 'notes/todo.md', '/raw'), { query: { ref: 'main' } });
    expect(read.body.toString()).toBe('- done\n');

    const stale = await call('PUT', file(WEB, 'notes/todo.md'), {
      json: { branch: 'main', content: '- again\n', commit_message: 'Stale', last_commit_id: lastCommit },
    });
    expect(stale.status).toBe(400);
    expect(stale.data.message).toContain('has changed since you started editing it');

    const deleted = await call('DELETE', file(WEB, 'notes/todo.md'), {
      json: { branch: 'main', commit_message: 'Remove todo' },
    });
    expect(deleted.status).toBe(204);
    expect((await call('GET', file(WEB, 'notes/todo.md'), { query: { ref: 'main' } })).status).toBe(404);
  });

  it('creates a branch from start_branch', async () => {
    const created = await createFile('branch-only.txt', 'x', { branch: 'docs/new-branch', start_branch: 'main' });
    expect(created.status).toBe(201);
    expect((await call('GET', file(WEB, 'branch-only.txt'), { query: { ref: 'docs/new-branch' } })).status).toBe(200);
    expect((await call('GET', file(WEB, 'branch-only.txt'), { query: { ref: 'main' } })).status).toBe(404);
  });

  it('fails with 400 for an existing file, identical content, a missing file, "/../" and a missing branch', async () => {
    await createFile('exists.txt', 'same');
    const cases: [string, string, Record<string, unknown>][] = [
      ['POST', 'exists.txt', { branch: 'main', content: 'x', commit_message: 'm' }],
      ['PUT', 'exists.txt', { branch: 'main', content: 'same', commit_message: 'm' }],
      ['PUT', 'missing.txt', { branch: 'main', content: 'x', commit_message: 'm' }],
      ['DELETE', 'missing.txt', { branch: 'main', commit_message: 'm' }],
      ['POST', 'a/../b.txt', { branch: 'main', content: 'x', commit_message: 'm' }],
      ['POST', 'new.txt', { branch: 'no-such-branch', content: 'x', commit_message: 'm' }],
    ];
    for (const [method, path, json] of cases) {
      const answer = await call(method, file(WEB, path), { json });
      expect(answer.status, `${method} ${path}`).toBe(400);
      expect(typeof answer.data.message, `${method} ${path}`).toBe('string');
    }
  });

  it('validates parameters, authentication and write access', async () => {
    const noMessage = await call('POST', file(WEB, 'p.txt'), { json: { branch: 'main', content: 'x' } });
    expect(noMessage.data).toEqual({ error: 'commit_message is missing' });
    const badEncoding = await call('POST', file(WEB, 'p.txt'), {
      json: { branch: 'main', content: 'x', commit_message: 'm', encoding: 'hex' },
    });
    expect(badEncoding.data).toEqual({ error: 'encoding does not have a valid value' });
    const badBase64 = await call('POST', file(WEB, 'p.txt'), {
      json: { branch: 'main', content: '@@', commit_message: 'm', encoding: 'base64' },
    });
    expect(badBase64.status).toBe(400);
    expect(badBase64.data.error).toContain('content');
    // content is not a parameter of a delete: ignored as on the service and logged, not refused.
    const deleteWithContent = await call('DELETE', file(WEB, 'p.txt'), { json: { branch: 'main', content: 'x' } });
    expect(deleteWithContent.data).toEqual({ error: 'commit_message is missing' });
    expect(sandbox().requests.all().at(-1)?.unknownParams).toEqual(['content']);

    const body = { branch: 'main', content: 'x', commit_message: 'm' };
    expect((await call('POST', file(WEB, 'p.txt'), { as: 'anonymous', json: body })).status).toBe(401);
    expect((await call('POST', file(WEB, 'p.txt'), { as: 'reporter', json: body })).status).toBe(403);
    expect((await call('POST', file(WEB, 'p.txt'), { as: 'outsider', json: body })).status).toBe(403);
    expect((await call('POST', file(PAYMENTS, 'p.txt'), { as: 'outsider', json: body })).status).toBe(404);
    expect((await call('POST', file(PAYMENTS, 'p.txt'), { as: 'developer', json: body })).status).toBe(201);
  });
});
