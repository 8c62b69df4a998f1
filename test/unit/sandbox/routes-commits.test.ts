// Route tests of the commit endpoints over HTTP: listing with filters, multi-file commits (JSON and form),
// single commits with stats and pipeline, refs, cherry-pick, revert, diff and comments.
import { beforeAll, describe, expect, it } from 'vitest';
import { enc, PAYMENTS, useSandbox, WEB } from './routes-git-helpers.js';

const { call, sandbox } = useSandbox();

// These tests are about the writes themselves, made as a developer: main is unprotected here (protected branches
// have tests of their own).
beforeAll(async () => {
  for (const project of [WEB, PAYMENTS]) {
    expect((await call('DELETE', `/projects/${project}/protected_branches/main`, { as: 'maintainer' })).status).toBe(
      204,
    );
  }
});
const commits = (project = WEB) => `/projects/${project}/repository/commits`;
const ids = (list: { id: string }[]) => list.map((c) => c.id);
const webRepo = () => sandbox().store.findProject('acme/web')!.repo;

async function commit(branch: string, actions: unknown[], extra: Record<string, unknown> = {}) {
  return call('POST', commits(), { json: { branch, commit_message: `Commit on ${branch}`, actions, ...extra } });
}

async function createOn(branch: string, files: Record<string, string>, startBranch?: string): Promise<string> {
  const answer = await commit(
    branch,
    Object.entries(files).map(([file_path, content]) => ({ action: 'create', file_path, content })),
    startBranch ? { start_branch: startBranch } : {},
  );
  expect(answer.status, JSON.stringify(answer.data)).toBe(201);
  return answer.data.id;
}

