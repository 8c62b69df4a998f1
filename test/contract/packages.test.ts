// Contract: packages — project and group lists (exclude_subgroups), only public projects' packages without a token,
// _links.delete_api_path only for who may delete, build_info.pipeline, package files, delete 204/404 and refusals.
import { describe, expect, it } from 'vitest';
import { packagesOf } from '../../src/sandbox/areas/packages/state.js';
import { WEB, PAYMENTS, expectRefusal } from './builders.js';
import { contractSuite } from './harness.js';

const suite = contractSuite('packages');

interface Package {
  id: number;
  name: string;
  version: string;
  package_type: string;
  created_at: string;
  _links?: { web_path: string; delete_api_path?: string };
  build_info?: { pipeline: { id: number; status: string; ref: string; sha: string } } | null;
}

interface PackageFile {
  id: number;
  package_id: number;
  file_name: string;
  size: number;
  file_md5: string;
  file_sha1: string;
}

const versions = (packages: Package[]) => packages.map((p) => `${p.name}@${p.version}`);
const projectsOf = (packages: Package[]) =>
  [...new Set(packages.map((p) => /^\/(.+)\/-\/packages\/\d+$/.exec(p._links!.web_path)?.[1]))].sort();

async function packageOf(project: string, version: string): Promise<Package> {
  const found = (await suite.data<Package[]>('list_packages', { id: project }, 'admin')).find(
    (p) => p.version === version,
  );
  expect(found, `${project} ${version}`).toBeDefined();
  return found!;
}

