// @gitbeaker/rest, the TypeScript client of this API family, drives the sandbox as a Node script would: every operation
// forgeops offers outside the spec, the spec's main reads and writes, pagination and the errors it throws.
import { AccessLevel, GitbeakerRequestError, Gitlab, type JobScope } from '@gitbeaker/rest';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { areas, operations } from '../../src/operations/index.js';
import { ManualClock } from '../../src/sandbox/core/clock.js';
import type { RequestRecord } from '../../src/sandbox/faults.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { interopGaps } from '../contract/harness.js';

const WEB = 'acme/web';
type Role = Exclude<keyof Sandbox['tokens'], 'scim'>;

let sandbox: Sandbox;
const clients = new Map<string, Gitlab<false>>();
/** Requests the sandboxes of single blocks received (gitbeaker's, like those of the file's sandbox). */
const otherRequests: RequestRecord[] = [];

beforeAll(async () => {
  // The clock stands still, as in the contract tests: no pipeline moves between two reads of a test.
  sandbox = await startSandbox({ port: 0, clock: new ManualClock() });
});
afterAll(async () => {
  await sandbox?.close();
});

/** A gitbeaker client signed in as one of the sandbox's demo users (or with a token as given). */
function gitlab(role: Role, token: string = sandbox.tokens[role]): Gitlab<false> {
  const key = `${role}:${token}`;
  let client = clients.get(key);
  if (!client) {
    client = new Gitlab({ host: sandbox.url, token });
    clients.set(key, client);
  }
  return client;
}

let made = 0;
/** A name no other test uses, so that tests share the sandbox without leaning on each other. */
const fresh = (prefix: string): string => `${prefix}-${++made}`;

/** A commit that adds `filePath` with `content` on `branch`, made from main if it is new, through gitbeaker as `api`. */
function commitNewFile(api: Gitlab<false>, branch: string, title: string, filePath: string, content: string) {
  return api.Commits.create(WEB, branch, title, [{ action: 'create', filePath, content }], { startBranch: 'main' });
}

/** A wider list (a group's, the instance's) holds every item of a project's, by id. */
function expectHoldsAll(wider: Array<{ id: number }>, ofProject: Array<{ id: number }>) {
  expect(wider.map((item) => item.id)).toEqual(expect.arrayContaining(ofProject.map((item) => item.id)));
}

interface Refusal {
  status: number;
  /** The service's message as gitbeaker read it (an object's JSON for a validation error). */
  message: string;
}

/** What gitbeaker threw for a call the service refused; fails when the call succeeded or threw something else. */
async function refusal(call: () => Promise<unknown>): Promise<Refusal> {
  try {
    await call();
  } catch (error) {
    if (error instanceof GitbeakerRequestError && error.cause) {
      return { status: error.cause.response.status, message: error.cause.description };
    }
    throw error;
  }
  throw new Error('the call succeeded; a refusal was expected');
}

/** The files of a .tar.gz that gitbeaker downloaded, each without the archive's top folder. */
async function tarFilesOf(blob: Blob): Promise<string[]> {
  const tar = gunzipSync(Buffer.from(await blob.arrayBuffer()));
  const files: string[] = [];
  // ustar: 512-byte headers, each followed by its content rounded up to 512 bytes; two empty blocks end it.
  for (let at = 0; at + 512 <= tar.length && tar[at] !== 0; ) {
    const field = (start: number, length: number) =>
      tar
        .subarray(at + start, at + start + length)
        .toString('utf8')
        .replace(/\0.*$/s, '');
    const size = Number.parseInt(field(124, 12).trim() || '0', 8);
    const type = field(156, 1);
    const prefix = field(345, 155);
    const name = prefix ? `${prefix}/${field(0, 100)}` : field(0, 100);
    if (type === '0' || type === '') files.push(name.split('/').slice(1).join('/'));
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return files.sort();
}

describe('gitbeaker itself', () => {
  it('loads on this Node and talks to the sandbox', async () => {
    const me = await gitlab('maintainer').Users.showCurrentUser();
    expect(me).toMatchObject({ username: 'alice' });
  });
});

describe('CI: pipelines and jobs', () => {
  it('lists pipelines with filters, and all pages of them with the headers read right', async () => {
    const api = gitlab('maintainer');
    const all = await api.Pipelines.all(WEB);
    expect(all.length).toBeGreaterThan(3);
    const failed = await api.Pipelines.all(WEB, { status: 'failed', orderBy: 'id', sort: 'asc' });
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.every((p) => p.status === 'failed')).toBe(true);
    expect(failed.map((p) => p.id)).toEqual([...failed.map((p) => p.id)].sort((a, b) => a - b));

    const firstPage = await api.Pipelines.all(WEB, { perPage: 2, maxPages: 1, showExpanded: true });
    expect(firstPage.data).toHaveLength(2);
    expect(firstPage.paginationInfo).toMatchObject({ current: 1, perPage: 2, next: 2, previous: null });
    expect(firstPage.paginationInfo.total).toBe(all.length);
    expect(firstPage.paginationInfo.totalPages).toBe(Math.ceil(all.length / 2));
    const paged = await api.Pipelines.all(WEB, { perPage: 2 });
    expect(paged.map((p) => p.id)).toEqual(all.map((p) => p.id));
  });

  it('reads a pipeline and its variables', async () => {
    const api = gitlab('maintainer');
    const [newestFailed] = await api.Pipelines.all(WEB, { status: 'failed', perPage: 1, maxPages: 1 });
    const pipeline = await api.Pipelines.show(WEB, newestFailed.id);
    expect(pipeline).toMatchObject({
      id: newestFailed.id,
      status: 'failed',
      ref: newestFailed.ref,
      sha: newestFailed.sha,
    });
    const created = await api.Pipelines.create(WEB, 'main', { variables: [{ key: 'VIA', value: 'gitbeaker' }] });
    const variables = await api.Pipelines.allVariables(WEB, created.id);
    expect(variables.map((v) => [v.key, v.value])).toEqual([['VIA', 'gitbeaker']]);
  });

  it('creates a pipeline, cancels, retries and deletes it', async () => {
    const api = gitlab('maintainer');
    const created = await api.Pipelines.create(WEB, 'main');
    expect(created).toMatchObject({ ref: 'main', status: 'pending' });
    const jobs = await api.Jobs.all(WEB, { pipelineId: created.id });
    expect(jobs.length).toBeGreaterThan(0);
    expect(jobs.every((job) => job.pipeline.id === created.id)).toBe(true);
    const canceled = await api.Pipelines.cancel(WEB, created.id);
    expect(canceled.status).toBe('canceled');
    const retried = await api.Pipelines.retry(WEB, created.id);
    expect(retried.id).toBe(created.id);
    expect(retried.status).not.toBe('canceled');
    await api.Pipelines.remove(WEB, created.id);
    const gone = await refusal(() => api.Pipelines.show(WEB, created.id));
    expect(gone.status).toBe(404);
    expect(gone.message).toMatch(/^404 /);
  });

  it("lists a pipeline's jobs and the project's, by scope, and reads one with its log", async () => {
    const api = gitlab('maintainer');
    const [newestFailed] = await api.Pipelines.all(WEB, { status: 'failed', perPage: 1, maxPages: 1 });
    const ofPipeline = await api.Jobs.all(WEB, { pipelineId: newestFailed.id });
    expect(ofPipeline.some((job) => job.status === 'failed')).toBe(true);
    const failedOfPipeline = await api.Jobs.all(WEB, { pipelineId: newestFailed.id, scope: 'failed' });
    expect(failedOfPipeline.map((job) => job.id)).toEqual(
      ofPipeline.filter((job) => job.status === 'failed').map((job) => job.id),
    );
    // gitbeaker types one scope; an array goes out as scope[]=…, the service's form for several.
    const failedOrManual = await api.Jobs.all(WEB, { scope: ['failed', 'manual'] as unknown as JobScope });
    expect(new Set(failedOrManual.map((job) => job.status))).toEqual(new Set(['failed', 'manual']));
    const job = await api.Jobs.show(WEB, failedOfPipeline[0].id);
    expect(job).toMatchObject({ id: failedOfPipeline[0].id, status: 'failed', pipeline: { id: newestFailed.id } });
    const log = await api.Jobs.showLog(WEB, job.id);
    expect(typeof log).toBe('string');
    expect(log.length).toBeGreaterThan(0);
  });

  it('retries a failed job into a new one, cancels a running one, plays a manual one and erases a finished one', async () => {
    const api = gitlab('maintainer');
    const [failed] = await api.Jobs.all(WEB, { scope: 'failed', perPage: 1, maxPages: 1 });
    const retried = await api.Jobs.retry(WEB, failed.id);
    expect(retried).toMatchObject({ name: failed.name, status: 'pending' });
    expect(retried.id).not.toBe(failed.id);

    const [running] = await api.Jobs.all(WEB, { scope: 'running' });
    const canceled = await api.Jobs.cancel(WEB, running.id);
    expect(canceled).toMatchObject({ id: running.id, status: 'canceled' });

    const [manual] = await api.Jobs.all(WEB, { scope: 'manual' });
    const played = await api.Jobs.play(WEB, manual.id, {
      jobVariablesAttributes: [{ key: 'TARGET', value: 'canary' }],
    });
    expect(played.id).toBe(manual.id);
    expect((await api.Jobs.show(WEB, manual.id)).status).not.toBe('manual');

    const [finished] = await api.Jobs.all(WEB, { scope: 'success' });
    const erased = await api.Jobs.erase(WEB, finished.id);
    expect(erased.erased_at).toEqual(expect.any(String));
    expect(await api.Jobs.showLog(WEB, finished.id)).toBe('');
  });

  it('lets a reporter read jobs but not retry them', async () => {
    const [failed] = await gitlab('maintainer').Jobs.all(WEB, { scope: 'failed', perPage: 1, maxPages: 1 });
    const reporter = gitlab('reporter');
    expect((await reporter.Jobs.show(WEB, failed.id)).id).toBe(failed.id);
    expect((await refusal(() => reporter.Jobs.retry(WEB, failed.id))).status).toBe(403);
  });
});