describe('creating commits', () => {
  it('applies every action kind from a JSON body and answers 201 with stats', async () => {
    await createOn(
      'actions',
      { 'act/keep.txt': 'a\nb\n', 'act/old.txt': 'moving\n', 'act/gone.txt': 'x\n', 'act/run.sh': 'echo\n' },
      'main',
    );
    const answer = await commit(
      'actions',
      [
        { action: 'update', file_path: 'act/keep.txt', content: 'a\nB\n' },
        { action: 'delete', file_path: 'act/gone.txt' },
        { action: 'move', file_path: 'act/new.txt', previous_path: 'act/old.txt' },
        { action: 'chmod', file_path: 'act/run.sh', execute_filemode: true },
        {
          action: 'create',
          file_path: 'act/bin.dat',
          content: Buffer.from([0, 1, 2]).toString('base64'),
          encoding: 'base64',
        },
      ],
      { author_name: 'Pat Doe', author_email: 'pat@example.com', commit_message: 'All the actions\n\nWith a body.' },
    );
    expect(answer.status).toBe(201);
    expect(answer.data).toMatchObject({
      title: 'All the actions',
      message: 'All the actions\n\nWith a body.',
      author_name: 'Pat Doe',
      author_email: 'pat@example.com',
      committer_name: 'Bob Chen',
      stats: { additions: 1, deletions: 2, total: 3 },
    });
    expect(answer.data.id).toMatch(/^[0-9a-f]{40}$/);
    expect(answer.data.short_id).toBe(answer.data.id.slice(0, 8));
    const files = await webRepo().listFiles(answer.data.id);
    expect(files.get('act/run.sh')?.mode).toBe('100755');
    expect(files.has('act/gone.txt')).toBe(false);
    expect(files.has('act/new.txt')).toBe(true);
    const bin = await call('GET', `/projects/${WEB}/repository/files/${enc('act/bin.dat')}/raw`, {
      query: { ref: 'actions' },
    });
    expect(bin.body.equals(Buffer.from([0, 1, 2]))).toBe(true);
  });

  it('accepts a form body with actions[][...] keys and stats=false', async () => {
    const answer = await call('POST', commits(), {
      form: [
        ['branch', 'form-branch'],
        ['start_branch', 'main'],
        ['commit_message', 'From a form'],
        ['stats', 'false'],
        ['actions[][action]', 'create'],
        ['actions[][file_path]', 'form/one.txt'],
        ['actions[][content]', 'one'],
        ['actions[][action]', 'create'],
        ['actions[][file_path]', 'form/two.txt'],
        ['actions[][content]', 'two'],
      ],
    });
    expect(answer.status).toBe(201);
    expect(answer.data.stats).toBeUndefined();
    expect([...(await webRepo().listFiles(answer.data.id)).keys()]).toEqual(
      expect.arrayContaining(['form/one.txt', 'form/two.txt']),
    );
  });

  it('starts branches from start_sha or another project, and force overwrites a branch', async () => {
    const mainSha = (await webRepo().resolveCommit('main'))!;
    const fromSha = await commit('from-sha', [{ action: 'create', file_path: 's.txt', content: 's' }], {
      start_sha: mainSha,
    });
    expect(fromSha.status).toBe(201);
    expect(fromSha.data.parent_ids).toEqual([mainSha]);

    const exists = await commit('from-sha', [{ action: 'create', file_path: 't.txt', content: 't' }], {
      start_branch: 'main',
    });
    expect(exists.status).toBe(400);
    expect(exists.data.message).toContain("A branch called 'from-sha' already exists");
    const forced = await commit('from-sha', [{ action: 'create', file_path: 't.txt', content: 't' }], {
      start_branch: 'main',
      force: true,
    });
    expect(forced.status).toBe(201);
    expect(forced.data.parent_ids).toEqual([mainSha]);

    const payments = sandbox().store.findProject('acme/platform/payments-api')!;
    const paymentsMain = await payments.repo.resolveCommit('main');
    const cross = await commit('from-payments', [{ action: 'create', file_path: 'p.txt', content: 'p' }], {
      start_project: payments.id,
      start_branch: 'main',
    });
    expect(cross.status).toBe(201);
    expect(cross.data.parent_ids).toEqual([paymentsMain]);
    // alice maintains acme/web but is no member of bob's private personal project.
    const hidden = await call('POST', commits(), {
      as: 'maintainer',
      json: {
        branch: 'x',
        commit_message: 'm',
        actions: [{ action: 'create', file_path: 'x', content: 'x' }],
        start_project: 'bob/scratchpad',
      },
    });
    expect(hidden.status).toBe(404);
    expect(hidden.data).toEqual({ message: '404 Project Not Found' });
  });

  it('refuses bad requests with the field named, and refused changes with 400', async () => {
    const both = await commit('x', [{ action: 'create', file_path: 'x', content: 'x' }], {
      start_branch: 'main',
      start_sha: 'a'.repeat(40),
    });
    expect(both.data).toEqual({ error: 'start_branch, start_sha are mutually exclusive' });
    // An unknown nested key is ignored as on the service, only named in the request log.
    const badAction = await commit('main', [{ action: 'rename', file_path: 'x', mode: '755' }]);
    expect(badAction.data).toEqual({ error: 'actions[0][action] does not have a valid value' });
    expect(sandbox().requests.all().at(-1)?.unknownParams).toEqual(['actions[0][mode]']);
    // No actions at all is refused; an empty list is an empty commit (the service allows it).
    const noActions = await call('POST', commits(), { json: { branch: 'main', commit_message: 'x' } });
    expect(noActions.status).toBe(400);
    expect(noActions.data).toEqual({ error: 'actions is missing' });
    const noContent = await commit('main', [{ action: 'create', file_path: 'x' }]);
    expect(noContent.status).toBe(400);
    expect(noContent.data.message).toContain('actions[0][content]');
    const exists = await commit('main', [{ action: 'create', file_path: 'README.md', content: 'x' }]);
    expect(exists.status).toBe(400);
    expect(exists.data.message).toContain('A file with this name already exists');
    const missingBranch = await commit('nowhere', [{ action: 'create', file_path: 'x', content: 'x' }]);
    expect(missingBranch.status).toBe(400);
    expect(missingBranch.data.message).toContain('You can only create or edit files when you are on a branch');
    expect((await call('POST', commits(), { as: 'anonymous', json: {} })).status).toBe(401);
    const reporter = await call('POST', commits(), {
      as: 'reporter',
      json: { branch: 'main', commit_message: 'm', actions: [{ action: 'create', file_path: 'r.txt', content: 'r' }] },
    });
    expect(reporter.status).toBe(403);
  });
});

