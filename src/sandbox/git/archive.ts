// Repository archives: git archive for tar, tar.gz and zip, and tar through the bzip2 program for the bz2 forms.
import type { GitRepo } from './repo.js';
import { runProgram } from './run.js';

/** Every suffix the service accepts after `archive.`; tar.gz is the default. */
export const ARCHIVE_FORMATS = ['tar.gz', 'tar.bz2', 'tbz', 'tbz2', 'tb2', 'bz2', 'tar', 'zip'] as const;
export type ArchiveFormat = (typeof ARCHIVE_FORMATS)[number];

export function isArchiveFormat(value: string): value is ArchiveFormat {
  return (ARCHIVE_FORMATS as readonly string[]).includes(value);
}

export interface Archive {
  body: Buffer;
  /** File name for Content-Disposition, e.g. `app-main-3f2a….tar.gz`. */
  fileName: string;
  contentType: string;
}

function isBzip2(format: ArchiveFormat): boolean {
  return format === 'tar.bz2' || format === 'tbz' || format === 'tbz2' || format === 'tb2' || format === 'bz2';
}

function contentTypeOf(format: ArchiveFormat): string {
  if (format === 'zip') return 'application/zip';
  if (format === 'tar') return 'application/x-tar';
  if (format === 'tar.gz') return 'application/gzip';
  return 'application/x-bzip2';
}

async function compressWithBzip2(input: Buffer): Promise<Buffer> {
  const result = await runProgram('bzip2', ['-c'], { input, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
  if (result.exitCode !== 0) throw new Error(`bzip2 failed (${result.exitCode ?? 'signal'}): ${result.stderr.trim()}`);
  return result.stdout;
}

/**
 * The archive of commitSha. Every entry sits under `<stem>/`, and the download is named `<stem>.<format>`,
 * where stem is `<projectPath>-<refName>-<sha>[-<path>]` (slashes become dashes), as the service does.
 */
export async function createArchive(
  repo: GitRepo,
  options: { commitSha: string; refName: string; projectPath: string; format: ArchiveFormat; path?: string },
): Promise<Archive> {
  const { commitSha, format, path } = options;
  // With a path only that subdirectory goes in (kept at its place under the stem), and the vendor names the
  // download after it too: `<stem>-<path with dashes>`.
  const stem = [
    options.projectPath,
    options.refName.replace(/\//g, '-'),
    commitSha,
    ...(path ? [path.replace(/\//g, '-')] : []),
  ].join('-');
  const gitFormat = format === 'zip' ? 'zip' : format === 'tar.gz' ? 'tar.gz' : 'tar';
  const only = path ? ['--', path] : [];
  const { stdout } = await repo.run(['archive', `--format=${gitFormat}`, `--prefix=${stem}/`, commitSha, ...only]);
  return {
    body: isBzip2(format) ? await compressWithBzip2(stdout) : stdout,
    fileName: `${stem}.${format}`,
    contentType: contentTypeOf(format),
  };
}