describe('repository: files, commits, cherry-pick and revert, branches, protected branches, tags', () => {
  it('creates a file with a space in its path, reads it, edits it and deletes it', async () => {
    const api = gitlab('maintainer');
    const path = `docs/${fresh('gitbeaker notes')}.md`;
    const created = await api.RepositoryFiles.create(WEB, path, 'main', 'first line\n', 'Add gitbeaker notes');
    expect(created).toEqual({ file_path: path, branch: 'main' });
    const shown = await api.RepositoryFiles.show(WEB, path, 'main');
    expect(shown).toMatchObject({ file_path: path, encoding: 'base64' });
    expect(Buffer.from(shown.content, 'base64').toString()).toBe('first line\n');
    await api.RepositoryFiles.edit(WEB, path, 'main', 'first line\nsecond line\n', 'Extend gitbeaker notes');
    expect(await api.RepositoryFiles.showRaw(WEB, path, 'main')).toBe('first line\nsecond line\n');
    await api.RepositoryFiles.remove(WEB, path, 'main', 'Remove gitbeaker notes');
    expect(await refusal(() => api.RepositoryFiles.show(WEB, path, 'main'))).toEqual({
      status: 404,
      message: '404 File Not Found',
    });
    const titles = (await api.Commits.all(WEB, { refName: 'main', perPage: 3, maxPages: 1 })).map((c) => c.title);
    expect(titles).toEqual(['Remove gitbeaker notes', 'Extend gitbeaker notes', 'Add gitbeaker notes']);
  });

  it('commits with actions to a new branch, reads it, cherry-picks it and reverts it', async () => {
    const api = gitlab('maintainer');
    const branch = fresh('gitbeaker/commits');
    const commit = await commitNewFile(api, branch, 'Gitbeaker: add a file', `${branch}/a.txt`, 'a\n');
    expect(commit.title).toBe('Gitbeaker: add a file');
    expect((await api.Commits.show(WEB, commit.id)).id).toBe(commit.id);

    const target = fresh('gitbeaker/picked');
    await api.Branches.create(WEB, target, 'main');
    const picked = await api.Commits.cherryPick(WEB, commit.id, target);
    expect(picked.title).toBe('Gitbeaker: add a file');
    expect(picked.id).not.toBe(commit.id);
    expect(await api.RepositoryFiles.showRaw(WEB, `${branch}/a.txt`, target)).toBe('a\n');

    const reverted = await api.Commits.revert(WEB, commit.id, branch);
    expect(reverted.title).toBe('Revert "Gitbeaker: add a file"');
    expect((await refusal(() => api.RepositoryFiles.show(WEB, `${branch}/a.txt`, branch))).status).toBe(404);
    const again = await refusal(() => api.Commits.revert(WEB, commit.id, branch));
    expect(again.status).toBe(400);
  });

  it('lists, reads, creates and deletes branches, and deletes merged ones', async () => {
    const api = gitlab('maintainer');
    const name = fresh('gitbeaker/branch');
    const created = await api.Branches.create(WEB, name, 'main');
    const main = await api.Branches.show(WEB, 'main');
    // At main's head nothing of it is merged yet, as the service counts it.
    expect(created).toMatchObject({ name, merged: false, protected: false, commit: { id: main.commit.id } });
    expect(await api.Branches.show(WEB, name)).toMatchObject({ name, commit: { id: main.commit.id } });
    const searched = await api.Branches.all(WEB, { search: 'gitbeaker/branch' });
    expect(searched.map((b) => b.name)).toContain(name);
    expect(searched.every((b) => b.name.includes('gitbeaker/branch'))).toBe(true);
    await api.Branches.remove(WEB, name);
    expect(await refusal(() => api.Branches.show(WEB, name))).toEqual({
      status: 404,
      message: '404 Branch Not Found',
    });

    // A branch behind main's head is merged into it; one with its own commit is not, nor one at main's head.
    const merged = fresh('gitbeaker/merged');
    await api.Branches.create(WEB, merged, 'v1.0.0');
    expect((await api.Branches.show(WEB, merged)).merged).toBe(true);
    const atHead = fresh('gitbeaker/at-head');
    await api.Branches.create(WEB, atHead, 'main');
    const unmerged = fresh('gitbeaker/unmerged');
    await commitNewFile(api, unmerged, 'Unmerged work', `${unmerged}.txt`, 'x\n');
    await api.Branches.removeMerged(WEB);
    const after = (await api.Branches.all(WEB)).map((b) => b.name);
    expect(after).not.toContain(merged);
    expect(after).toContain(unmerged);
    expect(after).toContain(atHead);
    expect(after).toContain('main');
  });

  it('protects a branch pattern, lists it and unprotects it', async () => {
    const api = gitlab('maintainer');
    const pattern = `${fresh('gitbeaker-release')}/*`;
    const protectedBranch = await api.ProtectedBranches.protect(WEB, pattern, {
      pushAccessLevel: AccessLevel.MAINTAINER,
      mergeAccessLevel: AccessLevel.DEVELOPER,
    });
    expect(protectedBranch.name).toBe(pattern);
    expect(protectedBranch).toMatchObject({
      push_access_levels: [{ access_level: 40 }],
      merge_access_levels: [{ access_level: 30 }],
    });
    expect((await api.ProtectedBranches.all(WEB)).map((b) => b.name)).toContain(pattern);
    await api.ProtectedBranches.unprotect(WEB, pattern);
    expect((await api.ProtectedBranches.all(WEB)).map((b) => b.name)).not.toContain(pattern);
  });

  it('lists, reads, creates and deletes tags', async () => {
    const api = gitlab('maintainer');
    const name = fresh('v9.9.0-gitbeaker');
    const main = await api.Branches.show(WEB, 'main');
    const created = await api.Tags.create(WEB, name, 'main', { message: 'Annotated by gitbeaker' });
    expect(created).toMatchObject({ name, message: 'Annotated by gitbeaker', commit: { id: main.commit.id } });
    expect(await api.Tags.show(WEB, name)).toMatchObject({ name });
    expect((await api.Tags.all(WEB, { search: name })).map((t) => t.name)).toEqual([name]);
    await api.Tags.remove(WEB, name);
    expect((await refusal(() => api.Tags.show(WEB, name))).status).toBe(404);
  });
});

