// Proves that bad input (lone surrogates, huge content, NUL, huge refs and tags) is a 4xx that stores nothing, never a 500.
import { describe, expect, it } from 'vitest';
import { enc, newFileCommit, useSandbox, WEB } from '../unit/sandbox/routes-git-helpers.js';

const { call, sandbox } = useSandbox();
const repo = () => sandbox().store.findProject('acme/web')!.repo;
const commits = `/projects/${WEB}/repository/commits`;
const MiB = 1024 * 1024;

async function releaseTags(): Promise<string[]> {
  const releases = await call('GET', `/projects/${WEB}/releases`, { query: { per_page: '100' } });
  expect(releases.status).toBe(200);
  return releases.data.map((release: { tag_name: string }) => release.tag_name);
}

/** Asserts that nothing was stored: releases still list (200, same tags), and the branch does not exist. */
async function expectNothingStored(before: string[], branch?: string): Promise<void> {
  expect(await releaseTags()).toEqual(before);
  if (branch !== undefined) expect(await repo().branchExists(branch)).toBe(false);
}

describe('strings that are not valid UTF-16', () => {
  it('refuses a lone surrogate in tag_name with 400 naming it, and stores no release', async () => {
    const before = await releaseTags();
    const answer = await call('POST', `/projects/${WEB}/releases`, {
      json: { tag_name: '\ud800', ref: 'main', description: 'x' },
    });
    expect(answer.status).toBe(400);
    expect(answer.data).toEqual({ error: 'tag_name is invalid: it contains a lone UTF-16 surrogate' });
    await expectNothingStored(before);
  });

  it('names a nested parameter, and also refuses a lone low surrogate', async () => {
    const answer = await call('POST', commits, {
      json: newFileCommit('surrogate', { file_path: 'ok.txt', content: 'a \udc00 b' }),
    });
    expect(answer.status).toBe(400);
    expect(answer.data).toEqual({ error: 'actions[0][content] is invalid: it contains a lone UTF-16 surrogate' });
    expect(await repo().branchExists('surrogate')).toBe(false);
    // A well-formed pair (an emoji) is fine.
    const emoji = await call('POST', commits, {
      json: newFileCommit('emoji', { file_path: '🎉.txt', content: '🎉' }, { commit_message: 'Add 🎉' }),
    });
    expect(emoji.status).toBe(201);
  });
});

describe('file content size', () => {
  const base64Of = (bytes: number) => Buffer.alloc(bytes, 7).toString('base64');

  it('takes base64 content of 4 MiB (from about 3.2 MiB it was a 500)', async () => {
    const content = base64Of(4 * MiB);
    const answer = await call('POST', commits, {
      json: newFileCommit('big-ok', { file_path: 'big.bin', content, encoding: 'base64' }, { commit_message: 'Big' }),
    });
    expect(answer.status).toBe(201);
    const file = await call('GET', `/projects/${WEB}/repository/files/${enc('big.bin')}`, { query: { ref: 'big-ok' } });
    expect(file.data.size).toBe(4 * MiB);
  });

  it('refuses content above the 10 MiB file limit with 413, for commits and file writes', async () => {
    const content = base64Of(10 * MiB + 1);
    const tooBig = await call('POST', commits, {
      json: newFileCommit(
        'big-no',
        { file_path: 'huge.bin', content, encoding: 'base64' },
        { commit_message: 'Too big' },
      ),
    });
    expect(tooBig.status).toBe(413);
    expect(tooBig.data).toEqual({
      message: 'actions[0][content] is too large: 10485761 bytes, the limit is 10485760 bytes (10 MiB) a file',
    });
    expect(await repo().branchExists('big-no')).toBe(false);
    const file = await call('POST', `/projects/${WEB}/repository/files/${enc('huge.txt')}`, {
      json: { branch: 'big-file', start_branch: 'main', commit_message: 'Too big', content: 'x'.repeat(10 * MiB + 1) },
    });
    expect(file.status).toBe(413);
    expect(file.data.message).toMatch(/^content is too large/);
    expect(await repo().branchExists('big-file')).toBe(false);
  });

  it('still refuses malformed base64 with 400', async () => {
    const answer = await call('POST', commits, {
      json: newFileCommit('bad-b64', { file_path: 'b', content: 'abc', encoding: 'base64' }),
    });
    expect(answer.status).toBe(400);
    expect(answer.data).toEqual({ error: 'actions[0][content] is not valid base64' });
  });
});