describe.shuffle('packages, in any order', () => {
  describe('project packages', () => {
    it("lists a public project's packages to anyone, oldest first, with the list fields only", async () => {
      const packages = await suite.data<Package[]>('list_packages', { id: WEB }, 'anonymous');
      expect(versions(packages)).toEqual(['@acme/web-ui@1.0.0', '@acme/web-ui@1.1.0', '@acme/web-ui@1.2.0-rc.1']);
      for (const p of packages)
        expect(Object.keys(p).sort()).toEqual(['created_at', 'id', 'name', 'package_type', 'version']);
      expect(packages[0].package_type).toBe('npm');
    });

    it("hides a private project's packages from non-members (404) and its guests (403)", async () => {
      for (const as of ['anonymous', 'outsider'] as const) {
        await expectRefusal(suite, 'list_packages', { id: PAYMENTS }, as, [404, '404 Project Not Found']);
      }
      expect((await suite.refusal('list_packages', { id: PAYMENTS }, 'guest')).status).toBe(403);
      const maven = await suite.data<Package[]>('list_packages', { id: PAYMENTS }, 'reporter');
      expect(versions(maven)).toEqual(['com/acme/payments-client@1.0.0', 'com/acme/payments-client@1.1.0']);
      expect(maven[0].package_type).toBe('maven');
      // Internal: any signed-in user, no anonymous caller.
      expect(await suite.data<Package[]>('list_packages', { id: 'acme/platform/infra' }, 'outsider')).toHaveLength(1);
      expect((await suite.refusal('list_packages', { id: 'acme/platform/infra' }, 'anonymous')).status).toBe(404);
    });
  });

  describe('group packages', () => {
    it("include the subgroups' projects unless exclude_subgroups", async () => {
      const all = await suite.data<Package[]>('list_group_packages', { id: 'acme' }, 'reporter');
      expect(projectsOf(all)).toEqual(['acme/platform/infra', PAYMENTS, WEB]);
      expect(all).toHaveLength(6);
      // Oldest first across projects.
      expect(all.map((p) => p.created_at)).toEqual([...all.map((p) => p.created_at)].sort());
      const own = await suite.data<Package[]>(
        'list_group_packages',
        { id: 'acme', exclude_subgroups: true },
        'reporter',
      );
      expect(projectsOf(own)).toEqual([WEB]);
      expect(own).toHaveLength(3);
      expect(
        projectsOf(
          await suite.data<Package[]>('list_group_packages', { id: 'acme', exclude_subgroups: false }, 'reporter'),
        ),
      ).toHaveLength(3);
    });

    it("hold only public projects' packages without a token, and only readable ones for anyone", async () => {
      expect(projectsOf(await suite.data<Package[]>('list_group_packages', { id: 'acme' }, 'anonymous'))).toEqual([
        WEB,
      ]);
      expect(projectsOf(await suite.data<Package[]>('list_group_packages', { id: 'acme' }, 'outsider'))).toEqual([
        'acme/platform/infra',
        WEB,
      ]);
      // dave is a guest of the private project: he sees it, but not its packages.
      expect(projectsOf(await suite.data<Package[]>('list_group_packages', { id: 'acme' }, 'guest'))).toEqual([
        'acme/platform/infra',
        WEB,
      ]);
      await expectRefusal(suite, 'list_group_packages', { id: 'acme/platform' }, 'anonymous', [
        404,
        '404 Group Not Found',
      ]);
    });

    it('carry build_info.pipeline: the tag pipeline that built a package, null for one uploaded by hand', async () => {
      const packages = await suite.data<Package[]>(
        'list_group_packages',
        { id: 'acme', exclude_subgroups: true },
        'anonymous',
      );
      const [built, , uploaded] = packages;
      expect(built.build_info?.pipeline).toMatchObject({
        status: 'success',
        ref: 'v1.0.0',
        sha: expect.stringMatching(/^[0-9a-f]{40}$/),
      });
      expect(uploaded.build_info).toBeNull();
      const single = await suite.data<Package>('get_package', { id: WEB, package_id: built.id }, 'anonymous');
      expect(single.build_info).toEqual(built.build_info);
    });
  });

  describe('delete links', () => {
    it('are sent only to callers who may delete: maintainers and administrators', async () => {
      const { id } = await packageOf(WEB, '1.1.0');
      const projectId = suite.sandbox.store.findProject(WEB)!.id;
      for (const as of ['maintainer', 'admin'] as const) {
        const pkg = await suite.data<Package>('get_package', { id: WEB, package_id: id }, as);
        expect(pkg._links?.delete_api_path).toBe(`${suite.sandbox.url}/api/v4/projects/${projectId}/packages/${id}`);
      }
      for (const as of ['developer', 'outsider', 'anonymous'] as const) {
        const pkg = await suite.data<Package>('get_package', { id: WEB, package_id: id }, as);
        expect(pkg._links).toEqual({ web_path: `/${WEB}/-/packages/${id}` });
      }
      const asMaintainer = await suite.data<Package[]>('list_group_packages', { id: 'acme' }, 'maintainer');
      expect(asMaintainer.every((p) => p._links?.delete_api_path)).toBe(true);
      const asDeveloper = await suite.data<Package[]>('list_group_packages', { id: 'acme' }, 'developer');
      expect(asDeveloper.some((p) => p._links?.delete_api_path)).toBe(false);
    });
  });

  describe('one package and its files', () => {
    it('reads a package, and answers 404 for one that is missing or belongs to another project', async () => {
      const { id } = await packageOf(PAYMENTS, '1.0.0');
      expect(await suite.data<Package>('get_package', { id: PAYMENTS, package_id: id }, 'reporter')).toMatchObject({
        id,
        name: 'com/acme/payments-client',
        version: '1.0.0',
        package_type: 'maven',
      });
      for (const input of [
        { id: WEB, package_id: id },
        { id: PAYMENTS, package_id: 99_999 },
      ]) {
        await expectRefusal(suite, 'get_package', input, 'maintainer', [404, '404 Package Not Found']);
      }
      expect((await suite.refusal('get_package', { id: PAYMENTS, package_id: id }, 'anonymous')).status).toBe(404);
    });

    it('lists the files with size and checksums', async () => {
      const { id } = await packageOf(PAYMENTS, '1.1.0');
      const files = await suite.data<PackageFile[]>('list_package_files', { id: PAYMENTS, package_id: id }, 'reporter');
      expect(files.map((f) => f.file_name)).toEqual([
        'payments-client-1.1.0.jar',
        'payments-client-1.1.0.pom',
        'maven-metadata.xml',
      ]);
      for (const file of files) {
        expect(file).toMatchObject({
          package_id: id,
          size: expect.any(Number),
          file_md5: expect.stringMatching(/^[0-9a-f]{32}$/),
          file_sha1: expect.stringMatching(/^[0-9a-f]{40}$/),
        });
      }
      expect((await suite.refusal('list_package_files', { id: PAYMENTS, package_id: id }, 'guest')).status).toBe(403);
    });
  });

  describe('input and presentation', () => {
    suite.badInputCases([
      ['a package id that is not a number', 'get_package', { id: WEB, package_id: 'latest' }, 'package_id'],
      ['a package id that is not a whole number', 'delete_package', { id: WEB, package_id: 2.5 }, 'package_id'],
      [
        'exclude_subgroups that is not a boolean',
        'list_group_packages',
        { id: 'acme', exclude_subgroups: 'yes' },
        'exclude_subgroups',
      ],
    ]);

    suite.pagingCase('list_packages', { id: WEB });
    suite.pagingCase('list_group_packages', { id: 'acme' });

    it("pages through a package's files", async () => {
      const { id } = await packageOf(PAYMENTS, '1.0.0');
      const first = await suite.call('list_package_files', { id: PAYMENTS, package_id: id, per_page: 2, page: 2 });
      expect((first.data as PackageFile[]).map((f) => f.file_name)).toEqual(['maven-metadata.xml']);
      expect(first.page).toMatchObject({ page: 2, per_page: 2, total: 3 });
      const all = await suite.call('list_package_files', {
        id: PAYMENTS,
        package_id: id,
        per_page: 1,
        all_pages: true,
        max_items: 2,
      });
      expect(all.data).toHaveLength(2);
    });

    it('lists packages as name version, type, project and age; files with size and sha1', async () => {
      const result = await suite.call(
        'list_group_packages',
        { id: 'acme', exclude_subgroups: true },
        { as: 'anonymous' },
      );
      const [first] = result.data as Package[];
      const shown = suite.operation('list_group_packages').present!(result.data, { id: 'acme' });
      expect(shown.title).toBe('3 packages');
      expect(shown.fields?.[0]).toEqual([
        `#${first.id}`,
        expect.stringMatching(/^@acme\/web-ui 1\.0\.0 · npm · acme\/web · \d+(d|mo)$/),
      ]);
      const files = await suite.call('list_package_files', { id: WEB, package_id: first.id });
      const file = (files.data as PackageFile[])[0];
      expect(suite.operation('list_package_files').present!(files.data, { id: WEB, package_id: first.id })).toEqual({
        title: '1 file',
        fields: [['web-ui-1.0.0.tgz', `18342 bytes · sha1 ${file.file_sha1}`]],
      });
    });
  });

  describe('delete', () => {
    it('needs maintainer, answers 204, then 404', async () => {
      // A package of its own to delete (uploaded by hand, as a copy of the seeded one), not one the other tests read.
      const store = suite.sandbox.store;
      const seeded = packagesOf(store).find((p) => p.version === '1.2.0-rc.1')!;
      const version = suite.freshName('1.3.0-rc');
      const id = store.nextId('package');
      packagesOf(store).push({ ...structuredClone(seeded), id, version });
      const input = { id: WEB, package_id: id };
      expect((await suite.refusal('delete_package', input, 'developer')).status).toBe(403);
      expect((await suite.refusal('delete_package', input, 'anonymous')).status).toBe(401);
      expect((await suite.call('delete_package', input)).status).toBe(204);
      await expectRefusal(suite, 'delete_package', input, 'maintainer', [404, '404 Package Not Found']);
      expect((await suite.refusal('list_package_files', input)).status).toBe(404);
      const left = versions(await suite.data<Package[]>('list_packages', { id: WEB }));
      expect(left).not.toContain(`@acme/web-ui@${version}`);
      expect(left).toContain('@acme/web-ui@1.2.0-rc.1');
      // A private project's package is 404 to a non-member before any permission is weighed.
      const { id: hidden } = await packageOf(PAYMENTS, '1.0.0');
      expect((await suite.refusal('delete_package', { id: PAYMENTS, package_id: hidden }, 'outsider')).status).toBe(
        404,
      );
    });
  });
});

suite.coverageCase();