describe('work items: merge requests and issues', () => {
  async function branchWithCommit(api: Gitlab<false>, prefix: string): Promise<string> {
    const branch = fresh(prefix);
    await commitNewFile(api, branch, `Work on ${branch}`, `${branch}.txt`, 'work\n');
    return branch;
  }

  it('lists merge requests of a project, of a group and of the instance', async () => {
    const api = gitlab('maintainer');
    const ofProject = await api.MergeRequests.all({ projectId: WEB, state: 'opened' });
    expect(ofProject.length).toBeGreaterThan(0);
    expect(ofProject.every((mr) => mr.state === 'opened')).toBe(true);
    const ofGroup = await api.MergeRequests.all({ groupId: 'acme', state: 'opened' });
    expectHoldsAll(ofGroup, ofProject);
    const mine = await api.MergeRequests.all({ scope: 'all', state: 'opened' });
    expectHoldsAll(mine, ofProject);
  });

  it('opens a merge request, edits it, comments, approves and merges it, removing the source branch', async () => {
    const api = gitlab('maintainer');
    const branch = await branchWithCommit(api, 'gitbeaker/mr');
    const opened = await api.MergeRequests.create(WEB, branch, 'main', 'Gitbeaker MR', { labels: 'interop,gitbeaker' });
    expect(opened).toMatchObject({ source_branch: branch, target_branch: 'main', state: 'opened' });
    expect(opened.labels).toEqual(expect.arrayContaining(['gitbeaker', 'interop']));
    expect(opened.labels).toHaveLength(2);
    const edited = await api.MergeRequests.edit(WEB, opened.iid, {
      title: 'Gitbeaker MR, edited',
      removeLabels: 'interop',
    });
    expect(edited).toMatchObject({ title: 'Gitbeaker MR, edited', labels: ['gitbeaker'] });
    expect(await api.MergeRequests.show(WEB, opened.iid)).toMatchObject({
      iid: opened.iid,
      title: 'Gitbeaker MR, edited',
    });

    const note = await api.MergeRequestNotes.create(WEB, opened.iid, 'Looks right');
    expect(note.body).toBe('Looks right');
    expect((await api.MergeRequestNotes.all(WEB, opened.iid)).map((n) => n.body)).toContain('Looks right');

    const stale = await refusal(() =>
      gitlab('developer').MergeRequestApprovals.approve(WEB, opened.iid, { sha: '0'.repeat(40) }),
    );
    expect(stale.status).toBe(409);
    const approval = await gitlab('developer').MergeRequestApprovals.approve(WEB, opened.iid, { sha: opened.sha });
    expect(approval.approved_by).toEqual([{ user: expect.objectContaining({ username: 'bob' }) }]);

    const merged = await api.MergeRequests.accept(WEB, opened.iid, { shouldRemoveSourceBranch: true, sha: opened.sha });
    expect(merged).toMatchObject({ state: 'merged', iid: opened.iid });
    expect((await refusal(() => api.Branches.show(WEB, branch))).status).toBe(404);
  });

  it('refuses a second merge request for the same branch', async () => {
    const api = gitlab('maintainer');
    const branch = await branchWithCommit(api, 'gitbeaker/twice');
    await api.MergeRequests.create(WEB, branch, 'main', 'First');
    const second = await refusal(() => api.MergeRequests.create(WEB, branch, 'main', 'Second'));
    expect(second.status).toBe(409);
    expect(second.message).toMatch(/Another open merge request already exists for this source branch/);
  });

  it('lists issues of a project, of a group and of the instance', async () => {
    const api = gitlab('maintainer');
    const ofProject = await api.Issues.all({ projectId: WEB });
    expect(ofProject.length).toBeGreaterThan(0);
    const ofGroup = await api.Issues.all({ groupId: 'acme' });
    expectHoldsAll(ofGroup, ofProject);
    const ofInstance = await api.Issues.all({ scope: 'all' });
    expectHoldsAll(ofInstance, ofProject);
  });

  it('opens an issue, reads it, edits and closes it, and comments on it', async () => {
    const api = gitlab('maintainer');
    const title = fresh('Gitbeaker issue');
    const opened = await api.Issues.create(WEB, title, { labels: 'bug,gitbeaker', description: 'Found by a script' });
    expect(opened).toMatchObject({ title, state: 'opened', description: 'Found by a script' });
    expect(await api.Issues.show(opened.iid, { projectId: WEB })).toMatchObject({ id: opened.id, title });
    const closed = await api.Issues.edit(WEB, opened.iid, { stateEvent: 'close', addLabels: 'triaged' });
    expect(closed.state).toBe('closed');
    expect(closed.labels).toEqual(expect.arrayContaining(['bug', 'gitbeaker', 'triaged']));
    expect(closed.labels).toHaveLength(3);
    await api.IssueNotes.create(WEB, opened.iid, 'Fixed on main');
    expect((await api.IssueNotes.all(WEB, opened.iid)).map((n) => n.body)).toContain('Fixed on main');
  });
});

