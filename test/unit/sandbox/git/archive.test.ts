// Tests of repository archives: every format the service lists is produced and readable by standard tools.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ARCHIVE_FORMATS,
  createArchive,
  isArchiveFormat,
  type ArchiveFormat,
} from '../../../../src/sandbox/git/archive.js';
import type { GitRepo } from '../../../../src/sandbox/git/repo.js';
import { useRepos, write } from './helpers.js';

const run = promisify(execFile);
const newRepo = useRepos();
let scratch: string;
let repo: GitRepo;
let sha: string;

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'forgeops-archive-'));
  repo = await newRepo();
  sha = await write(repo, { 'README.md': '# demo\n', 'src/index.ts': 'export const x = 1;\n' });
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** Lists the entries of an archive with tar or unzip, from a file written to scratch. */
async function listEntries(body: Buffer, format: ArchiveFormat): Promise<string[]> {
  const file = path.join(scratch, `archive-${format}`);
  await writeFile(file, body);
  if (format === 'zip') {
    const { stdout } = await run('unzip', ['-Z1', file]);
    return stdout.split('\n').filter(Boolean).sort();
  }
  const flag = format === 'tar' ? '-tf' : format === 'tar.gz' ? '-tzf' : '-tjf';
  const { stdout } = await run('tar', [flag, file]);
  return stdout
    .split('\n')
    .filter(Boolean)
    .filter((name) => name !== 'pax_global_header')
    .sort();
}

const MAGIC: Record<string, Buffer> = {
  gzip: Buffer.from([0x1f, 0x8b]),
  bzip2: Buffer.from('BZh'),
  zip: Buffer.from('PK\x03\x04'),
};

describe('createArchive', () => {
  it('knows exactly the formats of the spec', () => {
    expect([...ARCHIVE_FORMATS].sort()).toEqual(['bz2', 'tar', 'tar.bz2', 'tar.gz', 'tb2', 'tbz', 'tbz2', 'zip']);
    expect(isArchiveFormat('tgz')).toBe(false);
    expect(isArchiveFormat('zip')).toBe(true);
  });

  for (const format of ARCHIVE_FORMATS) {
    it(`writes a readable ${format} archive under a named prefix`, async () => {
      const archive = await createArchive(repo, { commitSha: sha, refName: 'feature/x', projectPath: 'demo', format });
      const stem = `demo-feature-x-${sha}`;
      expect(archive.fileName).toBe(`${stem}.${format}`);
      const magic =
        format === 'zip' ? MAGIC.zip : format === 'tar.gz' ? MAGIC.gzip : format === 'tar' ? null : MAGIC.bzip2;
      if (magic) expect(archive.body.subarray(0, magic.length).equals(magic)).toBe(true);
      expect(archive.contentType).toBe(
        { zip: 'application/zip', tar: 'application/x-tar', 'tar.gz': 'application/gzip' }[format as string] ??
          'application/x-bzip2',
      );
      const entries = await listEntries(archive.body, format);
      expect(entries).toEqual([`${stem}/`, `${stem}/README.md`, `${stem}/src/`, `${stem}/src/index.ts`]);
    });
  }
});
