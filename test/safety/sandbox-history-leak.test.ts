// Proves that a refused cross-project commit copies no private history, and that only reachable commits and blobs with 7+ hex chars resolve.
import { describe, expect, it } from 'vitest';
import { enc, newFileCommit, useSandbox, WEB } from '../unit/sandbox/routes-git-helpers.js';

const { call, sandbox } = useSandbox();
const project = (path: string) => sandbox().store.findProject(path)!;

/** True when the object is stored in the repository at all (reachable or not). */
async function stored(path: string, sha: string): Promise<boolean> {
  const { exitCode } = await project(path).repo.run(['cat-file', '-e', sha], { okCodes: [1, 128] });
  return exitCode === 0;
}

describe('a refused commit with start_project', () => {
  it('leaves no private object in the public project, readable by SHA or not', async () => {
    const privateSha = (await project('acme/platform/payments-api').repo.resolveCommit('main'))!;
    const privateReadme = (
      await project('acme/platform/payments-api').repo.readObjects([`${privateSha}:README.md`])
    )[0]!.oid;
    // alice may read payments-api and push to acme/web's main, but 'main' exists there and force is off: refused.
    const refused = await call('POST', `/projects/${WEB}/repository/commits`, {
      as: 'maintainer',
      json: newFileCommit(
        'main',
        { file_path: 'leak.txt', content: 'x' },
        { start_project: 'acme/platform/payments-api', commit_message: 'Bring over payments' },
      ),
    });
    expect(refused.status).toBe(400);
    expect(refused.data.message).toContain("A branch called 'main' already exists");
    expect(await stored('acme/web', privateSha)).toBe(false);
    expect(await stored('acme/web', privateReadme)).toBe(false);

    for (const as of ['anonymous', 'developer'] as const) {
      expect((await call('GET', `/projects/${WEB}/repository/commits/${privateSha}`, { as })).status).toBe(404);
      expect((await call('GET', `/projects/${WEB}/repository/commits/${privateSha}/diff`, { as })).status).toBe(404);
      expect(
        (await call('GET', `/projects/${WEB}/repository/archive`, { as, query: { sha: privateSha } })).status,
      ).toBe(404);
      expect((await call('GET', `/projects/${WEB}/repository/blobs/${privateReadme}`, { as })).status).toBe(404);
    }
  });

  it('refuses a start project the caller cannot read before anything is copied', async () => {
    const scratchpadSha = (await project('bob/scratchpad').repo.resolveCommit('main'))!;
    // alice maintains acme/web but is no member of bob's private personal project.
    const hidden = await call('POST', `/projects/${WEB}/repository/commits`, {
      as: 'maintainer',
      json: newFileCommit('from-scratchpad', { file_path: 'x', content: 'x' }, { start_project: 'bob/scratchpad' }),
    });
    expect(hidden.status).toBe(404);
    expect(hidden.data).toEqual({ message: '404 Project Not Found' });
    expect(await stored('acme/web', scratchpadSha)).toBe(false);
  });

  it('still brings the history over when the commit is accepted', async () => {
    const privateSha = (await project('acme/platform/payments-api').repo.resolveCommit('main'))!;
    const accepted = await call('POST', `/projects/${WEB}/repository/commits`, {
      json: newFileCommit(
        'from-payments',
        { file_path: 'p.txt', content: 'p' },
        { start_project: 'acme/platform/payments-api', commit_message: 'Bring over payments' },
      ),
    });
    expect(accepted.status).toBe(201);
    expect(accepted.data.parent_ids).toEqual([privateSha]);
    const files = await call('GET', `/projects/${WEB}/repository/tree`, { query: { ref: 'from-payments' } });
    expect(files.data.map((entry: { path: string }) => entry.path)).toEqual(
      expect.arrayContaining(['go.mod', 'p.txt']),
    );
  });
});

describe('resolving SHAs', () => {
  it('needs at least 7 hex characters for an abbreviated SHA', async () => {
    const mainSha = (await project('acme/web').repo.resolveCommit('main'))!;
    expect((await call('GET', `/projects/${WEB}/repository/commits/${mainSha.slice(0, 7)}`)).status).toBe(200);
    for (const length of [4, 5, 6]) {
      const short = await call('GET', `/projects/${WEB}/repository/commits/${mainSha.slice(0, length)}`);
      expect(short.status, `prefix of ${length}`).toBe(404);
      expect(short.data).toEqual({ message: '404 Commit Not Found' });
      const archive = await call('GET', `/projects/${WEB}/repository/archive`, {
        query: { sha: mainSha.slice(0, length) },
      });
      expect(archive.status).toBe(404);
    }
    const readmeBlob = (await project('acme/web').repo.readObjects([`${mainSha}:README.md`]))[0]!.oid;
    expect((await call('GET', `/projects/${WEB}/repository/blobs/${readmeBlob.slice(0, 7)}`)).status).toBe(200);
    expect((await call('GET', `/projects/${WEB}/repository/blobs/${readmeBlob.slice(0, 6)}`)).status).toBe(404);
  });

  it('answers 404 for a commit and a blob that are stored but reachable from no branch or tag', async () => {
    const first = await call('POST', `/projects/${WEB}/repository/commits`, {
      json: newFileCommit(
        'overwritten',
        { file_path: 'orphan.txt', content: 'only in the overwritten commit\n' },
        { commit_message: 'Soon unreachable' },
      ),
    });
    expect(first.status).toBe(201);
    const orphanBlob = (await project('acme/web').repo.readObjects([`${first.data.id}:orphan.txt`]))[0]!.oid;
    const forced = await call('POST', `/projects/${WEB}/repository/commits`, {
      json: newFileCommit(
        'overwritten',
        { file_path: 'other.txt', content: 'y' },
        { force: true, commit_message: 'Replaces it' },
      ),
    });
    expect(forced.status).toBe(201);
    expect(await stored('acme/web', first.data.id)).toBe(true);
    expect((await call('GET', `/projects/${WEB}/repository/commits/${first.data.id}`)).status).toBe(404);
    expect(
      (await call('GET', `/projects/${WEB}/repository/files/${enc('orphan.txt')}`, { query: { ref: first.data.id } }))
        .status,
    ).toBe(404);
    expect((await call('GET', `/projects/${WEB}/repository/blobs/${orphanBlob}`)).status).toBe(404);
  });
});