describe('projects, groups, users, members, variables, releases and hooks', () => {
  it('reads a project by path and by id', async () => {
    const api = gitlab('maintainer');
    const byPath = await api.Projects.show(WEB);
    expect(byPath).toMatchObject({ path_with_namespace: WEB, default_branch: 'main' });
    expect(await api.Projects.show(byPath.id)).toMatchObject({ id: byPath.id, path_with_namespace: WEB });
  });

  it('pages projects by offset (all pages, headers read right) and by keyset links', async () => {
    const api = gitlab('admin');
    const all = await api.Projects.all({ orderBy: 'id', sort: 'asc' });
    expect(all.length).toBeGreaterThan(3);
    const ids = all.map((p) => p.id);
    const paged = await api.Projects.all({ orderBy: 'id', sort: 'asc', perPage: 2 });
    expect(paged.map((p) => p.id)).toEqual(ids);
    const second = await api.Projects.all({
      pagination: 'offset',
      orderBy: 'id',
      sort: 'asc',
      perPage: 2,
      page: 2,
      maxPages: 1,
      showExpanded: true,
    });
    expect(second.data.map((p) => p.id)).toEqual(ids.slice(2, 4));
    expect(second.paginationInfo).toMatchObject({ current: 2, previous: 1, perPage: 2, total: ids.length });
    const keyset = await api.Projects.all({ pagination: 'keyset', orderBy: 'id', sort: 'asc', perPage: 2 });
    expect(keyset.map((p) => p.id)).toEqual(ids);
    const firstKeyset = await api.Projects.all({
      pagination: 'keyset',
      orderBy: 'id',
      sort: 'asc',
      perPage: 2,
      maxPages: 1,
      showExpanded: true,
    });
    expect(firstKeyset.data.map((p) => p.id)).toEqual(ids.slice(0, 2));
    // gitbeaker reports the id_after it asked with; the service answers the records after it.
    const afterTwo = await api.Projects.all({
      pagination: 'keyset',
      orderBy: 'id',
      sort: 'asc',
      perPage: 2,
      idAfter: ids[1],
      maxPages: 1,
      showExpanded: true,
    });
    expect(afterTwo.data.map((p) => p.id)).toEqual(ids.slice(2, 4));
    expect(afterTwo.paginationInfo).toMatchObject({ idAfter: ids[1], perPage: 2, orderBy: 'id', sort: 'asc' });
  });

  it('lists and reads groups, their subgroups and projects, and creates a subgroup', async () => {
    const api = gitlab('admin');
    const groups = (await api.Groups.all()).map((g) => g.full_path);
    expect(groups).toEqual(expect.arrayContaining(['acme', 'acme/platform']));
    const acme = await api.Groups.show('acme');
    expect(acme).toMatchObject({ full_path: 'acme' });
    expect((await api.Groups.allSubgroups('acme')).map((g) => g.full_path)).toContain('acme/platform');
    expect((await api.Groups.allProjects('acme')).map((p) => p.path_with_namespace)).toContain(WEB);
    const path = fresh('gitbeaker-team');
    const created = await api.Groups.create('Gitbeaker team', path, { parentId: acme.id });
    expect(created).toMatchObject({ full_path: `acme/${path}`, parent_id: acme.id });
  });

  it('lists, reads, creates, edits and deletes users', async () => {
    const api = gitlab('admin');
    expect((await api.Users.all({ username: 'bob' })).map((u) => u.username)).toEqual(['bob']);
    const username = fresh('gitbeaker-user');
    const created = await api.Users.create({
      email: `${username}@example.com`,
      username,
      name: 'Gitbeaker User',
      password: 'a-long-enough-password-1',
    });
    expect(created).toMatchObject({ username, name: 'Gitbeaker User' });
    expect(await api.Users.show(created.id)).toMatchObject({ id: created.id, username });
    expect(await api.Users.edit(created.id, { bio: 'Made by gitbeaker' })).toMatchObject({ bio: 'Made by gitbeaker' });
    await api.Users.remove(created.id);
    // Deleting a user is queued by the service: the account goes once the deletion ran.
    await expect.poll(async () => (await refusal(() => api.Users.show(created.id))).status).toBe(404);
  });

  it('adds, reads, edits and removes a project member and a group member', async () => {
    const api = gitlab('admin');
    const [erin] = await api.Users.all({ username: 'erin' });
    const added = await api.ProjectMembers.add(WEB, AccessLevel.REPORTER, { userId: erin.id });
    expect(added).toMatchObject({ username: 'erin', access_level: 20 });
    expect(await api.ProjectMembers.show(WEB, erin.id)).toMatchObject({ access_level: 20 });
    expect(await api.ProjectMembers.edit(WEB, erin.id, AccessLevel.DEVELOPER)).toMatchObject({ access_level: 30 });
    expect((await api.ProjectMembers.all(WEB, { includeInherited: true })).map((m) => m.username)).toEqual(
      expect.arrayContaining(['alice', 'bob', 'erin']),
    );
    await api.ProjectMembers.remove(WEB, erin.id);
    expect((await refusal(() => api.ProjectMembers.show(WEB, erin.id))).status).toBe(404);

    const group = await api.Groups.create('Gitbeaker members', fresh('gitbeaker-members'));
    await api.GroupMembers.add(group.id, AccessLevel.GUEST, { userId: erin.id });
    expect(await api.GroupMembers.edit(group.id, erin.id, AccessLevel.MAINTAINER)).toMatchObject({ access_level: 40 });
    await api.GroupMembers.remove(group.id, erin.id);
    expect((await api.GroupMembers.all(group.id)).map((m) => m.username)).not.toContain('erin');
  });

  it('creates, reads, edits, lists and deletes a group variable', async () => {
    const api = gitlab('maintainer');
    const key = fresh('GITBEAKER_VAR').replaceAll('-', '_');
    const created = await api.GroupVariables.create('acme', key, 'one', { protected: true });
    expect(created).toMatchObject({ key, value: 'one', protected: true });
    expect(await api.GroupVariables.edit('acme', key, 'two')).toMatchObject({ key, value: 'two' });
    expect(await api.GroupVariables.show('acme', key)).toMatchObject({ key, value: 'two' });
    expect((await api.GroupVariables.all('acme')).map((v) => v.key)).toContain(key);
    await api.GroupVariables.remove('acme', key);
    expect((await refusal(() => api.GroupVariables.show('acme', key))).status).toBe(404);
  });

  it('creates a release with its tag, lists, reads and edits it', async () => {
    const api = gitlab('maintainer');
    const tagName = fresh('v8.0.0-gitbeaker');
    const created = await api.ProjectReleases.create(WEB, {
      tagName,
      ref: 'main',
      name: 'Gitbeaker release',
      description: 'Cut by a script',
    });
    expect(created).toMatchObject({ tag_name: tagName, name: 'Gitbeaker release', description: 'Cut by a script' });
    expect((await api.Tags.show(WEB, tagName)).name).toBe(tagName);
    expect((await api.ProjectReleases.all(WEB)).map((r) => r.tag_name)).toContain(tagName);
    expect(await api.ProjectReleases.show(WEB, tagName)).toMatchObject({ tag_name: tagName });
    expect(await api.ProjectReleases.edit(WEB, tagName, { name: 'Renamed' })).toMatchObject({ name: 'Renamed' });
  });

  it('adds, lists, reads, edits and removes a project hook; its token is never shown', async () => {
    const api = gitlab('maintainer');
    const added = await api.ProjectHooks.add(WEB, 'http://127.0.0.1:9/gitbeaker', {
      pipelineEvents: true,
      pushEvents: false,
      token: 'secret-of-the-hook',
    });
    expect(added).toMatchObject({ url: 'http://127.0.0.1:9/gitbeaker', pipeline_events: true, push_events: false });
    expect(JSON.stringify(added)).not.toContain('secret-of-the-hook');
    expect((await api.ProjectHooks.all(WEB)).map((h) => h.id)).toContain(added.id);
    const edited = await api.ProjectHooks.edit(WEB, added.id, 'http://127.0.0.1:9/edited', { pipelineEvents: false });
    expect(edited).toMatchObject({ id: added.id, url: 'http://127.0.0.1:9/edited', pipeline_events: false });
    expect(await api.ProjectHooks.show(WEB, added.id)).toMatchObject({ url: 'http://127.0.0.1:9/edited' });
    await api.ProjectHooks.remove(WEB, added.id);
    expect((await refusal(() => api.ProjectHooks.show(WEB, added.id))).status).toBe(404);
  });
});

