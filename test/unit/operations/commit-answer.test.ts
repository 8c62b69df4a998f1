// A commit's readable answer: one "author, date" line (the committer only when someone else committed it), not the
// service's nine author and committer fields.
import { describe, expect, it } from 'vitest';
import { findOperation } from '../../../src/operations/index.js';

const commit = {
  id: 'ad91501aaeb12cba3b64799fe039b09c75185478',
  short_id: 'ad91501a',
  title: 'Show 50 search results per page',
  message: 'Show 50 search results per page\n\nTwenty was too few.\n',
  author_name: 'Alice Martin',
  author_email: 'alice@acme.example',
  authored_date: '2026-11-25T13:02:00.000+00:00',
  committer_name: 'Alice Martin',
  committer_email: 'alice@acme.example',
  committed_date: '2026-11-25T13:02:00.000+00:00',
  created_at: '2026-11-25T13:02:00.000+00:00',
  stats: { additions: 3, deletions: 1, total: 4 },
  last_pipeline: { id: 9, status: 'failed' },
};

describe("a commit's readable answer", () => {
  it('says who wrote it and when on one line, and never lists the author and committer fields', () => {
    for (const name of ['get_commit', 'create_commit', 'cherry_pick_commit', 'revert_commit']) {
      const shown = findOperation(name)!.present!(commit, { id: 'acme/web', sha: 'main', branch: 'main' } as never);
      expect(shown.title, name).toBe('Commit ad91501a: Show 50 search results per page');
      expect(shown.fields, name).toEqual([
        ['commit', 'ad91501a'],
        ['author', 'Alice Martin <alice@acme.example>, 2026-11-25 13:02 UTC'],
        ['changes', '+3 −1'],
        ['pipeline', '#9 failed'],
      ]);
      expect(JSON.stringify(shown), name).not.toMatch(/committer|author_|committed_date|authored_date/);
      expect(shown.sections?.[0].text, name).toContain('Twenty was too few.');
    }
  });

  it('adds the committer on a line of their own only when someone else committed it', () => {
    const picked = {
      ...commit,
      committer_name: 'Rosa Root',
      committer_email: 'root@acme.example',
      committed_date: '2026-11-26T08:00:00.000Z',
    };
    const shown = findOperation('get_commit')!.present!(picked, { id: 'acme/web', sha: 'main' });
    expect(shown.fields).toContainEqual(['committer', 'Rosa Root <root@acme.example>, 2026-11-26 08:00 UTC']);
    expect(shown.fields?.filter(([label]) => label === 'author')).toHaveLength(1);
  });
});