describe('listing commits', () => {
  it('lists the default branch, a ref, a range, a path and all refs, with stats on request', async () => {
    const base = (await webRepo().resolveCommit('main'))!;
    const first = await createOn('list-a', { 'list/a.txt': 'a\n' }, 'main');
    const second = await createOn('list-a', { 'list/b.txt': 'b\nb\n' });
    const onMain = await call('GET', commits(), { as: 'anonymous' });
    expect(onMain.status).toBe(200);
    expect(onMain.data[0].id).toBe(base);
    expect(onMain.headers.get('x-per-page')).toBe('20');

    const range = await call('GET', commits(), { query: { ref_name: 'main..list-a', with_stats: 'true' } });
    expect(ids(range.data)).toEqual([second, first]);
    expect(range.data[0].stats).toEqual({ additions: 2, deletions: 0, total: 2 });
    const byPath = await call('GET', commits(), { query: { ref_name: 'list-a', path: 'list/a.txt' } });
    expect(ids(byPath.data)).toEqual([first]);
    const all = await call('GET', commits(), { query: { all: 'true', per_page: '100' } });
    expect(ids(all.data)).toEqual(expect.arrayContaining([second, base]));
    const paged = await call('GET', commits(), { query: { ref_name: 'list-a', per_page: '1', page: '2' } });
    expect(ids(paged.data)).toEqual([first]);
    expect(paged.headers.get('x-next-page')).toBe('3');
    const topo = await call('GET', commits(), { query: { ref_name: 'list-a', order: 'topo', first_parent: 'true' } });
    expect(ids(topo.data).slice(0, 2)).toEqual([second, first]);
  });

  it('bounds by since and until inclusively', async () => {
    const seeded = await call('GET', commits(), { query: { ref_name: 'v1.1.0', per_page: '100' } });
    const dates: string[] = seeded.data.map((c: { committed_date: string }) => c.committed_date);
    const [newest, , oldest] = [dates[0], dates[1], dates[dates.length - 1]];
    const window = await call('GET', commits(), {
      query: { ref_name: 'v1.1.0', since: oldest, until: newest, per_page: '100' },
    });
    expect(window.data.length).toBe(dates.length);
    const after = await call('GET', commits(), { query: { ref_name: 'v1.1.0', since: dates[1], per_page: '100' } });
    expect(after.data.map((c: { committed_date: string }) => c.committed_date)).toEqual([newest, dates[1]]);
  });

  it('validates its parameters', async () => {
    expect((await call('GET', commits(), { query: { since: 'yesterday' } })).data).toEqual({
      error: 'since does not have a valid value',
    });
    expect((await call('GET', commits(), { query: { order: 'random' } })).data).toEqual({
      error: 'order does not have a valid value',
    });
    // An unknown parameter is ignored as on the service, only named in the request log.
    expect((await call('GET', commits(), { query: { author: 'bob' } })).status).toBe(200);
    expect(sandbox().requests.all().at(-1)?.unknownParams).toEqual(['author']);
    expect((await call('GET', commits(), { query: { ref_name: 'nope' } })).status).toBe(404);
    expect((await call('GET', commits(PAYMENTS), { as: 'outsider' })).status).toBe(404);
    expect((await call('GET', commits(PAYMENTS), { as: 'guest' })).status).toBe(403);
  });
});