describe('more of the spec: repository reads, commit notes, label events, epics, notifications, packages, instance admin', () => {
  it('reads the tree, a comparison, the contributors, a merge base, a blob and a blame', async () => {
    const api = gitlab('maintainer');
    const tree = await api.Repositories.allRepositoryTrees(WEB, { path: 'src', recursive: true });
    expect(tree.map((entry) => entry.path)).toContain('src/index.ts');
    expect(tree.every((entry) => entry.path.startsWith('src/'))).toBe(true);
    const compared = await api.Repositories.compare(WEB, 'v1.0.0', 'v1.1.0');
    const between = await api.Commits.all(WEB, { refName: 'v1.0.0..v1.1.0' });
    expect((compared.commits ?? []).map((c) => c.id).sort()).toEqual(between.map((c) => c.id).sort());
    expect(compared.diffs?.length).toBeGreaterThan(0);
    const contributors = await api.Repositories.allContributors(WEB);
    expect(contributors.map((c) => c.email)).toEqual(
      expect.arrayContaining(['alice@acme.example', 'bob@acme.example']),
    );
    const base = await api.Repositories.mergeBase(WEB, ['main', 'feature/dark-mode']);
    const darkMode = await api.Commits.all(WEB, { refName: 'feature/dark-mode' });
    expect(darkMode.map((c) => c.id)).toContain(base.id);

    const file = await api.RepositoryFiles.show(WEB, 'README.md', 'main');
    const text = Buffer.from(file.content, 'base64').toString();
    const blob = await api.Repositories.showBlob(WEB, file.blob_id);
    expect(blob).toMatchObject({ sha: file.blob_id, size: Buffer.byteLength(text) });
    const raw = await api.Repositories.showBlobRaw(WEB, file.blob_id);
    expect(raw instanceof Blob ? await raw.text() : raw).toBe(text);
    const blame = await api.RepositoryFiles.allFileBlames(WEB, 'README.md', 'main');
    expect(blame.flatMap((part) => part.lines).join('\n')).toBe(text.replace(/\n$/, ''));
  });

  it("reads a commit's refs and diff, comments on it and lists the comments", async () => {
    const api = gitlab('maintainer');
    const branch = fresh('gitbeaker/noted');
    const commit = await commitNewFile(api, branch, 'Gitbeaker: a commit to note', `${branch}/noted.txt`, 'noted\n');
    expect(await api.Commits.allReferences(WEB, commit.id)).toEqual([{ type: 'branch', name: branch }]);
    expect((await api.Commits.showDiff(WEB, commit.id)).map((d) => [d.new_path, d.new_file])).toEqual([
      [`${branch}/noted.txt`, true],
    ]);
    expect((await api.Commits.createComment(WEB, commit.id, 'Looks right')).note).toBe('Looks right');
    expect((await api.Commits.allComments(WEB, commit.id)).map((c) => c.note)).toEqual(['Looks right']);
  });

  it('records label events of an issue and a merge request', async () => {
    const api = gitlab('maintainer');
    const issue = await api.Issues.create(WEB, fresh('Gitbeaker labelled'), { labels: 'bug' });
    await api.Issues.edit(WEB, issue.iid, { addLabels: 'triaged', removeLabels: 'bug' });
    const issueEvents = await api.IssueLabelEvents.all(WEB, issue.iid);
    expect(issueEvents.map((e) => [e.action, e.label.name]).sort()).toEqual([
      ['add', 'bug'],
      ['add', 'triaged'],
      ['remove', 'bug'],
    ]);
    expect(await api.IssueLabelEvents.show(WEB, issue.iid, issueEvents[0].id)).toMatchObject({ id: issueEvents[0].id });
    const [mr] = await api.MergeRequests.all({ projectId: WEB, state: 'opened', perPage: 1, maxPages: 1 });
    await api.MergeRequests.edit(WEB, mr.iid, { addLabels: 'gitbeaker-seen' });
    const mrEvents = await api.MergeRequestLabelEvents.all(WEB, mr.iid);
    expect(mrEvents.map((e) => [e.action, e.label.name])).toContainEqual(['add', 'gitbeaker-seen']);
  });

  it('lists, creates, edits, closes and deletes an epic (deleting takes the Owner role)', async () => {
    const maintainer = gitlab('maintainer');
    expect((await maintainer.Epics.all('acme')).length).toBeGreaterThan(0);
    const title = fresh('Gitbeaker epic');
    const epic = await maintainer.Epics.create('acme', title, { labels: 'roadmap' });
    expect(epic).toMatchObject({ title, state: 'opened', labels: ['roadmap'] });
    expect(await maintainer.Epics.show('acme', epic.iid)).toMatchObject({ iid: epic.iid, title });
    expect(await maintainer.Epics.edit('acme', epic.iid, { stateEvent: 'close' })).toMatchObject({ state: 'closed' });
    expect((await refusal(() => maintainer.Epics.remove('acme', epic.iid))).status).toBe(403);
    await gitlab('admin').Epics.remove('acme', epic.iid);
    expect((await refusal(() => maintainer.Epics.show('acme', epic.iid))).status).toBe(404);
  });

  it('reads and saves notification settings of the user, a group and a project', async () => {
    const api = gitlab('reporter');
    expect(await api.NotificationSettings.edit({ level: 'watch' })).toMatchObject({ level: 'watch' });
    expect(await api.NotificationSettings.show()).toMatchObject({ level: 'watch' });
    expect(await api.NotificationSettings.edit({ groupId: 'acme', level: 'participating' })).toMatchObject({
      level: 'participating',
    });
    expect(await api.NotificationSettings.show({ groupId: 'acme' })).toMatchObject({ level: 'participating' });
    expect(await api.NotificationSettings.edit({ projectId: WEB, level: 'disabled' })).toMatchObject({
      level: 'disabled',
    });
    expect(await api.NotificationSettings.show({ projectId: WEB })).toMatchObject({ level: 'disabled' });
  });

  it('lists packages of a project and a group, and reads one with its files', async () => {
    const api = gitlab('maintainer');
    const ofProject = await api.Packages.all({ projectId: WEB });
    expect(ofProject.length).toBeGreaterThan(0);
    const ofGroup = await api.Packages.all({ groupId: 'acme' });
    expectHoldsAll(ofGroup, ofProject);
    const one = await api.Packages.show(WEB, ofProject[0].id);
    expect(one).toMatchObject({ id: ofProject[0].id, name: ofProject[0].name });
    expect((await api.Packages.allFiles(WEB, one.id)).length).toBeGreaterThan(0);
  });

  it('reads inherited members of a subgroup and the projects of a user', async () => {
    const api = gitlab('maintainer');
    const direct = (await api.GroupMembers.all('acme/platform')).map((m) => m.username);
    const inherited = (await api.GroupMembers.all('acme/platform', { includeInherited: true })).map((m) => m.username);
    expect(inherited).toEqual(expect.arrayContaining(['alice', 'bob', 'carol', 'dave']));
    expect(inherited.length).toBeGreaterThan(direct.length);
    const [bob] = await api.Users.all({ username: 'bob' });
    expect(await api.GroupMembers.show('acme/platform', bob.id, { includeInherited: true })).toMatchObject({
      username: 'bob',
      access_level: 30,
    });
    // bob's own project is private: he sees it in his list, alice does not.
    expect((await gitlab('developer').Users.allProjects(bob.id)).map((p) => p.path_with_namespace)).toEqual([
      'bob/scratchpad',
    ]);
    expect(await api.Users.allProjects(bob.id)).toEqual([]);
  });

  it('creates, edits, lists and deletes a broadcast message, reads audit events and saves a setting, as an administrator', async () => {
    const admin = gitlab('admin');
    const message = await admin.BroadcastMessages.create({ message: 'Maintenance tonight' });
    expect(message).toMatchObject({ message: 'Maintenance tonight' });
    expect(await admin.BroadcastMessages.edit(message.id, { message: 'Maintenance done' })).toMatchObject({
      message: 'Maintenance done',
    });
    expect((await admin.BroadcastMessages.all()).map((m) => m.id)).toContain(message.id);
    await admin.BroadcastMessages.remove(message.id);
    expect((await refusal(() => admin.BroadcastMessages.show(message.id))).status).toBe(404);
    expect((await refusal(() => gitlab('maintainer').BroadcastMessages.create({ message: 'No' }))).status).toBe(403);

    const events = await admin.AuditEvents.all();
    expect(events.length).toBeGreaterThan(0);
    expect(await admin.AuditEvents.show(events[0].id)).toMatchObject({ id: events[0].id });
    expect((await refusal(() => gitlab('maintainer').AuditEvents.all())).status).toBe(403);

    const before = await admin.ApplicationSettings.show();
    const saved = await admin.ApplicationSettings.edit({ signupEnabled: !before.signup_enabled });
    expect(saved.signup_enabled).toBe(!before.signup_enabled);
    await admin.ApplicationSettings.edit({ signupEnabled: before.signup_enabled });
  });
});

