// Binary results saved under the operator's download folder (FORGEOPS_DOWNLOAD_DIR): unique names, never outside
// the folder, never over an existing file, and the folder itself capped so repeated downloads cannot fill a disk.
import { createHash } from 'node:crypto';
import { mkdir, open, readdir, realpath, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
// From the client's types, not the client: importing client.js would load undici before a stdio server's first call.
import { DEFAULT_MAX_RESPONSE_BYTES } from '../http/types.js';

export const DOWNLOAD_DIR_VARIABLE = 'FORGEOPS_DOWNLOAD_DIR';
/** One saved file at most: the largest answer the HTTP client accepts at all. */
const MAX_DOWNLOAD_BYTES = DEFAULT_MAX_RESPONSE_BYTES;
/** What the folder may hold in all before forgeops stops saving into it (the operator empties it). */
export const MAX_DOWNLOAD_DIR_BYTES = 1024 * 1024 * 1024;
export const MAX_DOWNLOAD_DIR_FILES = 500;
/** Longest file name part kept from the service's name. */
const MAX_NAME_CHARS = 80;

export type SaveOutcome = { saved: true; path: string } | { saved: false; reason: string };

/**
 * A name that is safe on every file system and means nothing to a shell: the base name only (no folders, no
 * "..": a name from the service cannot climb out), letters, digits, dot, dash and underscore, no leading dot.
 */
export function safeFileName(name: string | undefined): string {
  const base = basename((name ?? '').replace(/\\/g, '/'));
  const cleaned = base
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._-]+/, '')
    .slice(-MAX_NAME_CHARS);
  return cleaned === '' ? 'download' : cleaned;
}

async function folderUsage(dir: string): Promise<{ files: number; bytes: number }> {
  let files = 0;
  let bytes = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (!entry.isFile()) continue;
    files += 1;
    bytes += (await stat(join(dir, entry.name)).catch(() => ({ size: 0 }))).size;
  }
  return { files, bytes };
}

/** Writes `bytes` as a new file; 'wx' refuses an existing name (a symlink included), so nothing is overwritten. */
async function writeNew(dir: string, name: string, bytes: Buffer): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    const path = join(dir, attempt === 1 ? name : name.replace(/^([^.]*)/, `$1-${attempt}`));
    // join() of a plain base name stays in the folder; checked anyway, since this is what keeps writes inside.
    if (dirname(path) !== dir) throw new Error(`refusing to write outside ${dir}`);
    try {
      const file = await open(path, 'wx', 0o600);
      try {
        await file.writeFile(bytes);
      } finally {
        await file.close();
      }
      return path;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 20) throw error;
    }
  }
}

async function save(dir: string, name: string | undefined, bytes: Buffer): Promise<SaveOutcome> {
  if (bytes.length > MAX_DOWNLOAD_BYTES)
    return { saved: false, reason: `it is larger than ${MAX_DOWNLOAD_BYTES} bytes` };
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const folder = await realpath(dir);
  const usage = await folderUsage(folder);
  if (usage.files >= MAX_DOWNLOAD_DIR_FILES || usage.bytes + bytes.length > MAX_DOWNLOAD_DIR_BYTES) {
    return {
      saved: false,
      reason: `the download folder is full (${usage.files} files, ${usage.bytes} bytes; at most ${MAX_DOWNLOAD_DIR_FILES} files and ${MAX_DOWNLOAD_DIR_BYTES} bytes): the operator must clear ${folder}`,
    };
  }
  // The digest makes the name unique per content and lets a reader match the file to the result's sha256.
  const digest = createHash('sha256').update(bytes).digest('hex').slice(0, 12);
  return { saved: true, path: await writeNew(folder, `${digest}-${safeFileName(name)}`, bytes) };
}

/** Saves one at a time, so two downloads at once cannot both pass the folder's cap. */
let queue: Promise<unknown> = Promise.resolve();

export function saveDownload(dir: string, name: string | undefined, bytes: Buffer): Promise<SaveOutcome> {
  const next = queue
    .then(() => save(dir, name, bytes))
    .catch((error: Error) => ({ saved: false as const, reason: error.message }));
  queue = next;
  return next;
}