describe('a single commit', () => {
  it('has stats by default, status and last_pipeline, and resolves branches and tags', async () => {
    const project = sandbox().store.findProject('acme/web')!;
    const pipeline = [...project.pipelines].sort((a, b) => b.id - a.id)[0];
    const answer = await call('GET', `${commits()}/${pipeline.sha}`, { as: 'anonymous' });
    expect(answer.status).toBe(200);
    const latestForSha = project.pipelines.filter((p) => p.sha === pipeline.sha).sort((a, b) => b.id - a.id)[0];
    expect(answer.data.last_pipeline).toEqual({
      id: latestForSha.id,
      ref: latestForSha.ref,
      sha: pipeline.sha,
      status: latestForSha.status,
    });
    expect(answer.data.status).toBe(latestForSha.status);
    expect(answer.data.stats.total).toBe(answer.data.stats.additions + answer.data.stats.deletions);

    const noStats = await call('GET', `${commits()}/v1.0.0`, { query: { stats: 'false' } });
    expect(noStats.data.stats).toBeUndefined();
    expect(noStats.data.id).toBe(await project.repo.resolveCommit('v1.0.0'));
    const fresh = await createOn('single', { 'single.txt': 'x' }, 'main');
    // A new commit on a branch starts its own pipeline (the runner's), which the commit names.
    const single = (await call('GET', `${commits()}/single`)).data;
    expect(single).toMatchObject({ id: fresh, last_pipeline: { ref: 'single', sha: fresh } });
    expect(single.status).toBe(single.last_pipeline.status);
    expect(['pending', 'running']).toContain(single.status);
    expect((await call('GET', `${commits()}/${'0'.repeat(40)}`)).data).toEqual({ message: '404 Commit Not Found' });
  });

  it('lists the branches and tags containing it', async () => {
    const project = sandbox().store.findProject('acme/web')!;
    const v1 = (await project.repo.resolveCommit('v1.0.0'))!;
    const all = await call('GET', `${commits()}/${v1}/refs`, { query: { per_page: '100' } });
    expect(all.data).toEqual(
      expect.arrayContaining([
        { type: 'branch', name: 'main' },
        { type: 'tag', name: 'v1.0.0' },
        { type: 'tag', name: 'v1.1.0' },
      ]),
    );
    const tags = await call('GET', `${commits()}/${v1}/refs`, { query: { type: 'tag' } });
    expect(tags.data.every((ref: { type: string }) => ref.type === 'tag')).toBe(true);
    expect(tags.headers.get('x-total')).toBe(String(tags.data.length));
    expect((await call('GET', `${commits()}/${v1}/refs`, { query: { type: 'note' } })).status).toBe(400);
  });

  it('returns its diff', async () => {
    await createOn('diff-branch', { 'diff/a.txt': 'one\n' }, 'main');
    const sha = (await commit('diff-branch', [{ action: 'update', file_path: 'diff/a.txt', content: 'two\n' }])).data
      .id;
    const diff = await call('GET', `${commits()}/${sha}/diff`, { as: 'anonymous' });
    expect(diff.status).toBe(200);
    expect(diff.data).toEqual([
      {
        diff: '@@ -1 +1 @@\n-one\n+two\n',
        old_path: 'diff/a.txt',
        new_path: 'diff/a.txt',
        a_mode: '100644',
        b_mode: '100644',
        new_file: false,
        renamed_file: false,
        deleted_file: false,
      },
    ]);
  });
});

describe('cherry-pick and revert', () => {
  it('cherry-picks onto a branch (201), then reports empty, and conflict with error codes', async () => {
    await createOn('pick-target', { 'pick/seed.txt': 'seed\n' }, 'main');
    const source = await createOn('pick-source', { 'pick/new.txt': 'new\n' }, 'main');
    const picked = await call('POST', `${commits()}/${source}/cherry_pick`, { json: { branch: 'pick-target' } });
    expect(picked.status).toBe(201);
    expect(picked.data.message).toContain(`(cherry picked from commit ${source})`);
    expect(picked.data.id).toBe(await webRepo().resolveCommit('pick-target'));

    const again = await call('POST', `${commits()}/${source}/cherry_pick`, { json: { branch: 'pick-target' } });
    expect(again.status).toBe(400);
    expect(again.data).toEqual({ message: expect.stringContaining('cherry-pick'), error_code: 'empty' });

    await commit('pick-target', [{ action: 'update', file_path: 'pick/new.txt', content: 'ours\n' }]);
    const theirs = (await commit('pick-source', [{ action: 'update', file_path: 'pick/new.txt', content: 'theirs\n' }]))
      .data.id;
    const conflict = await call('POST', `${commits()}/${theirs}/cherry_pick`, { json: { branch: 'pick-target' } });
    expect(conflict.status).toBe(400);
    expect(conflict.data.error_code).toBe('conflict');

    expect((await call('POST', `${commits()}/${source}/cherry_pick`, { json: { branch: 'nope' } })).data).toEqual({
      message: '404 Branch Not Found',
    });
    expect((await call('POST', `${commits()}/${source}/cherry_pick`, { json: {} })).data).toEqual({
      error: 'branch is missing',
    });
    expect(
      (await call('POST', `${commits()}/${source}/cherry_pick`, { as: 'reporter', json: { branch: 'pick-target' } }))
        .status,
    ).toBe(403);
  });

  it('reverts a commit, then reports empty', async () => {
    await createOn('revert-branch', { 'rev/file.txt': 'v1\n' }, 'main');
    const change = (await commit('revert-branch', [{ action: 'update', file_path: 'rev/file.txt', content: 'v2\n' }]))
      .data.id;
    const reverted = await call('POST', `${commits()}/${change}/revert`, { json: { branch: 'revert-branch' } });
    expect(reverted.status).toBe(201);
    expect(reverted.data.title).toBe('Revert "Commit on revert-branch"');
    expect(reverted.data.author_name).toBe('Bob Chen');
    const raw = await call('GET', `/projects/${WEB}/repository/files/${enc('rev/file.txt')}/raw`, {
      query: { ref: 'revert-branch' },
    });
    expect(raw.body.toString()).toBe('v1\n');
    const again = await call('POST', `${commits()}/${change}/revert`, { json: { branch: 'revert-branch' } });
    expect(again.status).toBe(400);
    expect(again.data.error_code).toBe('empty');
  });
});