describe('errors gitbeaker throws', () => {
  it('404 for a private project seen by a stranger, as for one that does not exist', async () => {
    expect(await refusal(() => gitlab('outsider').Projects.show('acme/platform/payments-api'))).toEqual({
      status: 404,
      message: '404 Project Not Found',
    });
    expect(await refusal(() => gitlab('outsider').Projects.show('acme/no-such-project'))).toEqual({
      status: 404,
      message: '404 Project Not Found',
    });
  });

  it('401 with a bad token', async () => {
    const bad = await refusal(() => gitlab('maintainer', 'not-a-real-token').Users.showCurrentUser());
    expect(bad).toEqual({ status: 401, message: '401 Unauthorized' });
  });

  it('403 for an admin endpoint as a normal user', async () => {
    const forbidden = await refusal(() => gitlab('developer').ApplicationSettings.show());
    expect(forbidden).toEqual({ status: 403, message: '403 Forbidden' });
  });

  it("400 with the service's validation message", async () => {
    const invalid = await refusal(() => gitlab('maintainer').Branches.create(WEB, 'gitbeaker-bad', 'no-such-ref'));
    expect(invalid).toEqual({ status: 400, message: 'Invalid reference name: no-such-ref' });
    // A model's validation errors come as an object of field messages, which gitbeaker passes on as JSON.
    const blank = await refusal(() => gitlab('maintainer').Issues.create(WEB, ''));
    expect(blank.status).toBe(400);
    expect(JSON.parse(blank.message)).toEqual({ title: ["can't be blank"] });
    const taken = await refusal(() => gitlab('admin').Groups.create('Acme again', 'acme'));
    expect(taken.status).toBe(400);
    expect(JSON.parse(taken.message)).toEqual({ path: ['has already been taken'] });
  });

  it('403 for a write below the role it takes, 409 for a member twice, 422 for a merge request into its own branch', async () => {
    expect(await refusal(() => gitlab('reporter').Branches.create(WEB, fresh('gitbeaker-nope'), 'main'))).toEqual({
      status: 403,
      message: '403 Forbidden',
    });
    const [bob] = await gitlab('admin').Users.all({ username: 'bob' });
    expect(
      await refusal(() => gitlab('admin').GroupMembers.add('acme', AccessLevel.DEVELOPER, { userId: bob.id })),
    ).toEqual({ status: 409, message: 'Member already exists' });
    const self = await refusal(() => gitlab('maintainer').MergeRequests.create(WEB, 'main', 'main', 'Into itself'));
    expect(self.status).toBe(422);
    expect(JSON.parse(self.message)).toEqual(["You can't use same project/branch for source and target"]);
  });
});

