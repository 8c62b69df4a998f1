// Contract: every repository-files operation against the sandbox — the create→read→update→HEAD→raw→blame→delete
// round trip on a nested path with spaces in a project addressed by full path, binary content, permissions, bad input.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/http/errors.js';
import { WEB, PAYMENTS, answered } from './builders.js';
import { contractSuite } from './harness.js';

const suite = contractSuite('repository_files');

const sha256 = (content: string | Buffer) => createHash('sha256').update(content).digest('hex');

interface FileRecord {
  file_name: string;
  file_path: string;
  size: number;
  encoding: string;
  content: string;
  content_sha256: string;
  ref: string;
  blob_id: string;
  commit_id: string;
  last_commit_id: string;
}

describe.shuffle('repository-files, in any order', () => {
  describe('a file round trip on a nested path with spaces, in a project addressed by full path', () => {
    const filePath = 'docs/run books/on call notes.md';
    const encodedPath =
      '/projects/acme%2Fplatform%2Fpayments-api/repository/files/docs%2Frun%20books%2Fon%20call%20notes.md';
    const first = '# On call\n\nPage the payments team.\n';
    const second = '# On call\n\nPage the payments team.\nThen open an incident.\n';
    // The one create_file input of this describe: the set-ups and the create test make the same file.
    const createInput = (branch: string) => ({
      id: PAYMENTS,
      file_path: filePath,
      branch,
      start_branch: 'main',
      content: first,
      commit_message: 'Add on-call notes',
      author_name: 'Pager Bot',
      author_email: 'pager@acme.example',
    });
    // An update_file of the file on `branch` to `content`, made against the commit `lastCommitId`.
    const updateInput = (branch: string, lastCommitId: string, content = second, message = 'Mention incidents') => ({
      id: PAYMENTS,
      file_path: filePath,
      branch,
      content,
      commit_message: message,
      last_commit_id: lastCommitId,
    });
    // Each test makes the file on a branch of its own from main (the same path), at the stage it starts from.
    const withFile = async (): Promise<string> => {
      const branch = suite.freshName('on-call');
      await suite.data('create_file', createInput(branch));
      return branch;
    };
    const withUpdatedFile = async (): Promise<{ branch: string; before: FileRecord }> => {
      const branch = await withFile();
      const before = await suite.data<FileRecord>('get_file', { id: PAYMENTS, file_path: filePath, ref: branch });
      await suite.data('update_file', updateInput(branch, before.last_commit_id));
      return { branch, before };
    };

    it('creates the file as one commit', async () => {
      const branch = suite.freshName('on-call');
      const result = await suite.call('create_file', createInput(branch), { as: 'maintainer' });
      expect(result.status).toBe(201);
      expect(result.data).toEqual({ file_path: filePath, branch });
      expect(suite.requests().at(-1)).toMatchObject({ method: 'POST', path: encodedPath, status: 201 });
    });

    it('reads it back: Base64 content that decodes to what was written, with its checksum', async () => {
      const branch = await withFile();
      const written = await answered<FileRecord>(
        suite,
        'get_file',
        { id: PAYMENTS, file_path: filePath, ref: branch },
        'reporter',
      );
      expect(written).toMatchObject({
        file_name: 'on call notes.md',
        file_path: filePath,
        size: Buffer.byteLength(first),
        encoding: 'base64',
        ref: branch,
        content_sha256: sha256(first),
      });
      expect(Buffer.from(written.content, 'base64').toString('utf8')).toBe(first);
      expect(written.last_commit_id).toMatch(/^[0-9a-f]{40}$/);
      expect(suite.requests().at(-1)).toMatchObject({ method: 'GET', path: encodedPath });
    });

    it('updates it with the last_commit_id it read, and refuses a stale one', async () => {
      const branch = await withFile();
      const written = await suite.data<FileRecord>('get_file', { id: PAYMENTS, file_path: filePath, ref: branch });
      const result = await suite.call('update_file', updateInput(branch, written.last_commit_id), { as: 'maintainer' });
      expect(result.status).toBe(200);
      expect(result.data).toEqual({ file_path: filePath, branch });

      const stale = await suite
        .call('update_file', updateInput(branch, written.last_commit_id, 'overwrite\n', 'Stale edit'), {
          as: 'maintainer',
        })
        .catch((e: unknown) => e);
      expect(stale).toBeInstanceOf(ApiError);
      expect((stale as ApiError).status).toBe(400);
    });

    it('gives the new metadata on HEAD, for the file, its raw path and its blame', async () => {
      const { branch, before: written } = await withUpdatedFile();
      for (const name of ['get_file_metadata', 'get_file_raw_metadata', 'get_file_blame_metadata']) {
        const result = await suite.call(name, { id: PAYMENTS, file_path: filePath, ref: branch }, { as: 'reporter' });
        expect(result.status, name).toBe(200);
        expect(suite.requests().at(-1)?.method).toBe('HEAD');
        const meta = result.data as Record<string, string>;
        expect(meta, name).toMatchObject({
          content_sha256: sha256(second),
          size: String(Buffer.byteLength(second)),
          file_path: filePath,
          file_name: 'on call notes.md',
          ref: branch,
          encoding: 'base64',
        });
        // A missing header would pass a bare not.toBe: check the shape before the change.
        expect(meta.last_commit_id, name).toMatch(/^[0-9a-f]{40}$/);
        expect(meta.last_commit_id).not.toBe(written.last_commit_id);
        expect(meta.blob_id).toMatch(/^[0-9a-f]{40}$/);
      }
    });

    it('downloads the raw bytes', async () => {
      const { branch } = await withUpdatedFile();
      const result = await suite.call(
        'get_file_raw',
        { id: PAYMENTS, file_path: filePath, ref: branch },
        { as: 'reporter' },
      );
      expect(result.status).toBe(200);
      expect(Buffer.isBuffer(result.data)).toBe(true);
      expect((result.data as Buffer).toString('utf8')).toBe(second);
      expect(suite.requests().at(-1)?.path).toBe(`${encodedPath}/raw`);
    });

    it('blames every line on the commit that wrote it', async () => {
      const { branch } = await withUpdatedFile();
      const result = await suite.call(
        'get_file_blame',
        { id: PAYMENTS, file_path: filePath, ref: branch },
        { as: 'reporter' },
      );
      const ranges = result.data as Array<{ commit: Record<string, unknown>; lines: string[] }>;
      expect(ranges.flatMap((r) => r.lines)).toEqual(second.trimEnd().split('\n'));
      for (const range of ranges) {
        expect(range.commit).toEqual(
          expect.objectContaining({
            id: expect.stringMatching(/^[0-9a-f]{40}$/),
            message: expect.any(String),
            parent_ids: expect.any(Array),
            author_name: expect.any(String),
            author_email: expect.any(String),
            committed_date: expect.any(String),
          }),
        );
      }
      const last = ranges.at(-1)!;
      expect(last.lines).toEqual(['Then open an incident.']);
      expect(last.commit.message).toContain('Mention incidents');
      expect(ranges[0].commit).toMatchObject({ author_name: 'Pager Bot', author_email: 'pager@acme.example' });
    });

    it('deletes it, after which reading it is a 404', async () => {
      const branch = await withFile();
      const meta = (await suite.call('get_file_metadata', { id: PAYMENTS, file_path: filePath, ref: branch }))
        .data as Record<string, string>;
      const result = await suite.call('delete_file', {
        id: PAYMENTS,
        file_path: filePath,
        branch,
        commit_message: 'Remove notes',
        last_commit_id: meta.last_commit_id,
      });
      expect(result.status).toBe(204);
      expect(suite.requests().at(-1)).toMatchObject({ method: 'DELETE', path: encodedPath });
      await expect(suite.call('get_file', { id: PAYMENTS, file_path: filePath, ref: branch })).rejects.toMatchObject({
        status: 404,
      });
    });
  });

  describe('binary content and branches', () => {
    it('writes Base64 content to a new branch and reads back the exact bytes', async () => {
      const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0x10, 0x80]);
      const created = await suite.call(
        'create_file',
        {
          id: WEB,
          file_path: 'assets/blob.bin',
          branch: 'binary-assets',
          start_branch: 'main',
          content: bytes.toString('base64'),
          encoding: 'base64',
          commit_message: 'Add a binary asset',
        },
        { as: 'developer' },
      );
      expect(created.data).toEqual({ file_path: 'assets/blob.bin', branch: 'binary-assets' });
      const raw = await suite.call('get_file_raw', { id: WEB, file_path: 'assets/blob.bin', ref: 'binary-assets' });
      expect(Buffer.compare(raw.data as Buffer, bytes)).toBe(0);
      const file = (await suite.call('get_file', { id: WEB, file_path: 'assets/blob.bin', ref: 'binary-assets' }))
        .data as FileRecord;
      expect(file.content_sha256).toBe(sha256(bytes));
      // The default branch never saw it.
      await expect(
        suite.call('get_file', { id: WEB, file_path: 'assets/blob.bin', ref: 'main' }),
      ).rejects.toMatchObject({
        status: 404,
      });
    });

    it("refuses to create a file that exists with the service's 400", async () => {
      await expect(
        suite.call(
          'create_file',
          {
            id: WEB,
            file_path: 'README.md',
            branch: 'main',
            content: 'x',
            commit_message: 'Clobber',
          },
          { as: 'maintainer' },
        ),
      ).rejects.toMatchObject({ status: 400 });
    });

    it('reads a public project without a token', async () => {
      const result = await suite.call(
        'get_file',
        { id: WEB, file_path: 'README.md', ref: 'v1.0.0' },
        { as: 'anonymous' },
      );
      expect(Buffer.from((result.data as FileRecord).content, 'base64').toString('utf8')).toContain('# acme/web');
    });
  });

  describe('commits to a new branch, by a named author', () => {
    const text = 'Rewritten by the docs bot.\nEvery line is new.\n';

    it('updates a file on a branch started from main, with Base64 content and its own author', async () => {
      const result = await suite.call(
        'update_file',
        {
          id: WEB,
          file_path: 'README.md',
          branch: 'readme-rewrite',
          start_branch: 'main',
          commit_message: 'Rewrite the README',
          content: Buffer.from(text).toString('base64'),
          encoding: 'base64',
          author_name: 'Docs Bot',
          author_email: 'docs@acme.example',
        },
        { as: 'developer' },
      );
      expect(result.data).toEqual({ file_path: 'README.md', branch: 'readme-rewrite' });
      // encoding: the service decoded the Base64; without it the file would hold the Base64 text itself.
      const raw = await suite.call('get_file_raw', { id: WEB, file_path: 'README.md', ref: 'readme-rewrite' });
      expect((raw.data as Buffer).toString('utf8')).toBe(text);
      // start_branch: main is where the branch came from, and main itself is untouched.
      const onMain = await suite.call('get_file_raw', { id: WEB, file_path: 'README.md', ref: 'main' });
      expect((onMain.data as Buffer).toString('utf8')).toMatch(/^# acme\/web/);
      const blame = (await suite.call('get_file_blame', { id: WEB, file_path: 'README.md', ref: 'readme-rewrite' }))
        .data as Array<{ commit: Record<string, unknown> }>;
      expect(blame.map((range) => range.commit)).toEqual([
        expect.objectContaining({
          author_name: 'Docs Bot',
          author_email: 'docs@acme.example',
          message: expect.stringContaining('Rewrite the README'),
        }),
      ]);
    });

    it('deletes a file on a branch started from main, keeping it on main', async () => {
      const result = await suite.call(
        'delete_file',
        {
          id: WEB,
          file_path: 'CHANGELOG.md',
          branch: 'drop-changelog',
          start_branch: 'main',
          commit_message: 'Drop the changelog',
          author_name: 'Cleanup Bot',
          author_email: 'cleanup@acme.example',
        },
        { as: 'developer' },
      );
      expect(result.status).toBe(204);
      await expect(
        suite.call('get_file', { id: WEB, file_path: 'CHANGELOG.md', ref: 'drop-changelog' }),
      ).rejects.toMatchObject({ status: 404 });
      expect((await suite.call('get_file', { id: WEB, file_path: 'CHANGELOG.md', ref: 'main' })).status).toBe(200);
      const [tip] = (await suite.call('list_commits', { id: WEB, ref_name: 'drop-changelog', per_page: 1 }))
        .data as Array<Record<string, unknown>>;
      expect(tip).toMatchObject({
        title: 'Drop the changelog',
        author_name: 'Cleanup Bot',
        author_email: 'cleanup@acme.example',
      });
    });

    it('refuses to delete a file that changed since the last_commit_id given, and keeps it', async () => {
      // README.md changed on main after v1.0.0, so its last commit as of v1.0.0 is stale on main.
      const old = (await suite.call('get_file_metadata', { id: WEB, file_path: 'README.md', ref: 'v1.0.0' }))
        .data as Record<string, string>;
      const now = (await suite.call('get_file_metadata', { id: WEB, file_path: 'README.md', ref: 'main' }))
        .data as Record<string, string>;
      expect(old.last_commit_id).toMatch(/^[0-9a-f]{40}$/);
      expect(old.last_commit_id).not.toBe(now.last_commit_id);
      await expect(
        suite.call(
          'delete_file',
          {
            id: WEB,
            file_path: 'README.md',
            branch: 'main',
            commit_message: 'Stale delete',
            last_commit_id: old.last_commit_id,
          },
          { as: 'maintainer' },
        ),
      ).rejects.toMatchObject({ status: 400 });
      const still = (await suite.call('get_file_metadata', { id: WEB, file_path: 'README.md', ref: 'main' }))
        .data as Record<string, string>;
      expect(still.last_commit_id).toBe(now.last_commit_id);
    });
  });

  describe('permissions', () => {
    it("hides a private project from an outsider behind the service's 404", async () => {
      const error = await suite
        .call('get_file', { id: PAYMENTS, file_path: 'README.md', ref: 'main' }, { as: 'outsider' })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(404);
      expect((error as ApiError).message).toBe('404 Project Not Found');
    });

    it('refuses writes from a guest and a reporter with 403', async () => {
      for (const role of ['guest', 'reporter'] as const) {
        await expect(
          suite.call(
            'update_file',
            {
              id: WEB,
              file_path: 'README.md',
              branch: 'main',
              content: 'mine now\n',
              commit_message: 'x',
            },
            { as: role },
          ),
        ).rejects.toMatchObject({ status: 403 });
      }
      await expect(
        suite.call(
          'delete_file',
          { id: WEB, file_path: 'README.md', branch: 'main', commit_message: 'x' },
          { as: 'reporter' },
        ),
      ).rejects.toMatchObject({ status: 403 });
    });
  });

  describe('bad input', () => {
    suite.badInputCases([
      ['a missing ref', 'get_file', { id: WEB, file_path: 'README.md' }, 'ref'],
      [
        'a missing commit message',
        'create_file',
        { id: WEB, file_path: 'a.txt', branch: 'main', content: 'x' },
        'commit_message',
      ],
      [
        'an encoding the API does not have',
        'create_file',
        { id: WEB, file_path: 'a.txt', branch: 'main', content: 'x', commit_message: 'm', encoding: 'utf8' },
        'encoding',
      ],
      ['an unknown key', 'get_file_raw', { id: WEB, file_path: 'README.md', ref: 'main', lfs: true }, ''],
      ['an empty project id', 'get_file', { id: '', file_path: 'README.md', ref: 'main' }, 'id'],
    ]);
  });
});

suite.coverageCase();
