// Tag reads and deletes on a project's git repository (creation is GitRepo.createTag).
import type { GitRepo } from '../../git/repo.js';

export interface TagRef {
  name: string;
  /** The tag object for an annotated tag, the commit for a lightweight one. */
  target: string;
  commit: string;
  /** The annotation, '' for a lightweight tag. */
  message: string;
  annotated: boolean;
  /** The tagger's date of an annotated tag (seconds), null otherwise. */
  taggedAt: number | null;
}

const FIELDS = 6;

/** Every tag of the repository that points (perhaps through its annotation) at a commit. */
export async function listTags(repo: GitRepo): Promise<TagRef[]> {
  const format =
    '--format=%(refname:strip=2)%00%(objecttype)%00%(objectname)%00%(*objectname)%00%(*objecttype)%00%(creatordate:unix)%00%(contents)%00';
  const { stdout } = await repo.run(['for-each-ref', format, 'refs/tags/']);
  const text = stdout.toString('utf8');
  const tags: TagRef[] = [];
  // Each record is seven NUL-terminated fields followed by git's newline.
  const fields = text.split('\0');
  for (let i = 0; i + FIELDS + 1 <= fields.length; i += FIELDS + 1) {
    const [rawName, type, sha, peeled, peeledType, date, contents] = fields.slice(i, i + FIELDS + 1);
    const name = rawName.replace(/^\n/, '');
    if (name === '') continue;
    if (type === 'commit') {
      tags.push({ name, target: sha, commit: sha, message: '', annotated: false, taggedAt: null });
    } else if (type === 'tag' && peeledType === 'commit') {
      tags.push({
        name,
        target: sha,
        commit: peeled,
        message: contents.replace(/\n+$/, ''),
        annotated: true,
        taggedAt: Number(date) || null,
      });
    }
  }
  return tags;
}

export async function deleteTag(repo: GitRepo, name: string, expected: string): Promise<void> {
  await repo.withWriteLock(() => repo.run(['update-ref', '-d', `refs/tags/${name}`, expected]));
}