// What gitbeaker asks of the service where the sandbox once answered otherwise, each named in its comment.
describe('where the sandbox answered otherwise than the service', () => {
  // Item: revert dry_run. The service checks the revert and answers {"dry_run": "success"} with 200, committing nothing.
  it('a revert with dry_run commits nothing', async () => {
    const api = gitlab('maintainer');
    const branch = fresh('gitbeaker/dry-revert');
    const commit = await commitNewFile(api, branch, 'Gitbeaker: to revert', `${branch}.txt`, 'x\n');
    const answer = await api.Commits.revert(WEB, commit.id, branch, { dryRun: true, showExpanded: true });
    expect([answer.status, answer.data]).toEqual([200, { dry_run: 'success' }]);
    expect((await api.Branches.show(WEB, branch)).commit.id).toBe(commit.id);
  });

  // Item: revert dry_run (the cherry-pick takes the same dry_run and answers the same way).
  it('a cherry-pick with dry_run commits nothing', async () => {
    const api = gitlab('maintainer');
    const branch = fresh('gitbeaker/dry-pick');
    const commit = await commitNewFile(api, branch, 'Gitbeaker: to pick', `${branch}.txt`, 'x\n');
    const target = fresh('gitbeaker/dry-pick-target');
    const start = await api.Branches.create(WEB, target, 'main');
    const answer = await api.Commits.cherryPick(WEB, commit.id, target, { dryRun: true, showExpanded: true });
    expect([answer.status, answer.data]).toEqual([200, { dry_run: 'success' }]);
    expect((await api.Branches.show(WEB, target)).commit.id).toBe(start.commit.id);
  });

  // Item: release order_by/sort. The service orders releases by released_at (or created_at) and sort, newest first
  // by default; the seeded v1.0.0 was released and created before v1.1.0.
  it('lists releases oldest first when asked', async () => {
    const api = gitlab('maintainer');
    const seeded = (releases: unknown[]) =>
      (releases as Array<{ tag_name: string }>)
        .map((r) => r.tag_name)
        .filter((tag) => tag === 'v1.0.0' || tag === 'v1.1.0');
    expect(seeded(await api.ProjectReleases.all(WEB))).toEqual(['v1.1.0', 'v1.0.0']);
    expect(seeded(await api.ProjectReleases.all(WEB, { orderBy: 'released_at', sort: 'asc' }))).toEqual([
      'v1.0.0',
      'v1.1.0',
    ]);
    expect(seeded(await api.ProjectReleases.all(WEB, { orderBy: 'created_at', sort: 'asc' }))).toEqual([
      'v1.0.0',
      'v1.1.0',
    ]);
  });

  // Item: cancel_merge_when_pipeline_succeeds. The service answers 201 and the merge request no longer waits to merge.
  it('cancels a merge set to happen when the pipeline succeeds', async () => {
    const api = gitlab('maintainer');
    const branch = fresh('gitbeaker/auto-merge');
    await commitNewFile(api, branch, `Work on ${branch}`, `${branch}.txt`, 'work\n');
    const opened = await api.MergeRequests.create(WEB, branch, 'main', 'Merge when green');
    // The branch's pipeline is still pending (the clock stands still), so the merge waits for it.
    const armed = await api.MergeRequests.accept(WEB, opened.iid, { mergeWhenPipelineSucceeds: true });
    expect(armed).toMatchObject({ state: 'opened', merge_when_pipeline_succeeds: true });
    const canceled = await api.MergeRequests.cancelOnPipelineSuccess(WEB, opened.iid, { showExpanded: true });
    expect(canceled.status).toBe(201);
    expect(await api.MergeRequests.show(WEB, opened.iid)).toMatchObject({
      state: 'opened',
      merge_when_pipeline_succeeds: false,
    });
  });

  // Item: conflicted MR merge_status. Once a merge request's changes conflict with its target, the service reports it
  // as cannot_be_merged with has_conflicts, and refuses to merge it with 422. The sandbox refused the merge, but reported
  // can_be_merged until a merge was tried.
  it('reports a merge request whose changes conflict with its target as not mergeable', async () => {
    const api = gitlab('maintainer');
    const ours = fresh('gitbeaker/ours');
    const theirs = fresh('gitbeaker/theirs');
    const path = `${fresh('gitbeaker-conflict')}.txt`;
    await commitNewFile(api, ours, 'Ours', path, 'ours\n');
    await commitNewFile(api, theirs, 'Theirs', path, 'theirs\n');
    const first = await api.MergeRequests.create(WEB, ours, 'main', 'Ours first');
    const second = await api.MergeRequests.create(WEB, theirs, 'main', 'Theirs second');
    expect((await api.MergeRequests.accept(WEB, first.iid)).state).toBe('merged');
    // The list is where the service starts the check; the single read then reports its outcome.
    await api.MergeRequests.all({ projectId: WEB, iids: [second.iid] });
    expect(await api.MergeRequests.show(WEB, second.iid)).toMatchObject({
      merge_status: 'cannot_be_merged',
      has_conflicts: true,
    });
    expect(await refusal(() => api.MergeRequests.accept(WEB, second.iid))).toEqual({
      status: 422,
      message: 'Branch cannot be merged',
    });
  });

  // Item: archive path. The service archives only the subdirectory named by path.
  it('downloads an archive of one directory', async () => {
    const api = gitlab('maintainer');
    const whole = await tarFilesOf(await api.Repositories.showArchive(WEB, { fileType: 'tar.gz' }));
    expect(whole).toContain('README.md');
    const src = await tarFilesOf(await api.Repositories.showArchive(WEB, { fileType: 'tar.gz', path: 'src' }));
    expect(src.length).toBeGreaterThan(0);
    expect(src.filter((path) => !path.startsWith('src/'))).toEqual([]);
  });

  // Item: open_issues_count. The service counts the project's open issues (a maintainer's count takes in the
  // confidential ones too).
  it("counts a project's open issues", async () => {
    const api = gitlab('maintainer');
    const open = await api.Issues.all({ projectId: WEB, state: 'opened' });
    expect(open.length).toBeGreaterThan(0);
    expect((await api.Projects.show(WEB)).open_issues_count).toBe(open.length);
  });
});

