// Proves that branch and tag names git and the service refuse are refused (400 naming the parameter) wherever the sandbox creates a branch or tag.
import { describe, expect, it } from 'vitest';
import { enc, newFileCommit, useSandbox, WEB } from '../unit/sandbox/routes-git-helpers.js';

const { call, sandbox } = useSandbox();
const repo = () => sandbox().store.findProject('acme/web')!.repo;

/** Every ref of acme/web, to show that a refusal created none. */
async function allRefs(): Promise<string[]> {
  return (await repo().text(['for-each-ref', '--format=%(refname)'])).split('\n');
}

const REFUSED: Array<[name: string, why: string]> = [
  ['-evil', "it starts with '-'"],
  ['--upload-pack=x', "it starts with '-'"],
  ['HEAD', "'HEAD' is reserved"],
  ['@', "'@' is reserved"],
  ['refs/heads/x', "it starts with 'refs/'"],
  ['a..b', 'it breaks the ref name rules of git check-ref-format'],
  ['x.lock', 'it breaks the ref name rules of git check-ref-format'],
  ['with space', 'it breaks the ref name rules of git check-ref-format'],
  ['b'.repeat(256), 'it is longer than 255 bytes'],
];

describe.each(REFUSED)('the name %j', (name, why) => {
  it('is refused as a new branch of a commit', async () => {
    const refs = await allRefs();
    const answer = await call('POST', `/projects/${WEB}/repository/commits`, {
      json: newFileCommit(name, { file_path: 'evil.txt', content: 'x' }),
    });
    expect(answer.status).toBe(400);
    expect(answer.data).toEqual({ message: `branch is invalid: ${why}` });
    expect(await allRefs()).toEqual(refs);
  });

  it('is refused as the branch of a file write', async () => {
    const refs = await allRefs();
    const answer = await call('POST', `/projects/${WEB}/repository/files/${enc('evil.txt')}`, {
      json: { branch: name, start_branch: 'main', commit_message: 'm', content: 'x' },
    });
    expect(answer.status).toBe(400);
    expect(answer.data).toEqual({ message: `branch is invalid: ${why}` });
    expect(await allRefs()).toEqual(refs);
  });

  it('is refused as the tag of a new release, which is not stored', async () => {
    const refs = await allRefs();
    const releases = (await call('GET', `/projects/${WEB}/releases`)).data;
    const answer = await call('POST', `/projects/${WEB}/releases`, {
      json: { tag_name: name, ref: 'main', description: 'x' },
    });
    expect(answer.status).toBe(400);
    expect(answer.data).toEqual({ message: `tag_name is invalid: ${why}` });
    expect(await allRefs()).toEqual(refs);
    expect((await call('GET', `/projects/${WEB}/releases`)).data).toEqual(releases);
  });

  it('names no branch to cherry-pick onto (404, nothing created)', async () => {
    const refs = await allRefs();
    const answer = await call('POST', `/projects/${WEB}/repository/commits/main/cherry_pick`, {
      json: { branch: name },
    });
    expect(answer.status).toBe(404);
    expect(await allRefs()).toEqual(refs);
  });
});

describe('names git accepts', () => {
  it('still make branches and tags', async () => {
    const commit = await call('POST', `/projects/${WEB}/repository/commits`, {
      json: newFileCommit('feature/ok-1.2_x', { file_path: 'ok.txt', content: 'x' }),
    });
    expect(commit.status).toBe(201);
    const release = await call('POST', `/projects/${WEB}/releases`, {
      json: { tag_name: 'v2.0.0-rc.1', ref: 'feature/ok-1.2_x', description: 'x' },
    });
    expect(release.status).toBe(201);
    expect(await repo().resolveCommit('v2.0.0-rc.1')).toBe(commit.data.id);
  });
});
