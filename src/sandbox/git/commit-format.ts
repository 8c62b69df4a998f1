// Reads commit metadata out of `git log` in one pass and shapes it as the service's commit record.

/** A commit as the service describes it (stats and pipeline are added by callers that need them). */
export interface GitCommitInfo {
  id: string;
  short_id: string;
  title: string;
  message: string;
  author_name: string;
  author_email: string;
  authored_date: string;
  committer_name: string;
  committer_email: string;
  committed_date: string;
  created_at: string;
  parent_ids: string[];
}

/** Fields of one commit, each NUL-terminated under `git log -z` (the last one by git's own separator). */
export const COMMIT_LOG_FORMAT = '--format=%H%x00%P%x00%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%B';
const FIELDS_PER_COMMIT = 9;

/** git's strict ISO form has no milliseconds; the service writes `2024-01-02T03:04:05.000+00:00`. */
function serviceDate(iso: string): string {
  return iso.replace(
    /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(Z|[+-]\d\d:\d\d)$/,
    (_, time: string, zone: string) => `${time}.000${zone === 'Z' ? '+00:00' : zone}`,
  );
}

function commitTitle(message: string): string {
  return message.replace(/^\s+/, '').split('\n', 1)[0].trimEnd();
}

/** Parses the output of `git log -z COMMIT_LOG_FORMAT` (any number of commits). */
export function parseCommitLog(output: Buffer): GitCommitInfo[] {
  const fields = output.toString('utf8').split('\0');
  const commits: GitCommitInfo[] = [];
  for (let i = 0; i + FIELDS_PER_COMMIT <= fields.length; i += FIELDS_PER_COMMIT) {
    const [id, parents, authorName, authorEmail, authored, committerName, committerEmail, committed, message] =
      fields.slice(i, i + FIELDS_PER_COMMIT);
    if (!/^[0-9a-f]{40}$/.test(id)) break;
    commits.push({
      id,
      short_id: id.slice(0, 8),
      title: commitTitle(message),
      message,
      author_name: authorName,
      author_email: authorEmail,
      authored_date: serviceDate(authored),
      committer_name: committerName,
      committer_email: committerEmail,
      committed_date: serviceDate(committed),
      created_at: serviceDate(committed),
      parent_ids: parents === '' ? [] : parents.split(' '),
    });
  }
  return commits;
}
