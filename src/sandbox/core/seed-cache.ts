// The demo repositories' template kept between processes: every `forgeops chat "…"`, stdio server or test that starts
// an embedded sandbox used to write the same histories with git again (about 0.4 s of CPU a process). Kept in a
// directory of this user's own, under a key that is the histories themselves, and published whole or not at all.
import { mkdtemp, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { privateCacheDir } from '../../cache-dir.js';

/** A built template: its bare repositories and, for each, the commits its history wrote (in seed order). */
export interface SeedTemplateFiles {
  repoDirs: string[];
  histories: Array<Array<{ sha: string; parent: string | null }>>;
}

/** Written last in a template's directory: a directory without it is not a template (yet). */
const MANIFEST = 'seed.json';
/** A key's directory made this long ago is another day's (the seed's dates move daily) or another version's. */
const STALE_MS = 2 * 24 * 3600_000;
/** A build that has not been published in this time was abandoned (its process killed). */
const ABANDONED_MS = 3600_000;

/** This user's template directory under `base` (see privateCacheDir): undefined where it cannot be trusted. */
export async function seedCacheRoot(base = tmpdir()): Promise<string | undefined> {
  return privateCacheDir('sandbox-seed', base);
}

/**
 * The template under `key` in `root`: read when it is there; else made by `build` in a directory of its own and
 * published with one rename, so that a process reading never sees half a template and two processes building at
 * once both end up with one whole copy (the first published).
 */
export async function cachedTemplate(
  root: string,
  key: string,
  build: (dir: string) => Promise<SeedTemplateFiles>,
): Promise<SeedTemplateFiles> {
  const dir = join(root, key);
  const published = await readTemplate(dir);
  if (published) return published;
  await pruneStale(root, key);
  const building = await mkdtemp(join(root, '.building-'));
  try {
    const built = await build(building);
    const manifest: SeedTemplateFiles = {
      repoDirs: built.repoDirs.map((repoDir) => relative(building, repoDir)),
      histories: built.histories,
    };
    await writeFile(join(building, MANIFEST), JSON.stringify(manifest));
    await rename(building, dir).catch(async (error: NodeJS.ErrnoException) => {
      // Another process published the same key first: its copy serves (it is the same, byte for byte).
      if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
    });
  } finally {
    await rm(building, { recursive: true, force: true });
  }
  const template = await readTemplate(dir);
  if (!template) throw new Error(`the sandbox's seed template at ${dir} could not be read back`);
  return template;
}

async function readTemplate(dir: string): Promise<SeedTemplateFiles | undefined> {
  try {
    const manifest = JSON.parse(await readFile(join(dir, MANIFEST), 'utf8')) as SeedTemplateFiles;
    return { repoDirs: manifest.repoDirs.map((repoDir) => join(dir, repoDir)), histories: manifest.histories };
  } catch {
    return undefined;
  }
}

/** Removes other keys' templates made two days ago or more, and builds abandoned for an hour. */
async function pruneStale(root: string, key: string): Promise<void> {
  const now = Date.now();
  const names = await readdir(root).catch(() => [] as string[]);
  await Promise.all(
    names.map(async (name) => {
      if (name === key) return;
      const modified = (await stat(join(root, name)).catch(() => undefined))?.mtimeMs;
      if (modified === undefined) return;
      const age = now - modified;
      if (name.startsWith('.building-') ? age > ABANDONED_MS : age > STALE_MS)
        await rm(join(root, name), { recursive: true, force: true });
    }),
  );
}
