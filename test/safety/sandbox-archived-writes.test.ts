// Proves that an archived project refuses release, commit comment and pipeline writes as it refuses file writes (403, nothing stored).
import { afterEach, describe, expect, it } from 'vitest';
import { enc, useSandbox, WEB } from '../unit/sandbox/routes-git-helpers.js';

const { call, sandbox } = useSandbox();
const HANDBOOK = enc('acme/handbook');
const ARCHIVED = { message: '403 Forbidden - the project is archived and read-only' };
const project = (path: string) => sandbox().store.findProject(path)!;

// acme/web is archived for a test where the writes need existing releases or pipelines; never for long.
afterEach(() => {
  project('acme/web').archived = false;
});

describe('an archived project', () => {
  it('refuses a file write (the rule the others follow)', async () => {
    const write = await call('POST', `/projects/${HANDBOOK}/repository/files/${enc('new.md')}`, {
      as: 'maintainer',
      json: { branch: 'main', content: 'x', commit_message: 'm' },
    });
    expect(write.status).toBe(403);
    expect(write.data).toEqual(ARCHIVED);
  });

  it('refuses to create a release, and creates no tag', async () => {
    const created = await call('POST', `/projects/${HANDBOOK}/releases`, {
      as: 'maintainer',
      json: { tag_name: 'v9.0.0', ref: 'main', description: 'Should not exist' },
    });
    expect(created.status).toBe(403);
    expect(created.data).toEqual(ARCHIVED);
    expect((await call('GET', `/projects/${HANDBOOK}/releases`)).data).toEqual([]);
    expect(await project('acme/handbook').repo.tagExists('v9.0.0')).toBe(false);
  });

  it('refuses to update a release', async () => {
    project('acme/web').archived = true;
    const updated = await call('PUT', `/projects/${WEB}/releases/v1.0.0`, {
      as: 'maintainer',
      json: { name: 'Renamed while archived' },
    });
    expect(updated.status).toBe(403);
    expect(updated.data).toEqual(ARCHIVED);
    expect((await call('GET', `/projects/${WEB}/releases/v1.0.0`)).data.name).not.toBe('Renamed while archived');
  });

  it('refuses a commit comment', async () => {
    const sha = (await project('acme/handbook').repo.resolveCommit('main'))!;
    const comment = await call('POST', `/projects/${HANDBOOK}/repository/commits/${sha}/comments`, {
      as: 'maintainer',
      json: { note: 'Archived, yet commented' },
    });
    expect(comment.status).toBe(403);
    expect(comment.data).toEqual(ARCHIVED);
    expect((await call('GET', `/projects/${HANDBOOK}/repository/commits/${sha}/comments`)).data).toEqual([]);
  });

  it('refuses pipeline writes: create, retry, cancel and delete', async () => {
    project('acme/web').archived = true;
    const pipelines = project('acme/web').pipelines;
    const before = pipelines.map((pipeline) => ({ ...pipeline }));
    const [first] = before;
    const attempts = [
      call('POST', `/projects/${WEB}/pipeline`, { as: 'maintainer', json: { ref: 'main' } }),
      call('POST', `/projects/${WEB}/pipelines/${first.id}/retry`, { as: 'maintainer' }),
      call('POST', `/projects/${WEB}/pipelines/${first.id}/cancel`, { as: 'maintainer' }),
      call('DELETE', `/projects/${WEB}/pipelines/${first.id}`, { as: 'maintainer' }),
    ];
    for (const answer of await Promise.all(attempts)) {
      expect(answer.status).toBe(403);
      expect(answer.data).toEqual(ARCHIVED);
    }
    expect(pipelines).toEqual(before);
  });

  it('still answers reads', async () => {
    expect((await call('GET', `/projects/${HANDBOOK}/releases`, { as: 'anonymous' })).status).toBe(200);
    expect((await call('GET', `/projects/${HANDBOOK}/repository/commits`, { as: 'anonymous' })).status).toBe(200);
  });
});