// Deploying changes acme/web's main (its failing commit reverted, so its pipelines reach production) and adds a
// review app: done in a sandbox of this block's own, so the other blocks read the seeded project as it was.
describe('environments and deployments', () => {
  let deploySandbox: Sandbox;
  let branch = '';
  const deployClients = new Map<Role, Gitlab<false>>();
  /** A gitbeaker client of this block's sandbox. */
  const client = (role: Role): Gitlab<false> => {
    let made = deployClients.get(role);
    if (!made) {
      made = new Gitlab({ host: deploySandbox.url, token: deploySandbox.tokens[role] });
      deployClients.set(role, made);
    }
    return made;
  };
  /** What the REST API answers, read without gitbeaker (a maintainer's token). */
  const rest = async <T = any>(path: string): Promise<T> => {
    const answer = await fetch(`${deploySandbox.url}/api/v4${path}`, {
      headers: { 'PRIVATE-TOKEN': deploySandbox.tokens.maintainer },
    });
    expect(answer.status, path).toBe(200);
    return (await answer.json()) as T;
  };
  const project = encodeURIComponent(WEB);

  /** Moves the block's sandbox clock on a second at a time, with a read between, so its runner moves the pipelines. */
  async function advance(seconds: number) {
    const clock = deploySandbox.store.clock as ManualClock;
    for (let i = 0; i < seconds; i++) {
      clock.advance(1000);
      await client('reporter').Deployments.all(WEB, { perPage: 1, maxPages: 1 });
    }
  }

  beforeAll(async () => {
    deploySandbox = await startSandbox({ port: 0, clock: new ManualClock() });
    const api = client('maintainer');
    // main passes once bob's time-zone commit is reverted; a pipeline root starts on it then waits, at the manual
    // deploy:production, for a maintainer other than root to approve it.
    const commits = await api.Commits.all(WEB, { refName: 'main', perPage: 100, maxPages: 1 });
    const culprit = commits.find((c) => c.title === "Show order dates in the store's time zone");
    if (!culprit) throw new Error("the seeded culprit commit is not on acme/web's main");
    await api.Commits.revert(WEB, culprit.id, 'main');
    await advance(40);
    // A review app of a branch of the test's own: its manual review-app job makes the environment.
    branch = fresh('review-me');
    await api.Branches.create(WEB, branch, 'main');
    await api.Pipelines.create(WEB, branch);
    await client('admin').Pipelines.create(WEB, 'main');
    await advance(40);
  }, 60_000);
  afterAll(async () => {
    if (!deploySandbox) return;
    // What gitbeaker sent here counts towards what it reached.
    otherRequests.push(...deploySandbox.requests.all());
    await deploySandbox.close();
  });

  it('lists environments, by name, search and state, and reads one as the REST API answers', async () => {
    const api = client('reporter');
    const all = await api.Environments.all(WEB);
    expect(all).toEqual(await rest(`/projects/${project}/environments`));
    expect(all.map((e) => [e.name, e.tier])).toEqual(
      expect.arrayContaining([
        ['staging', 'staging'],
        ['production', 'production'],
        [`review/${branch}`, 'development'],
      ]),
    );
    const [production, ...more] = await api.Environments.all(WEB, { name: 'production' });
    expect(more).toEqual([]);
    expect(production).toEqual(all.find((e) => e.name === 'production'));
    const reviews = await api.Environments.all(WEB, { search: branch });
    expect(reviews.map((e) => e.name)).toEqual([`review/${branch}`]);
    const available = await api.Environments.all(WEB, { states: 'available' });
    expect(available.length).toBeGreaterThan(0);
    expect(available).toEqual(all.filter((e) => e.state === 'available'));
    const shown = await api.Environments.show(WEB, production.id);
    expect(shown).toEqual(await rest(`/projects/${project}/environments/${production.id}`));
    expect(shown).toMatchObject({ id: production.id, name: 'production', state: 'available' });
    expect(shown).toHaveProperty('last_deployment');
    expect((await refusal(() => api.Environments.show(WEB, 999999))).status).toBe(404);
  });

  it('lists deployments, by environment and status in the order asked, and reads one as the REST API answers', async () => {
    const api = client('reporter');
    const all = await api.Deployments.all(WEB);
    expect(all.map((d) => d.id)).toEqual(
      (await rest<Array<{ id: number }>>(`/projects/${project}/deployments?per_page=100`)).map((d) => d.id),
    );
    const staging = await api.Deployments.all(WEB, {
      environment: 'staging',
      status: 'success',
      orderBy: 'updated_at',
      sort: 'desc',
    });
    expect(staging.length).toBeGreaterThan(1);
    expect(staging.length).toBeLessThan(all.length);
    for (const deployment of staging) {
      expect(deployment).toMatchObject({ status: 'success', environment: { name: 'staging' } });
    }
    const times = staging.map((d) => Date.parse(d.updated_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(staging.map((d) => d.id)).toEqual(
      all
        .filter((d) => d.environment.name === 'staging' && d.status === 'success')
        .sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at) || b.id - a.id)
        .map((d) => d.id),
    );
    const shown = await api.Deployments.show(WEB, staging[0].id);
    expect(shown).toEqual(await rest(`/projects/${project}/deployments/${staging[0].id}`));
    expect(shown).toMatchObject({ id: staging[0].id, deployable: { name: 'deploy:staging' } });
    expect((await refusal(() => api.Deployments.show(WEB, 999999))).status).toBe(404);
  });

  it('approves the deployment root started on production as a maintainer (not a developer); its job then deploys', async () => {
    const blocked = await client('maintainer').Deployments.all(WEB, {
      environment: 'production',
      status: 'blocked',
      sort: 'desc',
    });
    // One from the pipeline of alice's revert (pushed), one from root's.
    expect(blocked.map((d) => d.user.username).sort()).toEqual(['alice', 'root']);
    const head = await client('maintainer').Branches.show(WEB, 'main');
    for (const deployment of blocked) {
      expect(deployment).toMatchObject({ ref: 'main', sha: head.commit.id, pending_approval_count: 1 });
    }
    const byRoot = blocked.find((d) => d.user.username === 'root')!;
    const own = blocked.find((d) => d.user.username === 'alice')!;
    expect(await refusal(() => client('developer').Deployments.setApproval(WEB, byRoot.id, 'approved'))).toEqual({
      status: 403,
      message: "You don't have permission to approve this deployment. Contact the project or group owner for help.",
    });
    expect(
      (await refusal(() => client('maintainer').Deployments.setApproval(WEB, own.id, 'approved'))).message,
    ).toMatch(/^You cannot approve your own deployment/);
    const approval = await client('maintainer').Deployments.setApproval(WEB, byRoot.id, 'approved', {
      comment: 'Ship it',
      representedAs: 'maintainers',
    });
    expect(approval).toMatchObject({ status: 'approved', comment: 'Ship it', user: { username: 'alice' } });
    expect(await rest(`/projects/${project}/deployments/${byRoot.id}`)).toMatchObject({
      status: 'created',
      pending_approval_count: 0,
      approvals: [{ status: 'approved', comment: 'Ship it', user: { username: 'alice' } }],
    });
    expect(
      (await refusal(() => client('maintainer').Deployments.setApproval(WEB, byRoot.id, 'approved'))).message,
    ).toBe('This deployment is not waiting for approvals.');
    await advance(20);
    const deployed = await client('reporter').Deployments.show(WEB, byRoot.id);
    expect(deployed).toMatchObject({ status: 'success', deployable: { name: 'deploy:production', status: 'success' } });
    const production = await client('reporter').Environments.show(WEB, deployed.environment.id);
    expect(production.last_deployment).toMatchObject({ id: byRoot.id, sha: head.commit.id });
    expect((await client('reporter').Deployments.show(WEB, own.id)).status).toBe('blocked');
  });

  it('stops a review app as a developer; production, protected, stays up', async () => {
    const api = client('developer');
    const [environment] = await api.Environments.all(WEB, { search: branch });
    expect(environment).toMatchObject({ name: `review/${branch}`, state: 'available' });
    const stopped = await api.Environments.stop(WEB, environment.id);
    expect(stopped).toMatchObject({ id: environment.id, state: 'stopped' });
    expect(await rest(`/projects/${project}/environments/${environment.id}`)).toMatchObject({ state: 'stopped' });
    expect((await api.Environments.all(WEB, { states: 'stopped' })).map((e) => e.name)).toEqual([environment.name]);
    const [production] = await api.Environments.all(WEB, { name: 'production' });
    expect((await refusal(() => api.Environments.stop(WEB, production.id))).status).toBe(403);
    expect(await rest(`/projects/${project}/environments/${production.id}`)).toMatchObject({ state: 'available' });
  });
});

describe('what gitbeaker reached', () => {
  it('called every operation outside the spec not named in its area as not yet driven, each answered with success', () => {
    const requests = [...sandbox.requests.all(), ...otherRequests];
    const outside = operations.filter((op) => op.outsideSpec !== undefined);
    expect(outside.length).toBeGreaterThan(30);
    expect(interopGaps(areas, 'gitbeaker', operations, requests)).toEqual([]);
  });

  it('sent no parameter the sandbox does not know', () => {
    const ignored = [...sandbox.requests.all(), ...otherRequests]
      .filter((r) => r.unknownParams.length > 0)
      .map((r) => `${r.method} ${r.path} ${r.unknownParams.join(', ')}`);
    expect(ignored).toEqual([]);
  });
});
