// Contract: group export and import against the sandbox — export 202, the download 404 until the archive exists
// and then the archive, owners only; import as a multipart form creating the group with its subgroups, labels
// and members, refusing a taken path and a file that is not an export, and creating nothing then.
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/http/errors.js';
import { workItemsOf } from '../../src/sandbox/areas/work-items/state.js';
import { auditEventsOf } from '../../src/sandbox/core/audit.js';
import { contractSuite, type Role } from './harness.js';

const suite = contractSuite('group_import_export');

function refusal(name: string, input: Record<string, unknown>, as: Role = 'admin'): Promise<ApiError> {
  return suite.refusal(name, input, as);
}

/** Downloads until the archive is ready (the sandbox builds it in the background), at most a few seconds. */
async function downloadWhenReady(id: string): Promise<Buffer> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const result = await suite.call('download_group_export', { id }, { as: 'admin' }).catch((e: unknown) => e);
    if (!(result instanceof ApiError)) return (result as { data: Buffer }).data;
    expect(result.status).toBe(404);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the export never became ready');
}

// The archive the import tests upload: an export of acme, made once by whichever test needs it first.
let acmeExport: Promise<Buffer> | undefined;
const exportOfAcme = (): Promise<Buffer> =>
  (acmeExport ??= (async () => {
    await suite.call('export_group', { id: 'acme' }, { as: 'admin' });
    return downloadWhenReady('acme');
  })());

describe.shuffle('group-import-export, in any order', () => {
  describe('export', () => {
    it('answers 202, the download is 404 until the archive exists, then the archive', async () => {
      // A group no test exports (the import tests export acme, whenever they run).
      const before = await refusal('download_group_export', { id: 'acme/platform' });
      expect([before.status, before.message]).toEqual([404, '404 Not Found']);
      const started = await suite.call('export_group', { id: 'acme' }, { as: 'admin' });
      expect([started.status, started.data]).toEqual([202, { message: '202 Accepted' }]);
      // Each export builds its archive anew: until it is ready, there is none to download, even after an earlier one.
      expect((await refusal('download_group_export', { id: 'acme' })).status).toBe(404);
      const archive = await downloadWhenReady('acme');
      const result = await suite.call('download_group_export', { id: 'acme' }, { as: 'admin' });
      expect(result).toMatchObject({
        status: 200,
        contentType: 'application/gzip',
        fileName: expect.stringMatching(/^\d{4}-\d{2}-\d{2}_acme_export\.json\.gz$/),
      });
      const content = JSON.parse(gunzipSync(archive).toString('utf8'));
      expect(content.group).toMatchObject({
        name: expect.any(String),
        path: 'acme',
        // Groups other tests import under acme may be among them.
        subgroups: expect.arrayContaining([expect.objectContaining({ path: 'platform' })]),
      });
      expect(content.group.members.map((m: { username: string }) => m.username)).toContain('alice');
    });

    it("is for the group's owners: 401 without a token, 403 for a maintainer, 404 for a hidden group", async () => {
      expect((await refusal('export_group', { id: 'acme' }, 'anonymous')).status).toBe(401);
      expect((await refusal('export_group', { id: 'acme' }, 'maintainer')).status).toBe(403);
      expect((await refusal('download_group_export', { id: 'acme' }, 'maintainer')).status).toBe(403);
      expect((await refusal('export_group', { id: 'acme/platform' }, 'outsider')).message).toBe('404 Group Not Found');
    });
  });

  describe('import', () => {
    it('creates the group, its subgroups, labels and members from a multipart upload, under a parent', async () => {
      const archive = await exportOfAcme();
      const parent = suite.sandbox.store.findGroup('acme')!;
      const result = await suite.call(
        'import_group',
        { name: 'Acme copy', path: 'acme-copy', file: archive.toString('base64'), parent_id: parent.id },
        { as: 'admin' },
      );
      expect([result.status, result.data]).toEqual([202, { message: '202 Accepted' }]);
      // Only a multipart form carries a file part with its own name; the sandbox records it on the audit event.
      expect(auditEventsOf(suite.sandbox.store).at(-1)?.details).toMatchObject({
        custom_message: 'Imported from group_export.tar.gz',
        entity_path: 'acme/acme-copy',
      });
      const copy = suite.sandbox.store.findGroup('acme/acme-copy')!;
      expect(copy).toMatchObject({ name: 'Acme copy', parent_id: parent.id });
      expect(suite.sandbox.store.findGroup('acme/acme-copy/platform')).toBeDefined();
      const alice = suite.sandbox.store.users.find((u) => u.username === 'alice')!;
      expect(copy.members.get(alice.id)?.access_level).toBe(parent.members.get(alice.id)?.access_level);
      expect((workItemsOf(suite.sandbox.store).labels.get(`group:${copy.id}`) ?? []).map((l) => l.name)).toEqual(
        (workItemsOf(suite.sandbox.store).labels.get(`group:${parent.id}`) ?? []).map((l) => l.name),
      );
    });

    it('imports a top-level group for a user who may create groups', async () => {
      const archive = await exportOfAcme();
      await suite.call(
        'import_group',
        { name: 'Mine', path: 'mine', file: archive.toString('base64') },
        { as: 'developer' },
      );
      const bob = suite.sandbox.store.users.find((u) => u.username === 'bob')!;
      expect(suite.sandbox.store.findGroup('mine')?.members.get(bob.id)?.access_level).toBe(50);
    });

    it('refuses a taken path, a file that is not an export, and a parent the caller may not add to; nothing is created', async () => {
      const archive = await exportOfAcme();
      const count = suite.sandbox.store.groups.length;
      const taken = await refusal('import_group', { name: 'Acme', path: 'acme', file: archive.toString('base64') });
      expect([taken.status, taken.fieldErrors]).toEqual([400, { path: ['has already been taken'] }]);
      const junk = await refusal('import_group', {
        name: 'Junk',
        path: 'junk',
        file: Buffer.from('not an archive').toString('base64'),
      });
      expect([junk.status, junk.fieldErrors]).toEqual([400, { file: ['is not a group export archive'] }]);
      const parent = suite.sandbox.store.findGroup('acme')!;
      expect(
        (
          await refusal(
            'import_group',
            { name: 'X', path: 'x', file: archive.toString('base64'), parent_id: parent.id },
            'developer',
          )
        ).status,
      ).toBe(403);
      expect(
        (await refusal('import_group', { name: 'X', path: 'x', file: archive.toString('base64') }, 'anonymous')).status,
      ).toBe(401);
      expect(suite.sandbox.store.groups.length).toBe(count);
    });

    it('is refused by the service without the file part', async () => {
      const form = new FormData();
      form.append('name', 'No file');
      form.append('path', 'no-file');
      const response = await fetch(`${suite.sandbox.url}/api/v4/groups/import`, {
        method: 'POST',
        headers: { 'private-token': suite.sandbox.tokens.admin },
        body: form,
      });
      expect([response.status, await response.json()]).toEqual([400, { error: 'file is missing' }]);
    });
  });

  suite.badInputCases([
    ['a file that is not Base64', 'import_group', { name: 'n', path: 'p', file: 'not base64!' }, 'file'],
    ['an import without a path', 'import_group', { name: 'n', file: 'H4sIAAAA' }, 'path'],
  ]);
});

suite.coverageCase();
