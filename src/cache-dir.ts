// This user's private cache directories under the temporary directory, kept between processes: the sandbox's demo
// repositories, the stdio server's compiled code. Trusted only when private, since what is read back from them runs.
import { lstatSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * `<base>/forgeops-<uid>/<name>`, made private (0700); undefined where it cannot be trusted: a directory that someone
 * else owns, or that others may write to, could hold repositories with hooks of theirs or code to run as this user.
 */
export function privateCacheDir(name: string, base = tmpdir()): string | undefined {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined;
  const mine = join(base, `forgeops-${uid}`);
  const dir = join(mine, name);
  try {
    // Each level checked before anything is made inside it.
    for (const level of [mine, dir]) {
      mkdirSync(level, { recursive: true, mode: 0o700 });
      const info = lstatSync(level);
      if (!info.isDirectory() || info.uid !== uid || (info.mode & 0o077) !== 0) return undefined;
    }
    return dir;
  } catch {
    return undefined;
  }
}