describe('a NUL byte in a commit message', () => {
  it('is refused with 400 naming commit_message, and makes no commit', async () => {
    const mainBefore = await repo().resolveCommit('main');
    const onNewBranch = await call('POST', commits, {
      json: newFileCommit('nul', { file_path: 'n.txt', content: 'n' }, { commit_message: 'before\u0000after' }),
    });
    expect(onNewBranch.status).toBe(400);
    expect(onNewBranch.data).toEqual({ message: 'commit_message is invalid: it contains a NUL byte' });
    expect(await repo().branchExists('nul')).toBe(false);
    const onMain = await call('PUT', `/projects/${WEB}/repository/files/${enc('README.md')}`, {
      as: 'maintainer',
      json: { branch: 'main', commit_message: '\u0000', content: 'changed' },
    });
    expect(onMain.status).toBe(400);
    expect(onMain.data).toEqual({ message: 'commit_message is invalid: it contains a NUL byte' });
    expect(await repo().resolveCommit('main')).toBe(mainBefore);
  });
});

describe('huge refs and tags', () => {
  const huge = 'r'.repeat(128 * 1024);

  it('refuses a 128 KB branch or start branch with 400, creating nothing', async () => {
    const branch = await call('POST', commits, {
      json: newFileCommit(huge, { file_path: 'h.txt', content: 'h' }),
    });
    expect(branch.status).toBe(400);
    expect(branch.data).toEqual({ message: 'branch is invalid: it is longer than 255 bytes' });
    const start = await call('POST', commits, {
      json: {
        branch: 'from-huge',
        start_branch: huge,
        commit_message: 'm',
        actions: [{ action: 'create', file_path: 'h.txt', content: 'h' }],
      },
    });
    expect(start.status).toBe(400);
    expect(await repo().branchExists('from-huge')).toBe(false);
    const file = await call('POST', `/projects/${WEB}/repository/files/${enc('h.txt')}`, {
      json: { branch: huge, start_branch: 'main', commit_message: 'm', content: 'h' },
    });
    expect(file.status).toBe(400);
  });

  it('answers 404 for reads at a huge ref, and 400 for a pipeline or release at one', async () => {
    const longQueryRef = 'q'.repeat(10_000);
    expect(
      (await call('GET', `/projects/${WEB}/repository/files/${enc('README.md')}`, { query: { ref: longQueryRef } }))
        .status,
    ).toBe(404);
    expect((await call('GET', `/projects/${WEB}/repository/tree`, { query: { ref: longQueryRef } })).status).toBe(404);
    expect((await call('GET', commits, { query: { ref_name: longQueryRef } })).status).toBe(404);
    expect(
      (await call('GET', `/projects/${WEB}/repository/compare`, { query: { from: 'main', to: longQueryRef } })).status,
    ).toBe(404);
    const pipeline = await call('POST', `/projects/${WEB}/pipeline`, { json: { ref: huge } });
    expect(pipeline.status).toBe(400);
    const before = await releaseTags();
    const release = await call('POST', `/projects/${WEB}/releases`, {
      json: { tag_name: 'v-huge-ref', ref: huge, description: 'x' },
    });
    expect(release.status).toBe(400);
    await expectNothingStored(before);
  });

  it('refuses a 10,000-character tag_name with 400, storing no release and no tag', async () => {
    const before = await releaseTags();
    const tag = 't'.repeat(10_000);
    const answer = await call('POST', `/projects/${WEB}/releases`, {
      json: { tag_name: tag, ref: 'main', description: 'x' },
    });
    expect(answer.status).toBe(400);
    expect(answer.data).toEqual({ message: 'tag_name is invalid: it is longer than 255 bytes' });
    await expectNothingStored(before);
    expect(await repo().tagExists(tag)).toBe(false);
  });
});
