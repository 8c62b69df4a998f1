// Packages of the sandbox: their record and files, who may read and delete them, and the demo packages.
//
// What the demo holds (built ones link the tag pipeline that published them):
//   acme/web (public)               @acme/web-ui 1.0.0 and 1.1.0 (built), 1.2.0-rc.1 (uploaded by hand, no pipeline)
//   acme/platform/payments-api      com/acme/payments-client 1.0.0 and 1.1.0 (built; private: reporters and up)
//   acme/platform/infra (internal)  @acme/infra-config 0.4.1 (built on main)
// So group acme lists 6 to its reporters and up, 3 (acme/web's) with exclude_subgroups, 4 to erin and dave (no
// private project's), and 3 to anonymous callers (public projects' only).
import { createHash } from 'node:crypto';
import { ACCESS, type Store } from '../../core/store.js';
import { areaState } from '../../core/area.js';

/**
 * The two package types. The spec leaves their literal names out (they carry product names); these are the
 * service's own, which clients of it expect.
 */
const PACKAGE_TYPES = ['maven', 'npm'] as const;

export interface PackageFile {
  id: number;
  file_name: string;
  size: number;
  file_md5: string;
  file_sha1: string;
  created_at: Date;
}

export interface Package {
  id: number;
  project_id: number;
  name: string;
  version: string;
  package_type: (typeof PACKAGE_TYPES)[number];
  created_at: Date;
  /** The pipeline that published it (build_info.pipeline); null when uploaded by hand. */
  pipeline_id: number | null;
  files: PackageFile[];
}

/** Deleting a package (and seeing its delete_api_path): maintainer and up (the spec is silent; the service's role). */
export const PACKAGE_DELETE_ACCESS = ACCESS.maintainer;

const DAY = 24 * 60 * 60 * 1000;

interface SeedPackage {
  name: string;
  version: string;
  type: Package['package_type'];
  /** The ref of the successful pipeline that built it; absent: uploaded by hand this many days ago. */
  builtBy?: string;
  uploaded?: number;
  files: Array<[name: string, size: number]>;
}

const mavenFiles = (artifact: string, version: string): SeedPackage['files'] => [
  [`${artifact}-${version}.jar`, 48_213],
  [`${artifact}-${version}.pom`, 1_874],
  ['maven-metadata.xml', 412],
];

const PACKAGES: Record<string, SeedPackage[]> = {
  'acme/web': [
    { name: '@acme/web-ui', version: '1.0.0', type: 'npm', builtBy: 'v1.0.0', files: [['web-ui-1.0.0.tgz', 18_342]] },
    { name: '@acme/web-ui', version: '1.1.0', type: 'npm', builtBy: 'v1.1.0', files: [['web-ui-1.1.0.tgz', 19_905]] },
    {
      name: '@acme/web-ui',
      version: '1.2.0-rc.1',
      type: 'npm',
      uploaded: 2,
      files: [['web-ui-1.2.0-rc.1.tgz', 20_117]],
    },
  ],
  'acme/platform/payments-api': [
    {
      name: 'com/acme/payments-client',
      version: '1.0.0',
      type: 'maven',
      builtBy: 'v1.0.0',
      files: mavenFiles('payments-client', '1.0.0'),
    },
    {
      name: 'com/acme/payments-client',
      version: '1.1.0',
      type: 'maven',
      builtBy: 'v1.1.0',
      files: mavenFiles('payments-client', '1.1.0'),
    },
  ],
  'acme/platform/infra': [
    {
      name: '@acme/infra-config',
      version: '0.4.1',
      type: 'npm',
      builtBy: 'main',
      files: [['infra-config-0.4.1.tgz', 3_208]],
    },
  ],
};

/** Checksums of a stand-in file of that name and size, so that they are real digests of something. */
function digest(algorithm: 'md5' | 'sha1', name: string, size: number): string {
  return createHash(algorithm).update(Buffer.alloc(size, name)).digest('hex');
}

/** Adds the demo packages, oldest first so that ids follow publication. */
export function seedPackages(store: Store, epoch: number): void {
  const made = Object.entries(PACKAGES).flatMap(([path, specs]) => {
    const project = store.findProject(path)!;
    return specs.map((spec) => {
      const pipeline =
        spec.builtBy === undefined
          ? undefined
          : project.pipelines.find((p) => p.ref === spec.builtBy && p.status === 'success')!;
      const created = pipeline?.finished_at ?? new Date(epoch - (spec.uploaded ?? 0) * DAY);
      return { project, spec, pipeline, created };
    });
  });
  made.sort((a, b) => a.created.getTime() - b.created.getTime());
  for (const { project, spec, pipeline, created } of made) {
    packagesOf(store).push({
      id: store.nextId('package'),
      project_id: project.id,
      name: spec.name,
      version: spec.version,
      package_type: spec.type,
      created_at: created,
      pipeline_id: pipeline?.id ?? null,
      files: spec.files.map(([name, size]) => ({
        id: store.nextId('package_file'),
        file_name: name,
        size,
        file_md5: digest('md5', name, size),
        file_sha1: digest('sha1', name, size),
        created_at: created,
      })),
    });
  }
}

/** Packages of every project, with their files. */
export const packagesOf = areaState('packages', (): Package[] => []);
