// Contract: revert_as_merge_request against the sandbox — the culprit of acme/web's red main reverted on its own branch
// with a merge request back, a second press that makes nothing, a conflicting revert that leaves no branch, a bad
// SHA refused before anything is made, and the front ends' path: facts read, input pinned, steps in the dry run.
import { afterAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../../src/http/client.js';
import { decideWithFacts } from '../../src/run/call.js';
import { dryRunCall } from '../../src/run/dry-run.js';
import { operations } from '../../src/operations/index.js';
import { InputError } from '../../src/operations/engine/validate.js';
import { WEB } from './builders.js';
import { contractSuite } from './harness.js';

const suite = contractSuite();
const NAME = 'revert_as_merge_request';
const explain = { operations };

type Commit = { id: string; title: string; parent_ids: string[] };
type MergeRequest = {
  iid: number;
  title: string;
  description: string;
  source_branch: string;
  target_branch: string;
  state: string;
  web_url: string;
};
type Reverted = {
  branch: string;
  target_branch: string;
  reverted: { id: string; title: string };
  revert_commit: { id: string; title: string };
  merge_request: { iid: number; title: string; web_url: string };
  web_url: string;
};

let client: HttpClient | undefined;
afterAll(() => client?.close());
/** The maintainer's client, for the front ends' path (facts read before the policy decides). */
function lookups() {
  client ??= new HttpClient({
    baseUrl: suite.sandbox.url,
    token: suite.sandbox.tokens.maintainer,
    retry: { maxRetries: 0 },
  });
  return { client };
}

/** What a front end decides for a revert of `sha` in acme/web on a writable connection, facts read first. */
function judgeRevert(sha: string) {
  return decideWithFacts(suite.operation(NAME), { id: WEB, sha }, { readOnly: false }, explain, lookups());
}

/** The dry run a front end shows for a revert of `sha` in acme/web on a writable connection. */
function previewRevert(sha: string) {
  return dryRunCall(suite.operation(NAME), { id: WEB, sha }, { readOnly: false }, explain, lookups());
}

async function commitTitled(title: string): Promise<Commit> {
  const commits = await suite.data<Commit[]>('list_commits', { id: WEB, ref_name: 'main', all_pages: true });
  const found = commits.find((c) => c.title === title);
  if (!found) throw new Error(`no commit "${title}" on main`);
  return found;
}

const mergeRequestsFrom = (branch: string) =>
  suite.data<MergeRequest[]>('list_project_merge_requests', { id: WEB, source_branch: branch, state: 'all' });
const branchesNamed = async (branch: string) =>
  (await suite.data<Array<{ name: string }>>('list_branches', { id: WEB, search: branch })).filter(
    (b) => b.name === branch,
  );
const VALIDATION_FAILED = '{"message":["Validation failed"]}';
/** The next `method` request to acme/web's `tail` (after /projects/:id) fails with `status` and `body`. */
function failWebRequest(method: string, tail: string, status: number, body?: string): void {
  const path = `/projects/${encodeURIComponent(WEB)}${tail}`;
  suite.sandbox.faults.add(body === undefined ? { method, path, status } : { method, path, status, body });
}
const writesSince = (before: number) =>
  suite
    .requests()
    .slice(before)
    .filter((r) => r.method !== 'GET')
    .map((r) => `${r.method} ${r.path}`);

describe.shuffle('revert-as-merge-request, in any order', () => {
  // A story, kept in order inside the shuffled file: a commit is reverted once, so pressing again and closing the merge
  // request are about the revert the first test made (the other tests revert other commits).
  describe('reverting the first red commit of acme/web as a merge request', { shuffle: false }, () => {
    const CULPRIT = "Show order dates in the store's time zone";
    let culprit: Commit;
    let made: Reverted;

    it('makes branch revert-<sha8> from main by one revert commit (one push, one pipeline), and a merge request to main', async () => {
      culprit = await commitTitled(CULPRIT);
      const [mainBefore] = await suite.data<Commit[]>('list_commits', { id: WEB, ref_name: 'main', per_page: 1 });
      const result = await suite.call(NAME, { id: WEB, sha: culprit.id.slice(0, 8) }, { as: 'developer' });
      expect(result.status).toBe(201);
      made = result.data as Reverted;
      const branch = `revert-${culprit.id.slice(0, 8)}`;
      expect(made).toMatchObject({
        branch,
        target_branch: 'main',
        reverted: { id: culprit.id, title: CULPRIT },
        revert_commit: { title: `Revert "${CULPRIT}"` },
      });

      // The branch's head is the revert, made on main's head; main itself has not moved.
      const [head] = await suite.data<Commit[]>('list_commits', { id: WEB, ref_name: branch, per_page: 1 });
      expect(head).toMatchObject({
        id: made.revert_commit.id,
        title: `Revert "${CULPRIT}"`,
        parent_ids: [mainBefore.id],
      });
      const [mainAfter] = await suite.data<Commit[]>('list_commits', { id: WEB, ref_name: 'main', per_page: 1 });
      expect(mainAfter.id).toBe(mainBefore.id);
      // One push made the branch and its commit: one pipeline, at the revert (none at main's old red head).
      const onBranch = await suite.data<Array<{ sha: string }>>('list_pipelines', { id: WEB, ref: branch });
      expect(onBranch.map((p) => p.sha)).toEqual([made.revert_commit.id]);
      // The file is back to what it was before the culprit (as at v1.1.0, which it followed), and its new test is gone.
      const file = async (ref: string) =>
        String(await suite.data<Buffer>('get_file_raw', { id: WEB, file_path: 'src/utils/format date.ts', ref }));
      expect(await file(branch)).toBe(await file('v1.1.0'));
      expect(await file(branch)).not.toBe(await file('main'));
      expect(
        (await suite.refusal('get_file_raw', { id: WEB, file_path: 'src/utils/date.test.ts', ref: branch })).status,
      ).toBe(404);

      // The merge request: titled like the service's own revert, describing the red pipeline, the job and its error lines.
      const [mr] = await mergeRequestsFrom(branch);
      expect(mr).toMatchObject({
        iid: made.merge_request.iid,
        source_branch: branch,
        target_branch: 'main',
        state: 'opened',
        title: `Revert "${CULPRIT}"`,
      });
      expect(made.web_url).toBe(mr.web_url);
      const pipelines = await suite.data<Array<{ id: number; sha: string; status: string }>>('list_pipelines', {
        id: WEB,
        ref: 'main',
      });
      const redHead = pipelines.find((p) => p.sha === mainBefore.id && p.status === 'failed')!;
      expect(mr.description).toContain(
        `Reverts ${culprit.id.slice(0, 8)} "${CULPRIT}" by Bob Chen, the first red commit of main.`,
      );
      expect(mr.description).toContain(`main of acme/web is red: pipeline \`#${redHead.id}\` failed`);
      expect(mr.description).toMatch(/^Judged broken: test failed on \d+ of \d+ runs since [0-9a-f]{8}\.$/m);
      expect(mr.description).toMatch(/Failed job test \(`#\d+`\) in step_script/);
      expect(mr.description).toContain('Received: "2024-03-09"');
      expect(mr.description.trimEnd().endsWith(`This reverts commit ${culprit.id}.`)).toBe(true);

      // Its outcome names the merge request, the branch and the link.
      const { outcomeSentence } = await import('../../src/operations/engine/outcome.js');
      expect(outcomeSentence(suite.operation(NAME), { id: WEB, sha: culprit.id }, made)).toEqual({
        text: `Opened merge request !${mr.iid} "Revert "${CULPRIT}"" from ${branch} into main of ${WEB}, reverting ${culprit.id.slice(0, 8)} in ${made.revert_commit.id.slice(0, 8)}`,
        link: mr.web_url,
      });
    });

    it('pressed again, names the open merge request and makes nothing, before deciding and when run', async () => {
      const branch = made.branch;
      const before = suite.requests().length;
      // The front ends' path: refused by the facts read before anyone is asked, with reads only.
      const judged = await judgeRevert(culprit.id.slice(0, 8));
      expect(judged.kind).toBe('refused');
      expect(judged.kind === 'refused' && judged.message).toContain(
        `merge request !${made.merge_request.iid} "Revert "${CULPRIT}"" (${made.web_url}) from ${branch} is already open`,
      );
      // Run directly as well (a second replica, a stale button): the same words, nothing made.
      const again = await suite.refusal(NAME, { id: WEB, sha: culprit.id }, 'developer');
      expect(again.message).toContain(`merge request !${made.merge_request.iid}`);
      expect(again.message).toContain('no other branch or merge request was made');
      expect(writesSince(before)).toEqual([]);
      expect(await mergeRequestsFrom(branch)).toHaveLength(1);
      expect(await branchesNamed(branch)).toHaveLength(1);
    });

    it('with the merge request closed but the branch still there, names the branch and makes nothing', async () => {
      await suite.call('update_merge_request', {
        id: WEB,
        merge_request_iid: made.merge_request.iid,
        state_event: 'close',
      });
      const before = suite.requests().length;
      const again = await suite.refusal(NAME, { id: WEB, sha: culprit.id });
      expect(again.message).toMatch(
        new RegExp(
          `branch ${made.branch} already exists \\(at ${made.revert_commit.id.slice(0, 8)}\\); its merge request !${made.merge_request.iid} .* is closed; nothing was made`,
        ),
      );
      expect(writesSince(before)).toEqual([]);
    });
  });

  it('a commit titled by a stranger with @all, <!channel>, ESC, BEL and a right-to-left override: the merge request in the service holds them quoted', async () => {
    const hostile = 'Tidy @all <!channel> \u001b[31m\u0007 \u202esseccus\u202c by @bob';
    const target = 'hostile-title-target';
    const made = await suite.data<Commit>(
      'create_commit',
      {
        id: WEB,
        branch: target,
        start_branch: 'main',
        commit_message: hostile,
        author_name: 'Eve @all \u0007',
        actions: [{ action: 'create', file_path: 'notes/hostile-title.md', content: 'x\n' }],
      },
      'developer',
    );
    const result = await suite.call(NAME, { id: WEB, sha: made.id, target_branch: target }, { as: 'developer' });
    expect(result.status).toBe(201);
    const [mr] = await mergeRequestsFrom(`revert-${made.id.slice(0, 8)}`);
    for (const text of [mr.title, mr.description]) {
      // No mention the service would notify, no raw Slack broadcast or markup, no hidden character.
      expect(text).not.toMatch(/(^|[^`])@(all|bob)\b/);
      expect(text).not.toContain('<!channel>');
      expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
      expect(text).toContain('`@all`');
      expect(text).toContain('\\u202esseccus\\u202c');
    }
    expect(mr.description).toContain('by Eve `@all`');
  });

  it('a culprit whose title closes an issue: the branch holds one revert commit, its message quoted, every change undone', async () => {
    const target = suite.freshName('closing-target');
    const base = await suite.data<Commit>('create_commit', {
      id: WEB,
      branch: target,
      start_branch: 'main',
      commit_message: 'Add the scripts',
      actions: [
        { action: 'create', file_path: 'copy/run.sh', content: 'echo run\n' },
        {
          action: 'create',
          file_path: 'copy/logo.bin',
          content: Buffer.from([0, 1, 2, 255]).toString('base64'),
          encoding: 'base64',
        },
        { action: 'create', file_path: 'copy/gone.txt', content: 'stays\n' },
        { action: 'create', file_path: 'copy/mode.sh', content: 'echo mode\n' },
      ],
    });
    const culprit = await suite.data<Commit>('create_commit', {
      id: WEB,
      branch: target,
      commit_message: 'Closes #5: tidy the scripts, see !2',
      actions: [
        { action: 'move', previous_path: 'copy/run.sh', file_path: 'copy/start.sh', content: 'echo start\n' },
        {
          action: 'update',
          file_path: 'copy/logo.bin',
          content: Buffer.from([9, 8, 7]).toString('base64'),
          encoding: 'base64',
        },
        { action: 'chmod', file_path: 'copy/logo.bin', execute_filemode: true },
        { action: 'chmod', file_path: 'copy/mode.sh', execute_filemode: true },
        { action: 'delete', file_path: 'copy/gone.txt' },
        { action: 'create', file_path: 'copy/new.txt', content: 'new\n' },
      ],
    });
    const made = (await suite.call(NAME, { id: WEB, sha: culprit.id, target_branch: target })).data as Reverted;
    const [head] = await suite.data<Array<Commit & { message: string }>>('list_commits', {
      id: WEB,
      ref_name: made.branch,
      per_page: 1,
    });
    expect(made.revert_commit.id).toBe(head.id);
    expect(head.parent_ids).toEqual([culprit.id]);
    expect(head.message).toBe(
      `Revert "Closes \`#5\`: tidy the scripts, see \`!2\`"\n\nThis reverts commit ${culprit.id}`,
    );
    expect(made.revert_commit.title).toBe('Revert "Closes `#5`: tidy the scripts, see `!2`"');
    // Every blob and mode as before the culprit: moves, binaries, modes, deletions and creations undone.
    const tree = async (ref: string) =>
      (
        await suite.data<Array<{ path: string; id: string; mode: string }>>('list_repository_tree', {
          id: WEB,
          ref,
          path: 'copy',
          recursive: true,
          all_pages: true,
        })
      )
        .map((entry) => `${entry.mode} ${entry.id} ${entry.path}`)
        .sort();
    const before = await tree(base.id);
    expect(before).toHaveLength(4);
    expect(before).toContainEqual(expect.stringMatching(/^100644 [0-9a-f]{40} copy\/mode\.sh$/));
    expect(await tree(made.branch)).toEqual(before);
  });

  it("a culprit's file changed since by a later commit: the service's revert merges it, its message quoted", async () => {
    const target = suite.freshName('merging-target');
    const lines = (first: string, last: string) => `${first}\nb\nc\nd\ne\nf\ng\nh\ni\n${last}\n`;
    await suite.data<Commit>('create_commit', {
      id: WEB,
      branch: target,
      start_branch: 'main',
      commit_message: 'Add the list',
      actions: [{ action: 'create', file_path: 'merge/list.txt', content: lines('a', 'j') }],
    });
    const culprit = await suite.data<Commit>('create_commit', {
      id: WEB,
      branch: target,
      commit_message: 'Closes #7: first line',
      actions: [{ action: 'update', file_path: 'merge/list.txt', content: lines('A', 'j') }],
    });
    await suite.data<Commit>('create_commit', {
      id: WEB,
      branch: target,
      commit_message: 'Last line',
      actions: [{ action: 'update', file_path: 'merge/list.txt', content: lines('A', 'J') }],
    });
    const made = (await suite.call(NAME, { id: WEB, sha: culprit.id, target_branch: target })).data as Reverted;
    const [head] = await suite.data<Array<Commit & { message: string }>>('list_commits', {
      id: WEB,
      ref_name: made.branch,
      per_page: 1,
    });
    expect(head.message).toBe(`Revert "Closes \`#7\`: first line"\n\nThis reverts commit ${culprit.id}`);
    const file = String(
      await suite.data<Buffer>('get_file_raw', { id: WEB, file_path: 'merge/list.txt', ref: made.branch }),
    );
    // The culprit's line undone, the later commit's kept: a merge, not the file as before the culprit.
    expect(file).toBe(lines('a', 'J'));
    const [mr] = await mergeRequestsFrom(made.branch);
    expect(mr.title).toBe('Revert "Closes `#7`: first line"');
  });

  describe('a revert that cannot be made', () => {
    it('a conflicting revert deletes the branch it made, says so, and opens no merge request', async () => {
      // The helper's file was changed by a later commit on main: reverting its creation conflicts.
      const helper = await commitTitled('Add date formatting helper and getting started guide');
      const branch = `revert-${helper.id.slice(0, 8)}`;
      const error = await suite.refusal(NAME, { id: WEB, sha: helper.id });
      expect(error.errorCode).toBe('conflict');
      expect(error.message).toContain(
        `the revert of ${helper.id.slice(0, 8)} failed and the branch ${branch} it had made was deleted again, so nothing is left`,
      );
      expect(await branchesNamed(branch)).toEqual([]);
      expect(await mergeRequestsFrom(branch)).toEqual([]);
    });

    it('a merge request the service refuses deletes the branch and its revert again, and says so', async () => {
      const docs = await commitTitled('Document the deploy steps [ci skip]');
      const branch = `revert-${docs.id.slice(0, 8)}`;
      failWebRequest('POST', '/merge_requests', 422, VALIDATION_FAILED);
      const refused = await suite.refusal(NAME, { id: WEB, sha: docs.id });
      expect(refused.message).toContain(
        `opening the merge request failed and the branch ${branch} it had made was deleted again, so nothing is left`,
      );
      expect(await branchesNamed(branch)).toEqual([]);

      // Its answer lost (a 502): none was made, so the branch goes too and the outcome is known — nothing.
      failWebRequest('POST', '/merge_requests', 502);
      const lost = await suite.refusal(NAME, { id: WEB, sha: docs.id });
      expect(lost.kind).toBe('refused');
      expect(lost.message).toMatch(
        new RegExp(
          `opening the merge request failed: 502 .*; the branch ${branch} it had made was deleted again, so nothing is left`,
        ),
      );
      expect(await branchesNamed(branch)).toEqual([]);
      expect(await mergeRequestsFrom(branch)).toEqual([]);
    });

    it('says exactly what is left when the branch cannot be deleted either', async () => {
      const docs = await commitTitled('Document the deploy steps [ci skip]');
      const branch = `revert-${docs.id.slice(0, 8)}`;
      failWebRequest('POST', '/merge_requests', 422, VALIDATION_FAILED);
      failWebRequest('DELETE', `/repository/branches/${branch}`, 500);
      const refused = await suite.refusal(NAME, { id: WEB, sha: docs.id });
      expect(refused.message).toMatch(
        new RegExp(
          `the branch ${branch} it made is left \\(deleting it failed: 500 .*\\); delete it with branch delete`,
        ),
      );
      expect(await branchesNamed(branch)).toHaveLength(1);
      // A second press names that branch instead of making another.
      expect((await suite.refusal(NAME, { id: WEB, sha: docs.id })).message).toContain(
        `branch ${branch} already exists`,
      );
      await suite.call('delete_branch', { id: WEB, branch });
    });

    it('a branch whose creation went unanswered is removed again, or found gone, and the outcome said', async () => {
      const docs = await commitTitled('Document the deploy steps [ci skip]');
      const branch = `revert-${docs.id.slice(0, 8)}`;
      // The branch is made by the revert commit itself (one push).
      failWebRequest('POST', '/repository/commits', 504);
      const lost = await suite.refusal(NAME, { id: WEB, sha: docs.id });
      expect(lost.kind).toBe('refused');
      expect(lost.message).toMatch(
        new RegExp(
          `creating branch ${branch} failed: 504 .*; the branch ${branch} is gone already, so nothing is left`,
        ),
      );
      expect(await branchesNamed(branch)).toEqual([]);
    });

    it('an unknown commit is refused before anything is made; a SHA that is not hex before anything is sent', async () => {
      const before = suite.requests().length;
      const missing = await suite.refusal(NAME, { id: WEB, sha: 'deadbeef' });
      expect(missing.message).toMatch(/no commit deadbeef in acme\/web \(404 .*\); nothing was made/);
      expect(writesSince(before)).toEqual([]);
      expect(await branchesNamed('revert-deadbeef')).toEqual([]);
      // The front ends' path refuses it the same way, before the policy is asked.
      const judged = await judgeRevert('deadbeef');
      expect(judged.kind === 'refused' && judged.message).toMatch(/no commit deadbeef in acme\/web .*nothing was sent/);
      // A project that is not there is the service's own 404, not a missing commit.
      const noProject = await suite.refusal(NAME, { id: 'acme/nope', sha: 'deadbeef', target_branch: 'main' });
      expect(noProject.status).toBe(404);
      expect(noProject.message).toBe('404 Project Not Found');
      const sent = suite.requests().length;
      await expect(suite.call(NAME, { id: WEB, sha: 'main~1' })).rejects.toBeInstanceOf(InputError);
      expect(suite.requests().length).toBe(sent);
    });
  });

  describe('what the front ends decide and show', () => {
    it('runs at once with the commit in full and the default branch pinned, and its dry run names the branch, the SHA and the target', async () => {
      const latest = await commitTitled('Show 50 search results per page');
      const judged = await judgeRevert(latest.id.slice(0, 8));
      expect(judged).toMatchObject({ kind: 'run', input: { id: WEB, sha: latest.id, target_branch: 'main' } });
      const before = suite.requests().length;
      const preview = await previewRevert(latest.id.slice(0, 8));
      expect(preview.kind).toBe('preview');
      if (preview.kind !== 'preview') return;
      const branch = `revert-${latest.id.slice(0, 8)}`;
      expect(preview.preview.steps).toEqual([
        `create branch ${branch} from main with one commit reverting ${latest.id}`,
        `open a merge request ${branch} → main`,
      ]);
      expect(preview.preview.needs_confirmation).toBe(false);
      expect(writesSince(before)).toEqual([]);
      expect(await branchesNamed(branch)).toEqual([]);
    });
  });
});
