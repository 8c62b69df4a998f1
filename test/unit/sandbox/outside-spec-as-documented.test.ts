// The sandbox's operations outside the spec, as the service's REST docs (v4) and permission table describe them,
// driven the way other clients write requests (JSON arrays, form brackets, no token): labels as lists, jobs newest
// first and behind a token, branch regex and search, the permission table, protected branches on every push, merge
// and deletion, the single merge request's fields, and the documented status codes.
import { describe, expect, test } from 'vitest';
import { api } from './sandbox-client.js';
import { useSandbox } from '../../helpers/mcp.js';

const env = useSandbox();

const WEB = '/projects/acme%2Fweb';
const PAYMENTS = '/projects/acme%2Fplatform%2Fpayments-api';
const INFRA = '/projects/acme%2Fplatform%2Finfra';
const repo = (path: string) => env.sandbox.store.findProject(path)!.repo;
const head = (path: string, branch: string) => repo(path).refTarget(`refs/heads/${branch}`);

type Job = { id: number; name: string; status: string; ref: string; tag: boolean; user: { username: string } };
async function jobs(project: string, query = ''): Promise<Job[]> {
  return (await api(env.sandbox, 'GET', `${project}/jobs?per_page=100${query}`, { as: 'maintainer' })).data;
}
const jobOf = async (project: string, test: (job: Job) => boolean) => (await jobs(project)).find(test)!;

describe('labels as a JSON list, a comma-separated string or form brackets', () => {
  test('an issue is opened and changed with label lists', async () => {
    const opened = await api(env.sandbox, 'POST', `${INFRA}/issues`, {
      as: 'reporter',
      json: { title: 'Listed labels', labels: ['bug', 'backend'] },
    });
    expect(opened.status).toBe(201);
    expect(opened.data.labels).toEqual(['bug', 'backend']);
    const changed = await api(env.sandbox, 'PUT', `${INFRA}/issues/${opened.data.iid}`, {
      as: 'reporter',
      json: { add_labels: ['ops'], remove_labels: ['bug'] },
    });
    expect(changed.data.labels).toEqual(['backend', 'ops']);
    const form = await api(env.sandbox, 'PUT', `${INFRA}/issues/${opened.data.iid}`, {
      as: 'reporter',
      form: 'labels[]=ui&labels[]=a11y,docs',
    });
    expect(form.data.labels).toEqual(['ui', 'a11y', 'docs']);
    expect(
      (await api(env.sandbox, 'PUT', `${INFRA}/issues/${opened.data.iid}`, { as: 'reporter', json: { labels: [] } }))
        .data.labels,
    ).toEqual([]);
  });

  test('a merge request is opened and changed with label lists', async () => {
    await api(env.sandbox, 'POST', `${INFRA}/repository/branches`, {
      as: 'developer',
      json: { branch: 'topic/labels', ref: 'main' },
    });
    const opened = await api(env.sandbox, 'POST', `${INFRA}/merge_requests`, {
      as: 'developer',
      json: { source_branch: 'topic/labels', target_branch: 'main', title: 'Labelled', labels: ['backend', 'ops'] },
    });
    expect(opened.status).toBe(201);
    expect(opened.data.labels).toEqual(['backend', 'ops']);
    const changed = await api(env.sandbox, 'PUT', `${INFRA}/merge_requests/${opened.data.iid}`, {
      as: 'developer',
      json: { remove_labels: ['ops'], add_labels: ['bug'] },
    });
    expect(changed.data.labels).toEqual(['backend', 'bug']);
  });
});

