// Proves that a release shows its commit (and the links that lead to code) only to callers who may read the project's commits.
import { describe, expect, it } from 'vitest';
import { PAYMENTS, useSandbox, WEB } from '../unit/sandbox/routes-git-helpers.js';

const { call, sandbox } = useSandbox();

/** The fields of a release that come from the repository. */
const CODE_FIELDS = ['commit', 'commit_path', 'tag_path'] as const;

describe('releases of a private project', () => {
  it('hide commit details from a guest, who gets 403 on the commits themselves', async () => {
    expect((await call('GET', `/projects/${PAYMENTS}/repository/commits`, { as: 'guest' })).status).toBe(403);
    const list = await call('GET', `/projects/${PAYMENTS}/releases`, { as: 'guest' });
    expect(list.status).toBe(200);
    expect(list.data.map((release: { tag_name: string }) => release.tag_name)).toEqual(['v1.1.0', 'v1.0.0']);
    const one = await call('GET', `/projects/${PAYMENTS}/releases/v1.1.0`, { as: 'guest' });
    expect(one.status).toBe(200);
    const repo = sandbox().store.findProject('acme/platform/payments-api')!.repo;
    const commit = await repo.getCommit((await repo.resolveCommit('v1.1.0'))!);
    for (const release of [...list.data, one.data]) {
      for (const field of CODE_FIELDS) expect(release, field).not.toHaveProperty(field);
      expect(release.assets).not.toHaveProperty('sources');
      expect(release.assets.count).toBe(release.assets.links.length);
      // Nothing of the commit may show elsewhere either: its SHA, message, or the author's and committer's e-mail.
      const text = JSON.stringify(release);
      for (const secret of [commit.id, commit.message.trim(), commit.author_email, commit.committer_email])
        expect(text).not.toContain(secret);
    }
    expect(one.data).toMatchObject({ tag_name: 'v1.1.0', name: 'Payments API 1.1.0', author: { username: 'alice' } });
  });

  it('show them to a reporter, who may read the code', async () => {
    const one = await call('GET', `/projects/${PAYMENTS}/releases/v1.1.0`, { as: 'reporter' });
    expect(one.status).toBe(200);
    expect(one.data.commit).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f]{40}$/),
      author_email: expect.stringContaining('@'),
    });
    expect(one.data.commit_path).toBe(`/acme/platform/payments-api/-/commit/${one.data.commit.id}`);
    expect(one.data.assets.sources).toHaveLength(4);
  });
});

describe('releases of a public project', () => {
  it('show the commit to anyone, as its commits are public', async () => {
    const one = await call('GET', `/projects/${WEB}/releases/v1.1.0`, { as: 'anonymous' });
    expect(one.status).toBe(200);
    expect(one.data.commit).toMatchObject({ title: 'Release 1.1.0' });
    expect(one.data.assets.sources).toHaveLength(4);
  });
});