describe('cherry-pick and revert as the vendor runs them', () => {
  const tipOf = (branch: string) => webRepo().resolveCommit(branch);

  it('a dry run answers 200 {"dry_run":"success"} and commits nothing; a failing one answers the usual error', async () => {
    await createOn('dry-target', { 'dry/seed.txt': 'seed\n' }, 'main');
    const source = await createOn('dry-source', { 'dry/new.txt': 'new\n' }, 'main');
    for (const kind of ['cherry_pick', 'revert'] as const) {
      const sha = kind === 'revert' ? await tipOf('dry-target') : source;
      const before = await tipOf('dry-target');
      const answer = await call('POST', `${commits()}/${sha}/${kind}`, {
        json: { branch: 'dry-target', dry_run: true },
      });
      expect({ kind, status: answer.status, data: answer.data }).toEqual({
        kind,
        status: 200,
        data: { dry_run: 'success' },
      });
      expect(await tipOf('dry-target')).toBe(before);
    }
    const main = await tipOf('main');
    const empty = await call('POST', `${commits()}/${main}/cherry_pick`, { json: { branch: 'main', dry_run: 'true' } });
    expect(empty.status).toBe(400);
    expect(empty.data.error_code).toBe('empty');
  });

  it("writes the vendor's messages: the picked message whole plus the trailer, a revert without a final period", async () => {
    await createOn('msg-target', { 'msg/seed.txt': 'seed\n' }, 'main');
    await createOn('msg-source', { 'msg/base.txt': 'base\n' }, 'main');
    const message = 'Picked change\n\nWith a body.\n';
    const source = (
      await commit('msg-source', [{ action: 'create', file_path: 'msg/new.txt', content: 'n\n' }], {
        commit_message: message,
      })
    ).data.id;
    const picked = await call('POST', `${commits()}/${source}/cherry_pick`, { json: { branch: 'msg-target' } });
    expect(picked.data.message).toBe(`${message}\n\n(cherry picked from commit ${source})`);
    const reverted = await call('POST', `${commits()}/${picked.data.id}/revert`, { json: { branch: 'msg-target' } });
    expect(reverted.data.message).toBe(`Revert "Picked change"\n\nThis reverts commit ${picked.data.id}`);
    const custom = await call('POST', `${commits()}/${source}/cherry_pick`, {
      json: { branch: 'msg-target', message: 'Backport the change' },
    });
    expect(custom.data.message).toBe('Backport the change');
  });
});