describe('jobs', () => {
  test("a pipeline's jobs and a project's come newest first", async () => {
    const pipelineJobs = (await api(env.sandbox, 'GET', `${WEB}/pipelines/2/jobs`)).data as Job[];
    expect(pipelineJobs.map((j) => j.name)).toEqual(['deploy:staging', 'test', 'lint', 'build']);
    const ids = (await jobs(WEB)).map((j) => j.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
  });

  test("the Jobs API wants a token even on a public project; a public pipeline's jobs do not", async () => {
    const job = await jobOf(WEB, (j) => j.status === 'failed');
    for (const path of [`${WEB}/jobs`, `${WEB}/jobs/${job.id}`, `${WEB}/jobs/${job.id}/trace`, `${PAYMENTS}/jobs`]) {
      const answer = await api(env.sandbox, 'GET', path, { as: 'anonymous' });
      expect([path, answer.status, answer.data]).toEqual([path, 401, { message: '401 Unauthorized' }]);
    }
    expect((await api(env.sandbox, 'GET', `${WEB}/pipelines/2/jobs`, { as: 'anonymous' })).status).toBe(200);
    expect((await api(env.sandbox, 'GET', `${PAYMENTS}/pipelines/14/jobs`, { as: 'anonymous' })).status).toBe(404);
  });

  test("public pipelines let a private project's guest read its jobs and logs; a missing job is 404 Not found", async () => {
    const job = await jobOf(PAYMENTS, (j) => j.status === 'failed');
    expect((await api(env.sandbox, 'GET', `${PAYMENTS}/jobs/${job.id}`, { as: 'guest' })).status).toBe(200);
    const log = await api(env.sandbox, 'GET', `${PAYMENTS}/jobs/${job.id}/trace`, { as: 'guest' });
    expect([log.status, log.headers.get('content-disposition')]).toEqual([200, `infile; filename="${job.id}.log"`]);
    expect((await api(env.sandbox, 'GET', `${PAYMENTS}/jobs/${job.id}`, { as: 'outsider' })).status).toBe(404);
    expect((await api(env.sandbox, 'GET', `${WEB}/jobs/999999`)).data).toEqual({ message: '404 Not found' });
  });

  test('cancelling a job that has ended answers the job unchanged with 201', async () => {
    const done = await jobOf(WEB, (j) => j.status === 'success' && j.tag);
    const answer = await api(env.sandbox, 'POST', `${WEB}/jobs/${done.id}/cancel`, { as: 'developer' });
    expect([answer.status, answer.data.status]).toEqual([201, 'success']);
  });

  test('erasing: an unfinished job is "not erasable" (403); a developer erases only the jobs they started on an unprotected ref', async () => {
    const running = await jobOf(WEB, (j) => j.status === 'running');
    expect((await api(env.sandbox, 'POST', `${WEB}/jobs/${running.id}/erase`, { as: 'maintainer' })).data).toEqual({
      message: '403 Forbidden - Job is not erasable!',
    });
    const theirs = await jobOf(WEB, (j) => j.status === 'success' && j.ref === 'main' && j.user.username === 'alice');
    expect((await api(env.sandbox, 'POST', `${WEB}/jobs/${theirs.id}/erase`, { as: 'developer' })).status).toBe(403);
    const own = await jobOf(
      WEB,
      (j) => j.status === 'success' && j.ref === 'feature/dark-mode' && j.user.username === 'bob',
    );
    const erased = await api(env.sandbox, 'POST', `${WEB}/jobs/${own.id}/erase`, { as: 'developer' });
    expect([erased.status, erased.data.erased_at]).toEqual([201, expect.any(String)]);
    expect((await api(env.sandbox, 'POST', `${WEB}/jobs/${own.id}/erase`, { as: 'maintainer' })).status).toBe(403);
  });

  test("a protected branch's jobs are retried by who may push or merge to it; another branch's by any developer", async () => {
    const onMain = await jobOf(WEB, (j) => j.status === 'failed' && j.ref === 'main');
    expect((await api(env.sandbox, 'POST', `${WEB}/jobs/${onMain.id}/retry`, { as: 'developer' })).status).toBe(403);
    const onFeature = await jobOf(WEB, (j) => j.status === 'canceled' && j.ref === 'feature/dark-mode');
    expect((await api(env.sandbox, 'POST', `${WEB}/jobs/${onFeature.id}/retry`, { as: 'developer' })).status).toBe(201);
  });

  test('play takes job_variables_attributes as the docs give them, and refuses a malformed one', async () => {
    const manual = await jobOf(PAYMENTS, (j) => j.status === 'manual');
    const bad = await api(env.sandbox, 'POST', `${PAYMENTS}/jobs/${manual.id}/play`, {
      as: 'developer',
      json: { job_variables_attributes: [{ key: 'VERSION' }] },
    });
    expect([bad.status, bad.data]).toEqual([400, { error: 'job_variables_attributes[0][value] is missing' }]);
    const played = await api(env.sandbox, 'POST', `${PAYMENTS}/jobs/${manual.id}/play`, {
      as: 'developer',
      json: { job_variables_attributes: [{ key: 'VERSION', value: '1.1.0' }] },
    });
    expect([played.status, played.data.status]).toEqual([200, 'pending']);
    // Known to the route: not an ignored parameter.
    expect(env.sandbox.requests.all().at(-1)).toMatchObject({ status: 200, unknownParams: [] });
  });

  test("a project's jobs are paged without a count, a pipeline's with one", async () => {
    const project = await api(env.sandbox, 'GET', `${WEB}/jobs?per_page=2`);
    expect([
      project.headers.get('x-next-page'),
      project.headers.get('x-total'),
      project.headers.get('x-total-pages'),
    ]).toEqual(['2', null, null]);
    expect(project.headers.get('link')).not.toContain('rel="last"');
    expect((await api(env.sandbox, 'GET', `${WEB}/pipelines/2/jobs?per_page=2`)).headers.get('x-total')).toBe('4');
  });
  test("a job has the documented source, runner_manager and user profile; a project's jobs sort by id either way", async () => {
    const ran = await jobOf(WEB, (j) => j.status === 'failed');
    const job = (await api(env.sandbox, 'GET', `${WEB}/jobs/${ran.id}`)).data;
    expect(job).toMatchObject({
      source: 'push',
      runner_manager: { version: '16.9.1', status: 'online' },
      user: { created_at: expect.any(String), bio: expect.any(String) },
    });
    const ascending = (
      (await api(env.sandbox, 'GET', `${WEB}/jobs?order_by=id&sort=asc&per_page=100`)).data as Job[]
    ).map((j) => j.id);
    expect(ascending).toEqual([...ascending].sort((a, b) => a - b));
    expect(env.sandbox.requests.all().at(-1)?.unknownParams).toEqual([]);
  });
});

describe('branches and tags', () => {
  const names = async (query: string) =>
    ((await api(env.sandbox, 'GET', `${WEB}/repository/branches?${query}`)).data as Array<{ name: string }>).map(
      (b) => b.name,
    );

  test('regex filters names (RE2, anywhere in the name); it excludes search; search takes ^, $ and *', async () => {
    expect(await names(`regex=${encodeURIComponent('^feature/(dark|search)')}`)).toEqual([
      'feature/dark-mode',
      'feature/search',
    ]);
    expect(await names(`regex=${encodeURIComponent('(?i)MODE$')}`)).toEqual(['feature/dark-mode']);
    expect((await api(env.sandbox, 'GET', `${WEB}/repository/branches?regex=x&search=y`)).data).toEqual({
      error: 'search, regex are mutually exclusive',
    });
    expect(
      (await api(env.sandbox, 'GET', `${WEB}/repository/branches?regex=${encodeURIComponent('(?=x)')}`)).status,
    ).toBe(400);
    expect(await names('search=feature*mode')).toEqual(['feature/dark-mode']);
    expect(await names('search=^fix')).toEqual(['fix/checkout-total']);
  });

  test("a developer deletes an unprotected branch and a tag; a protected branch is a maintainer's to delete", async () => {
    await api(env.sandbox, 'POST', `${WEB}/repository/branches`, {
      json: { branch: 'topic/short-lived', ref: 'main' },
    });
    expect(
      (await api(env.sandbox, 'DELETE', `${WEB}/repository/branches/topic%2Fshort-lived`, { as: 'developer' })).status,
    ).toBe(204);
    await api(env.sandbox, 'POST', `${WEB}/repository/tags`, { json: { tag_name: 'scratch-tag', ref: 'main' } });
    expect((await api(env.sandbox, 'DELETE', `${WEB}/repository/tags/scratch-tag`, { as: 'developer' })).status).toBe(
      204,
    );
    await api(env.sandbox, 'POST', `${WEB}/protected_branches`, { as: 'maintainer', json: { name: 'stable/*' } });
    await api(env.sandbox, 'POST', `${WEB}/repository/branches`, {
      as: 'maintainer',
      json: { branch: 'stable/1', ref: 'main' },
    });
    const refused = await api(env.sandbox, 'DELETE', `${WEB}/repository/branches/stable%2F1`, { as: 'developer' });
    expect([refused.status, refused.data.message]).toEqual([
      400,
      'You are not allowed to delete protected branches from this project. Only a project maintainer or owner can delete a protected branch.',
    ]);
    expect(
      (await api(env.sandbox, 'DELETE', `${WEB}/repository/branches/stable%2F1`, { as: 'maintainer' })).status,
    ).toBe(204);
  });

  test('creating a protected branch takes push rights to it, or merge rights and a commit already protected', async () => {
    await api(env.sandbox, 'POST', `${INFRA}/protected_branches`, {
      as: 'maintainer',
      json: { name: 'hotfix/*', push_access_level: 40, merge_access_level: 30 },
    });
    const fromMain = await api(env.sandbox, 'POST', `${INFRA}/repository/branches`, {
      as: 'developer',
      json: { branch: 'hotfix/a', ref: 'main' },
    });
    expect(fromMain.status).toBe(201);
    const fromFeature = await api(env.sandbox, 'POST', `${INFRA}/repository/branches`, {
      as: 'developer',
      json: { branch: 'hotfix/b', ref: 'feature/bigger-staging' },
    });
    expect([fromFeature.status, fromFeature.data.message]).toEqual([
      400,
      'You are not allowed to create protected branches on this project.',
    ]);
  });

  test("deleting merged branches is a developer's, and spares the branches of open merge requests and those at the default branch's head", async () => {
    // Branches behind main's head are merged; one at main's head is not, as the service counts it (nothing of it
    // was merged yet): its `merged` says false and deleting merged branches keeps it.
    const behind = (await api(env.sandbox, 'GET', `${PAYMENTS}/repository/commits/main`)).data.parent_ids[0];
    const mine = await api(env.sandbox, 'POST', `${PAYMENTS}/repository/branches`, {
      as: 'developer',
      json: { branch: 'topic/in-review', ref: behind },
    });
    expect(mine.status).toBe(201);
    expect(mine.data.merged).toBe(true);
    await api(env.sandbox, 'POST', `${PAYMENTS}/repository/branches`, {
      as: 'developer',
      json: { branch: 'topic/done', ref: behind },
    });
    const atHead = await api(env.sandbox, 'POST', `${PAYMENTS}/repository/branches`, {
      as: 'developer',
      json: { branch: 'topic/just-started', ref: 'main' },
    });
    expect(atHead.data.merged).toBe(false);
    const listed = await api(env.sandbox, 'GET', `${PAYMENTS}/repository/branches?search=topic/just-started`);
    expect(listed.data.map((b: { merged: boolean }) => b.merged)).toEqual([false]);
    await api(env.sandbox, 'POST', `${PAYMENTS}/merge_requests`, {
      as: 'developer',
      json: { source_branch: 'topic/in-review', target_branch: 'feature/refund-webhooks', title: 'Review me' },
    });
    expect(
      (await api(env.sandbox, 'DELETE', `${PAYMENTS}/repository/merged_branches`, { as: 'reporter' })).status,
    ).toBe(403);
    expect(
      (await api(env.sandbox, 'DELETE', `${PAYMENTS}/repository/merged_branches`, { as: 'developer' })).status,
    ).toBe(202);
    expect(await head('acme/platform/payments-api', 'topic/in-review')).not.toBeNull();
    expect(await head('acme/platform/payments-api', 'topic/done')).toBeNull();
    expect(await head('acme/platform/payments-api', 'topic/just-started')).not.toBeNull();
  });

  test('names git refuses are a 400 for a branch read and a new tag; a protection is found before its unprotecting is judged', async () => {
    expect((await api(env.sandbox, 'GET', `${WEB}/repository/branches/bad..name`)).data).toEqual({
      message: 'The branch refname is invalid',
    });
    const tag = await api(env.sandbox, 'POST', `${WEB}/repository/tags`, {
      json: { tag_name: 'bad..tag', ref: 'main' },
    });
    expect([tag.status, tag.data]).toEqual([400, { message: 'Tag name invalid' }]);
    const missing = await api(env.sandbox, 'DELETE', `${WEB}/protected_branches/no-such-rule`, { as: 'developer' });
    expect([missing.status, missing.data]).toEqual([404, { message: '404 Not found' }]);
    expect((await api(env.sandbox, 'DELETE', `${WEB}/protected_branches/main`, { as: 'developer' })).status).toBe(403);
  });
});

describe('protected branches on every push, forced commit, merge', () => {
  const commit = (branch: string, extra: Record<string, unknown> = {}) => ({
    branch,
    commit_message: 'Change',
    actions: [{ action: 'create', file_path: `f-${Math.random().toString(36).slice(2)}.txt`, content: 'x' }],
    ...extra,
  });

  test('a developer may not push to main, maintained by maintainers, whatever the API', async () => {
    const before = await head('acme/web', 'main');
    const pushed = await api(env.sandbox, 'POST', `${WEB}/repository/commits`, {
      as: 'developer',
      json: commit('main'),
    });
    expect([pushed.status, pushed.data]).toEqual([
      403,
      { message: '403 Forbidden - You are not allowed to push into this branch' },
    ]);
    const feature = (await head('acme/web', 'feature/dark-mode'))!;
    const picked = await api(env.sandbox, 'POST', `${WEB}/repository/commits/${feature}/cherry_pick`, {
      as: 'developer',
      json: { branch: 'main' },
    });
    expect(picked.status).toBe(403);
    const file = await api(env.sandbox, 'POST', `${WEB}/repository/files/new.txt`, {
      as: 'developer',
      json: { branch: 'main', content: 'x', commit_message: 'm' },
    });
    expect([file.status, file.data]).toEqual([400, { message: 'You are not allowed to push into this branch' }]);
    expect(await head('acme/web', 'main')).toBe(before);
    expect(
      (await api(env.sandbox, 'POST', `${WEB}/repository/commits`, { as: 'maintainer', json: commit('main') })).status,
    ).toBe(201);
  });

  test("a forced commit may not rewrite a protected branch that allows no force push, even a maintainer's", async () => {
    const main = (await head('acme/web', 'main'))!;
    const forced = await api(env.sandbox, 'POST', `${WEB}/repository/commits`, {
      as: 'maintainer',
      json: commit('main', { force: true, start_branch: 'feature/dark-mode' }),
    });
    expect([forced.status, forced.data]).toEqual([
      400,
      { message: 'You are not allowed to force push code to a protected branch on this project.' },
    ]);
    expect(await head('acme/web', 'main')).toBe(main);
    // A force that rewrites nothing (from the head itself) is an ordinary push.
    expect(
      (
        await api(env.sandbox, 'POST', `${WEB}/repository/commits`, {
          as: 'maintainer',
          json: commit('main', { force: true, start_branch: 'main' }),
        })
      ).status,
    ).toBe(201);
  });

  test('the most permissive matching rule decides: a wildcard that opens pushes and force pushes opens main too', async () => {
    const force = { force: true, start_branch: 'feature/bigger-staging' };
    expect(
      (await api(env.sandbox, 'POST', `${INFRA}/repository/commits`, { as: 'developer', json: commit('main', force) }))
        .status,
    ).toBe(403);
    await api(env.sandbox, 'POST', `${INFRA}/protected_branches`, {
      as: 'maintainer',
      json: { name: 'mai*', push_access_level: 30, merge_access_level: 30, allow_force_push: true },
    });
    const forced = await api(env.sandbox, 'POST', `${INFRA}/repository/commits`, {
      as: 'developer',
      json: commit('main', force),
    });
    expect(forced.status).toBe(201);
    expect((await api(env.sandbox, 'DELETE', `${INFRA}/protected_branches/mai*`, { as: 'maintainer' })).status).toBe(
      204,
    );
  });

  test('merging into a protected branch takes the right to merge to it (401 otherwise, as the docs say)', async () => {
    await api(env.sandbox, 'POST', `${PAYMENTS}/repository/branches`, {
      as: 'developer',
      json: { branch: 'topic/merge-me', ref: 'main' },
    });
    await api(env.sandbox, 'POST', `${PAYMENTS}/repository/commits`, {
      as: 'developer',
      json: commit('topic/merge-me'),
    });
    const mr = (
      await api(env.sandbox, 'POST', `${PAYMENTS}/merge_requests`, {
        as: 'developer',
        json: { source_branch: 'topic/merge-me', target_branch: 'main', title: 'Merge me' },
      })
    ).data;
    expect(mr.user).toEqual({ can_merge: false });
    expect(
      (await api(env.sandbox, 'PUT', `${PAYMENTS}/merge_requests/${mr.iid}/merge`, { as: 'developer' })).status,
    ).toBe(401);
    const asMaintainer = (await api(env.sandbox, 'GET', `${PAYMENTS}/merge_requests/${mr.iid}`, { as: 'maintainer' }))
      .data;
    expect(asMaintainer.user).toEqual({ can_merge: true });
    const merged = await api(env.sandbox, 'PUT', `${PAYMENTS}/merge_requests/${mr.iid}/merge`, { as: 'maintainer' });
    expect([merged.status, merged.data.state, merged.data.merge_user.username]).toEqual([200, 'merged', 'alice']);
    // Without should_remove_source_branch, the merge request's own setting (on by default) removes the source branch.
    expect(await head('acme/platform/payments-api', 'topic/merge-me')).toBeNull();
  });
});

describe('one merge request', () => {
  test('has what the docs list for a single merge request: draft, diff_refs, head_pipeline, changes_count, user.can_merge', async () => {
    const mr = (await api(env.sandbox, 'GET', `${INFRA}/merge_requests/1`, { as: 'reporter' })).data;
    const source = await head('acme/platform/infra', 'feature/bigger-staging');
    expect(mr).toMatchObject({
      draft: false,
      changes_count: expect.stringMatching(/^\d+$/),
      merge_error: null,
      first_contribution: false,
      diff_refs: {
        head_sha: source,
        base_sha: expect.stringMatching(/^[0-9a-f]{40}$/),
        start_sha: expect.stringMatching(/^[0-9a-f]{40}$/),
      },
      head_pipeline: { id: expect.any(Number), sha: source, ref: 'feature/bigger-staging', status: expect.any(String) },
      user: { can_merge: false },
    });
    expect((await api(env.sandbox, 'GET', `${WEB}/merge_requests/2`)).data).toMatchObject({
      draft: true,
      detailed_merge_status: 'draft_status',
    });
    // Its source branch is gone: nothing to merge.
    expect((await api(env.sandbox, 'GET', `${WEB}/merge_requests/3`)).data.detailed_merge_status).toBe(
      'commits_status',
    );
  });

  test("is read without a token on a public project; a private project's guest is refused (403)", async () => {
    expect((await api(env.sandbox, 'GET', `${WEB}/merge_requests/1`, { as: 'anonymous' })).status).toBe(200);
    expect((await api(env.sandbox, 'GET', `${PAYMENTS}/merge_requests/1`, { as: 'guest' })).status).toBe(403);
    expect((await api(env.sandbox, 'GET', `${WEB}/merge_requests/99`)).data).toEqual({ message: '404 Not found' });
  });

  test('from a branch into itself is 422, a second open one for the same branches 409, both as lists', async () => {
    const same = await api(env.sandbox, 'POST', `${WEB}/merge_requests`, {
      json: { source_branch: 'main', target_branch: 'main', title: 'Loop' },
    });
    expect([same.status, same.data]).toEqual([
      422,
      { message: ["You can't use same project/branch for source and target"] },
    ]);
    const twice = await api(env.sandbox, 'POST', `${WEB}/merge_requests`, {
      json: { source_branch: 'feature/dark-mode', target_branch: 'main', title: 'Again' },
    });
    expect([twice.status, twice.data]).toEqual([
      409,
      { message: ['Another open merge request already exists for this source branch: !2'] },
    ]);
  });

  test('an update must change something; a merge at another sha names the head', async () => {
    const empty = await api(env.sandbox, 'PUT', `${WEB}/merge_requests/2`, { json: {} });
    expect(empty.status).toBe(400);
    expect(empty.data.error).toMatch(/are missing, at least one parameter must be provided$/);
    const stale = await api(env.sandbox, 'PUT', `${INFRA}/merge_requests/1/merge`, {
      as: 'maintainer',
      json: { sha: 'f'.repeat(40) },
    });
    expect([stale.status, stale.data]).toEqual([
      409,
      {
        message: `SHA does not match HEAD of source branch: ${await head('acme/platform/infra', 'feature/bigger-staging')}`,
      },
    ]);
  });
  test('is approved by whoever may update it as a project member: an assignee below developer too', async () => {
    await api(env.sandbox, 'POST', `${INFRA}/repository/branches`, {
      as: 'developer',
      json: { branch: 'topic/approve-me', ref: 'main' },
    });
    const carol = env.sandbox.store.findUser('carol')!.id;
    const mr = (
      await api(env.sandbox, 'POST', `${INFRA}/merge_requests`, {
        as: 'developer',
        json: { source_branch: 'topic/approve-me', target_branch: 'main', title: 'Approve me', assignee_ids: [carol] },
      })
    ).data;
    expect((await api(env.sandbox, 'POST', `${INFRA}/merge_requests/${mr.iid}/approve`, { as: 'guest' })).status).toBe(
      403,
    );
    const approved = await api(env.sandbox, 'POST', `${INFRA}/merge_requests/${mr.iid}/approve`, { as: 'reporter' });
    expect([
      approved.status,
      approved.data.approved_by.map((a: { user: { username: string } }) => a.user.username),
    ]).toEqual([201, ['carol']]);
  });
  test('into another project is refused as the service refuses a source that is not a fork of the target', async () => {
    const other = env.sandbox.store.findProject('acme/platform/payments-api')!.id;
    const answer = await api(env.sandbox, 'POST', `${INFRA}/merge_requests`, {
      as: 'developer',
      json: {
        source_branch: 'feature/bigger-staging',
        target_branch: 'main',
        title: 'Elsewhere',
        target_project_id: other,
      },
    });
    expect([answer.status, answer.data]).toEqual([
      422,
      { message: ['Source project is not a fork of the target project'] },
    ]);
  });
  test('under the fast-forward merge method: a source behind its target needs a rebase (405), one ahead moves the target', async () => {
    const project = env.sandbox.store.findProject('acme/platform/infra')!;
    project.merge_method = 'ff';
    try {
      for (const branch of ['topic/ff-ahead', 'topic/ff-behind']) {
        await api(env.sandbox, 'POST', `${INFRA}/repository/branches`, {
          as: 'maintainer',
          json: { branch, ref: 'main' },
        });
        await api(env.sandbox, 'POST', `${INFRA}/repository/commits`, {
          as: 'maintainer',
          json: {
            branch,
            commit_message: branch,
            actions: [{ action: 'create', file_path: `${branch}.txt`, content: 'x' }],
          },
        });
      }
      const behind = (
        await api(env.sandbox, 'POST', `${INFRA}/merge_requests`, {
          as: 'maintainer',
          json: { source_branch: 'topic/ff-behind', target_branch: 'main', title: 'Behind' },
        })
      ).data;
      const ahead = (
        await api(env.sandbox, 'POST', `${INFRA}/merge_requests`, {
          as: 'maintainer',
          json: { source_branch: 'topic/ff-ahead', target_branch: 'main', title: 'Ahead' },
        })
      ).data;
      const source = await head('acme/platform/infra', 'topic/ff-ahead');
      const merged = await api(env.sandbox, 'PUT', `${INFRA}/merge_requests/${ahead.iid}/merge`, {
        as: 'maintainer',
        json: { should_remove_source_branch: false },
      });
      expect([merged.status, merged.data.merge_commit_sha]).toEqual([200, null]);
      expect(await head('acme/platform/infra', 'main')).toBe(source);
      expect((await api(env.sandbox, 'GET', `${INFRA}/merge_requests/${behind.iid}`)).data.detailed_merge_status).toBe(
        'need_rebase',
      );
      expect(
        (await api(env.sandbox, 'PUT', `${INFRA}/merge_requests/${behind.iid}/merge`, { as: 'maintainer' })).status,
      ).toBe(405);
    } finally {
      project.merge_method = 'merge';
    }
  });
});

describe('issues and comments, with the permission table', () => {
  test('anyone signed in opens an issue on a public or internal project; below reporter, labels and people are left out', async () => {
    const byOutsider = await api(env.sandbox, 'POST', `${WEB}/issues`, {
      as: 'outsider',
      json: { title: 'Checkout button overlaps', labels: 'bug', assignee_ids: [2] },
    });
    expect(byOutsider.status).toBe(201);
    expect(byOutsider.data).toMatchObject({ author: { username: 'erin' }, labels: [], assignees: [] });
    const byGuest = await api(env.sandbox, 'POST', `${PAYMENTS}/issues`, {
      as: 'guest',
      json: { title: 'Refund e-mail typo' },
    });
    expect(byGuest.status).toBe(201);
    expect(
      (await api(env.sandbox, 'POST', `${PAYMENTS}/issues`, { as: 'outsider', json: { title: 'x' } })).status,
    ).toBe(404);
    expect((await api(env.sandbox, 'GET', `${WEB}/issues/${byOutsider.data.iid}`, { as: 'anonymous' })).status).toBe(
      200,
    );
  });

  test('comments come from guest access where the item is readable; a locked discussion takes a member', async () => {
    expect(
      (
        await api(env.sandbox, 'POST', `${WEB}/merge_requests/2/notes`, {
          as: 'guest',
          json: { body: 'Looks odd on mobile.' },
        })
      ).status,
    ).toBe(201);
    expect(
      (await api(env.sandbox, 'POST', `${INFRA}/issues/1/notes`, { as: 'outsider', json: { body: 'Seen it too.' } }))
        .status,
    ).toBe(201);
    await api(env.sandbox, 'PUT', `${INFRA}/issues/1`, { as: 'maintainer', json: { discussion_locked: true } });
    expect(
      (await api(env.sandbox, 'POST', `${INFRA}/issues/1/notes`, { as: 'outsider', json: { body: 'Again.' } })).status,
    ).toBe(403);
    expect(
      (await api(env.sandbox, 'POST', `${INFRA}/issues/1/notes`, { as: 'guest', json: { body: 'Member here.' } }))
        .status,
    ).toBe(201);
    const blank = await api(env.sandbox, 'POST', `${INFRA}/issues/1/notes`, { as: 'guest', json: { body: '' } });
    expect([blank.status, blank.data]).toEqual([
      400,
      { message: '400 Bad request - Note {:note=>["can\'t be blank"]}' },
    ]);
  });

  test('an issue update must change something', async () => {
    const empty = await api(env.sandbox, 'PUT', `${INFRA}/issues/1`, { as: 'maintainer', json: {} });
    expect([empty.status, empty.data.error]).toEqual([
      400,
      expect.stringMatching(/are missing, at least one parameter must be provided$/),
    ]);
  });

  test('one issue says whether the caller is subscribed (its author and assignees are)', async () => {
    const opened = (
      await api(env.sandbox, 'POST', `${INFRA}/issues`, { as: 'reporter', json: { title: 'Mine to watch' } })
    ).data;
    expect(opened.subscribed).toBe(true);
    expect((await api(env.sandbox, 'GET', `${INFRA}/issues/${opened.iid}`, { as: 'developer' })).data.subscribed).toBe(
      false,
    );
  });
  test('the notes of an issue or merge request the caller may not see are not there (404 Not found)', async () => {
    expect((await api(env.sandbox, 'GET', `${INFRA}/issues/999/notes`)).data).toEqual({ message: '404 Not found' });
    expect(
      (await api(env.sandbox, 'POST', `${PAYMENTS}/merge_requests/1/notes`, { as: 'guest', json: { body: 'hi' } }))
        .data,
    ).toEqual({ message: '404 Not found' });
  });
  test("a note holds at most 1,000,000 characters; its created_at is an owner's to set", async () => {
    const long = await api(env.sandbox, 'POST', `${INFRA}/issues/2/notes`, {
      as: 'reporter',
      json: { body: 'x'.repeat(1_000_001) },
    });
    expect([long.status, long.data]).toEqual([
      400,
      { message: '400 Bad request - Note {:note=>["is too long (maximum is 1000000 characters)"]}' },
    ]);
    const dated = { body: 'Imported.', created_at: '2020-01-02T03:04:05Z' };
    expect(
      (await api(env.sandbox, 'POST', `${INFRA}/issues/2/notes`, { as: 'admin', json: dated })).data.created_at,
    ).toBe('2020-01-02T03:04:05.000Z');
    expect(
      (await api(env.sandbox, 'POST', `${INFRA}/issues/2/notes`, { as: 'reporter', json: dated })).data.created_at,
    ).not.toBe('2020-01-02T03:04:05.000Z');
  });
  test('an owner may give an issue its iid and dates (an import); a taken iid is 409 Duplicated issue', async () => {
    const imported = await api(env.sandbox, 'POST', `${INFRA}/issues`, {
      as: 'admin',
      json: { title: 'Imported', iid: 500, created_at: '2021-05-06T07:08:09Z' },
    });
    expect(imported.data).toMatchObject({ iid: 500, created_at: '2021-05-06T07:08:09.000Z' });
    expect(
      (await api(env.sandbox, 'POST', `${INFRA}/issues`, { as: 'admin', json: { title: 'Again', iid: 500 } })).data,
    ).toEqual({ message: 'Duplicated issue' });
    const byReporter = await api(env.sandbox, 'POST', `${INFRA}/issues`, {
      as: 'reporter',
      json: { title: 'Not imported', iid: 900 },
    });
    expect(byReporter.data.iid).not.toBe(900);
  });
});

describe('one project', () => {
  test("is read in full without a token on a public project, without the caller's permissions", async () => {
    const project = (await api(env.sandbox, 'GET', WEB, { as: 'anonymous' })).data;
    expect(project).toMatchObject({ visibility: 'public', namespace: { full_path: 'acme' }, archived: false });
    expect(project).not.toHaveProperty('permissions');
  });
});