describe('comments', () => {
  it('keeps a line comment on a full SHA, and falls back to a plain comment otherwise', async () => {
    const sha = await createOn('comments', { 'c/file.txt': 'one\ntwo\n' }, 'main');
    const line = await call('POST', `${commits()}/${sha}/comments`, {
      json: { note: 'Nice line', path: 'c/file.txt', line: 2, line_type: 'new' },
    });
    expect(line.status).toBe(201);
    expect(line.data).toMatchObject({ note: 'Nice line', path: 'c/file.txt', line: 2, line_type: 'new' });
    expect(line.data.author).toMatchObject({
      username: 'bob',
      name: 'Bob Chen',
      email: 'bob@acme.example',
      state: 'active',
    });

    for (const [ref, body] of [
      ['comments', { note: 'On a branch', path: 'c/file.txt', line: 1, line_type: 'new' }],
      [sha, { note: 'Beyond the end', path: 'c/file.txt', line: 3, line_type: 'new' }],
      [sha, { note: 'No such path', path: 'c/none.txt', line: 1, line_type: 'new' }],
      [sha.slice(0, 8), { note: 'Short SHA', path: 'c/file.txt', line: 1 }],
    ] as const) {
      const plain = await call('POST', `${commits()}/${ref}/comments`, { json: body });
      expect(plain.status, body.note).toBe(201);
      expect(plain.data, body.note).toMatchObject({ note: body.note, path: null, line: null, line_type: null });
    }

    const list = await call('GET', `${commits()}/${sha}/comments`, { as: 'anonymous' });
    expect(list.status).toBe(200);
    expect(list.data.map((c: { note: string }) => c.note)).toEqual([
      'Nice line',
      'On a branch',
      'Beyond the end',
      'No such path',
      'Short SHA',
    ]);
    expect(list.headers.get('x-total')).toBe('5');

    expect((await call('POST', `${commits()}/${sha}/comments`, { json: {} })).data).toEqual({
      error: 'note is missing',
    });
    expect((await call('POST', `${commits()}/${sha}/comments`, { as: 'anonymous', json: { note: 'x' } })).status).toBe(
      401,
    );
  });
});

describe('paths that name nothing in the repository', () => {
  it('falls back to a plain comment for a line or path that does not exist, instead of refusing or failing', async () => {
    const sha = await createOn('comments-audit', { 'ca/file.txt': 'one\ntwo\n' }, 'main');
    // The spec's comment rule: a missing line or path attaches the comment to the commit, with nulls.
    for (const body of [
      { note: 'Line zero', path: 'ca/file.txt', line: 0 },
      { note: 'Negative line', path: 'ca/file.txt', line: -2 },
      { note: 'Empty path', path: '', line: 1 },
      { note: 'Dot path', path: './ca/file.txt', line: 1 },
      { note: 'Climbing path', path: '../ca/file.txt', line: 1 },
      { note: 'Carriage return', path: 'ca/file\r.txt', line: 1 },
    ]) {
      const answer = await call('POST', `${commits()}/${sha}/comments`, { json: body });
      expect(answer.status, body.note).toBe(201);
      expect(answer.data, body.note).toMatchObject({ note: body.note, path: null, line: null, line_type: null });
    }
    expect((await call('POST', `${commits()}/${sha}/comments`, { json: { note: 'x', line: 'two' } })).data).toEqual({
      error: 'line does not have a valid value',
    });
  });

  it('lists no commits for a path filter that cannot name a file, and reads surrounding slashes as the tree does', async () => {
    const sha = await createOn('path-audit', { 'pa/only.txt': 'x' }, 'main');
    const list = (path: string) => call('GET', commits(), { query: { ref_name: 'path-audit', path, per_page: '100' } });
    const plain = await list('pa/only.txt');
    expect(plain.status).toBe(200);
    expect(ids(plain.data)).toEqual([sha]);
    for (const path of ['/pa/only.txt', 'pa/only.txt/']) {
      const answer = await list(path);
      expect(answer.status, path).toBe(200);
      expect(ids(answer.data), path).toEqual([sha]);
    }
    // git would resolve these against its working directory: fail ('..', an absolute path) or rewrite them.
    for (const path of ['..', '../pa/only.txt', 'x/../pa/only.txt', '.', './pa/only.txt', '.git']) {
      const answer = await list(path);
      expect(answer.status, path).toBe(200);
      expect(answer.data, path).toEqual([]);
    }
    expect((await call('GET', commits(), { query: { ref_name: 'no-such-branch', path: '..' } })).status).toBe(404);
  });
});
