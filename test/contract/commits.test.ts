// Contract: every commits operation against the sandbox — listing with filters, multi-action commits, a forced
// commit, cherry-pick and revert with their error codes, refs, diffs, comments, permissions and bad input.
import { describe, expect, it } from 'vitest';
import { HttpClient } from '../../src/http/client.js';
import { ApiError } from '../../src/http/errors.js';
import { executeCall } from '../../src/run/call.js';
import { operations } from '../../src/operations/index.js';
import { WEB, PAYMENTS } from './builders.js';
import { contractSuite, type Role } from './harness.js';

const suite = contractSuite('commits');
const FEATURE = 'feature/dark-mode';

type Commit = {
  id: string;
  short_id: string;
  title: string;
  message: string;
  parent_ids: string[];
  authored_date?: string;
  committed_date: string;
  stats?: { additions: number; deletions: number; total: number };
  last_pipeline?: { id: number; ref: string; sha: string; status: string } | null;
};
type Diff = {
  old_path: string;
  new_path: string;
  a_mode: string | null;
  b_mode: string;
  diff: string;
  new_file: boolean;
  renamed_file: boolean;
  deleted_file: boolean;
};

/** A commit on `branch` (created from main when new) that writes one file. */
async function commitFile(
  branch: string,
  filePath: string,
  content: string,
  message: string,
  startBranch?: string,
): Promise<Commit> {
  const result = await suite.call(
    'create_commit',
    {
      id: WEB,
      branch,
      commit_message: message,
      ...(startBranch ? { start_branch: startBranch } : {}),
      actions: [{ action: 'update', file_path: filePath, content }],
    },
    { as: 'developer' },
  );
  return result.data as Commit;
}

/** A new branch `branch` from main whose one commit sets acme/web's package.json to `version`. */
const bumpVersionFromMain = (branch: string, version: string) =>
  commitFile(
    branch,
    'package.json',
    `{ "name": "@acme/web", "version": "${version}" }\n`,
    `Bump to ${version}`,
    'main',
  );

/** The feature branch's first commit, which adds src/theme/dark.ts. */
async function darkModeToggle(): Promise<Commit> {
  const [toggle] = (await suite.call('list_commits', { id: WEB, ref_name: FEATURE, path: 'src/theme' }))
    .data as Commit[];
  return toggle;
}

/** A cherry-pick or revert of acme/web's commit `sha` onto `branch`, made as `as`. */
const pick = (name: 'cherry_pick_commit' | 'revert_commit', sha: string, branch: string, as: Role) =>
  suite.call(name, { id: WEB, sha, branch }, { as });

async function pickError(name: 'cherry_pick_commit' | 'revert_commit', sha: string, branch: string): Promise<ApiError> {
  const error = await pick(name, sha, branch, 'maintainer').catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe.shuffle('commits, in any order', () => {
  describe('list_commits', () => {
    it('lists the default branch newest first, paged', async () => {
      const result = await suite.call('list_commits', { id: WEB, per_page: 3 });
      const commits = result.data as Commit[];
      expect(commits).toHaveLength(3);
      for (const commit of commits) {
        expect(commit).toEqual(
          expect.objectContaining({
            id: expect.stringMatching(/^[0-9a-f]{40}$/),
            short_id: expect.any(String),
            title: expect.any(String),
            message: expect.any(String),
            author_name: expect.any(String),
            committer_email: expect.any(String),
            committed_date: expect.any(String),
            parent_ids: expect.any(Array),
          }),
        );
      }
      const times = commits.map((c) => Date.parse(c.committed_date));
      expect(times).toEqual([...times].sort((a, b) => b - a));
      expect(result.page).toMatchObject({ per_page: 3, next_page: 2, has_more: true });
    });

    it('filters by ref, path, time window and adds stats', async () => {
      const feature = (await suite.call('list_commits', { id: WEB, ref_name: `main..${FEATURE}`, with_stats: true }))
        .data as Commit[];
      expect(feature.map((c) => c.title)).toEqual(['Wire dark mode into the header', 'Add dark mode toggle']);
      for (const commit of feature)
        expect(commit.stats).toEqual(
          expect.objectContaining({ additions: expect.any(Number), total: expect.any(Number) }),
        );

      const theme = (await suite.call('list_commits', { id: WEB, ref_name: FEATURE, path: 'src/theme' }))
        .data as Commit[];
      expect(theme.map((c) => c.title)).toEqual(['Add dark mode toggle']);

      const all = (await suite.call('list_commits', { id: WEB, all: true, all_pages: true })).data as Commit[];
      const mainOnly = (await suite.call('list_commits', { id: WEB, all_pages: true })).data as Commit[];
      expect(all.length).toBeGreaterThan(mainOnly.length);

      // A commit in the middle, so that leaving out since (older commits) or until (newer ones) shows.
      const middle = mainOnly[Math.floor(mainOnly.length / 2)];
      expect(
        mainOnly.at(0)!.committed_date > middle.committed_date &&
          middle.committed_date > mainOnly.at(-1)!.committed_date,
      ).toBe(true);
      const windowed = (
        await suite.call('list_commits', {
          id: WEB,
          since: middle.committed_date,
          until: middle.committed_date,
        })
      ).data as Commit[];
      expect(windowed.map((c) => c.id)).toEqual([middle.id]);
    });
  });

  describe('list_commits through a merge', () => {
    // main merged feature/search, whose two commits are dated between main's own: by date they interleave.
    async function mergeOnMain(): Promise<{ merge: Commit; featureIds: string[] }> {
      const commits = (await suite.call('list_commits', { id: WEB, all_pages: true })).data as Commit[];
      const merges = commits.filter((c) => c.parent_ids.length === 2);
      expect(merges.map((c) => c.title)).toEqual(["Merge branch 'feature/search' into 'main'"]);
      const [mainSide, featureSide] = merges[0].parent_ids;
      const feature = (await suite.call('list_commits', { id: WEB, ref_name: `${mainSide}..${featureSide}` }))
        .data as Commit[];
      expect(feature.map((c) => c.title)).toEqual(['Add the search results page', 'Add product search']);
      return { merge: merges[0], featureIds: feature.map((c) => c.id) };
    }

    it("leaves out the merged branch's commits with first_parent", async () => {
      const { featureIds } = await mergeOnMain();
      const everything = ((await suite.call('list_commits', { id: WEB, all_pages: true })).data as Commit[]).map(
        (c) => c.id,
      );
      const firstParent = (
        (await suite.call('list_commits', { id: WEB, all_pages: true, first_parent: true })).data as Commit[]
      ).map((c) => c.id);
      expect(everything).toEqual(expect.arrayContaining(featureIds));
      expect(firstParent).toEqual(everything.filter((id) => !featureIds.includes(id)));
    });

    it('keeps each line of history together with order "topo"', async () => {
      const { merge, featureIds } = await mergeOnMain();
      const byDate = ((await suite.call('list_commits', { id: WEB, all_pages: true })).data as Commit[]).map(
        (c) => c.id,
      );
      const topo = (
        (await suite.call('list_commits', { id: WEB, all_pages: true, order: 'topo' })).data as Commit[]
      ).map((c) => c.id);
      expect([...topo].sort()).toEqual([...byDate].sort());
      const gap = (ids: string[]) => Math.abs(ids.indexOf(featureIds[0]) - ids.indexOf(featureIds[1]));
      // By date a main commit falls between the two feature commits; topologically they are next to each other.
      expect(gap(byDate)).toBeGreaterThan(1);
      expect(gap(topo)).toBe(1);
      // Either way no commit comes before the merge that brought it in.
      expect(topo.indexOf(merge.id)).toBeLessThan(Math.min(...featureIds.map((id) => topo.indexOf(id))));
    });
  });

  describe('commit list status', () => {
    it('gives each listed commit the status of its last pipeline, or null', async () => {
      const commits = (await suite.call('list_commits', { id: WEB, per_page: 100 })).data as Array<
        Commit & { status: string | null }
      >;
      for (const commit of commits) expect(commit).toHaveProperty('status');
      const release = commits.find((c) => c.title === 'Release 1.0.0')!;
      expect(release.status).toBe('success');
      expect(commits.some((c) => c.status === null)).toBe(true);
    });
  });

  describe('get_commit, refs and diff', () => {
    it('reads a commit by tag with stats and its last pipeline', async () => {
      const result = await suite.call('get_commit', { id: WEB, sha: 'v1.0.0' });
      const commit = result.data as Commit;
      expect(commit.title).toBe('Release 1.0.0');
      expect(commit.stats).toEqual(
        expect.objectContaining({ additions: expect.any(Number), deletions: expect.any(Number) }),
      );
      expect(commit.last_pipeline).toMatchObject({ sha: commit.id, status: 'success' });
      const bare = (await suite.call('get_commit', { id: WEB, sha: commit.id, stats: false })).data as Commit;
      expect(bare).not.toHaveProperty('stats');
    });

    it('lists the branches and tags containing a commit', async () => {
      const refs = (await suite.call('list_commit_refs', { id: WEB, sha: 'v1.0.0' })).data as Array<{
        type: string;
        name: string;
      }>;
      expect(refs).toContainEqual({ type: 'branch', name: 'main' });
      expect(refs).toContainEqual({ type: 'tag', name: 'v1.1.0' });
      const tags = (await suite.call('list_commit_refs', { id: WEB, sha: 'v1.0.0', type: 'tag' })).data as Array<{
        type: string;
      }>;
      expect(tags.length).toBeGreaterThan(0);
      expect(tags.every((ref) => ref.type === 'tag')).toBe(true);
    });

    it('shows the diff of a commit', async () => {
      const toggle = await darkModeToggle();
      const diffs = (await suite.call('get_commit_diff', { id: WEB, sha: toggle.id })).data as Diff[];
      expect(diffs).toEqual([
        expect.objectContaining({ new_path: 'src/theme/dark.ts', new_file: true, deleted_file: false, a_mode: null }),
      ]);
      expect(diffs[0].diff).toContain('+export const dark');
      expect(suite.requests().at(-1)?.path).toBe(`/projects/acme%2Fweb/repository/commits/${toggle.id}/diff`);
      // A branch name is a valid :sha too, and is encoded as one path segment.
      const tip = await suite.call('get_commit_diff', { id: WEB, sha: FEATURE });
      expect((tip.data as Diff[]).length).toBeGreaterThan(0);
      expect(suite.requests().at(-1)?.path).toBe('/projects/acme%2Fweb/repository/commits/feature%2Fdark-mode/diff');
    });
  });

  describe('create_commit', () => {
    it('makes one commit out of several actions', async () => {
      const before = (await suite.call('get_commit', { id: WEB, sha: 'main' })).data as Commit;
      const input = {
        id: WEB,
        branch: 'main',
        commit_message: 'Reorganise docs\n\nSeveral files at once.',
        author_name: 'Docs Bot',
        author_email: 'docs@acme.example',
        actions: [
          { action: 'create', file_path: 'docs/intro.md', content: '# Intro\n' },
          {
            action: 'create',
            file_path: 'scripts/check.sh',
            content: Buffer.from('#!/bin/sh\nexit 0\n').toString('base64'),
            encoding: 'base64',
          },
          { action: 'update', file_path: 'README.md', content: '# acme/web\n\nSee docs/.\n' },
          { action: 'move', file_path: 'docs/license.txt', previous_path: '.gitignore' },
          { action: 'chmod', file_path: 'scripts/check.sh', execute_filemode: true },
          { action: 'delete', file_path: 'CHANGELOG.md' },
        ],
      };
      // Moving and deleting files takes them off the branch: a human approves that (test/safety has the rest).
      expect(suite.operation('create_commit').needsApproval?.(input)).toBe(
        'Asks you because it moves ".gitignore" to "docs/license.txt", deletes "CHANGELOG.md" (the history keeps the old files).',
      );
      const result = await suite.call('create_commit', input, { as: 'maintainer' });
      expect(result.status).toBe(201);
      const commit = result.data as Commit;
      expect(commit).toMatchObject({
        title: 'Reorganise docs',
        parent_ids: [before.id],
        author_name: 'Docs Bot',
        author_email: 'docs@acme.example',
      });
      expect(commit.stats?.total).toBeGreaterThan(0);

      const diffs = (await suite.call('get_commit_diff', { id: WEB, sha: commit.id })).data as Diff[];
      const byPath = new Map(diffs.map((d) => [d.new_path, d]));
      expect(byPath.get('docs/intro.md')).toMatchObject({ new_file: true });
      expect(byPath.get('scripts/check.sh')).toMatchObject({ new_file: true, b_mode: '100755' });
      expect(byPath.get('docs/license.txt')).toMatchObject({ renamed_file: true, old_path: '.gitignore' });
      expect(byPath.get('CHANGELOG.md')).toMatchObject({ deleted_file: true });
      expect(byPath.get('README.md')?.diff).toContain('+See docs/.');
    });

    it('forces a branch onto a new commit based on start_branch, after an approval sentence', async () => {
      const main = (await suite.call('get_commit', { id: WEB, sha: 'main' })).data as Commit;
      const stray = await commitFile('hotfix', 'README.md', 'stray change\n', 'Stray commit', 'main');
      expect(stray.parent_ids).toEqual([main.id]);

      const input = {
        id: WEB,
        branch: 'hotfix',
        start_branch: 'main',
        force: true,
        commit_message: 'Hotfix from a clean main',
        actions: [{ action: 'create', file_path: 'hotfix.txt', content: 'fixed\n' }],
      };
      const sentence = suite.operation('create_commit').needsApproval?.(input);
      expect(sentence).toContain('"hotfix"');
      expect(sentence).toContain('main');
      const forced = (await suite.call('create_commit', input, { as: 'developer' })).data as Commit;
      expect(forced.parent_ids).toEqual([main.id]);
      const history = (await suite.call('list_commits', { id: WEB, ref_name: 'hotfix', per_page: 100 }))
        .data as Commit[];
      expect(history.map((c) => c.id)).not.toContain(stray.id);
      expect(history[0].id).toBe(forced.id);
    });

    it('starts a new branch from start_sha, and leaves out stats when asked', async () => {
      const tag = (await suite.call('get_commit', { id: WEB, sha: 'v1.0.0' })).data as Commit;
      const result = await suite.call(
        'create_commit',
        {
          id: WEB,
          branch: 'from-v1',
          start_sha: tag.id,
          stats: false,
          commit_message: 'Patch on top of 1.0.0',
          actions: [{ action: 'create', file_path: 'PATCH.md', content: 'patched\n' }],
        },
        { as: 'developer' },
      );
      const commit = result.data as Commit;
      expect(commit.parent_ids).toEqual([tag.id]);
      expect(commit).not.toHaveProperty('stats');
    });

    it('starts a new branch from another project with start_project', async () => {
      // bob owns bob/scratchpad, so he can read it and write to acme/web.
      const theirs = (await suite.call('get_commit', { id: 'bob/scratchpad', sha: 'main' }, { as: 'developer' }))
        .data as Commit;
      const ours = (await suite.call('get_commit', { id: WEB, sha: 'main' })).data as Commit;
      expect(theirs.id).not.toBe(ours.id);
      const result = await suite.call(
        'create_commit',
        {
          id: WEB,
          branch: 'from-scratchpad',
          start_project: 'bob/scratchpad',
          start_branch: 'main',
          commit_message: 'Bring over the scratchpad',
          actions: [{ action: 'create', file_path: 'FROM_SCRATCHPAD.md', content: 'hello\n' }],
        },
        { as: 'developer' },
      );
      expect((result.data as Commit).parent_ids).toEqual([theirs.id]);
    });

    it('makes an empty commit from no actions, as the service does (the usual way to run CI again on a branch)', async () => {
      const before = (await suite.call('get_commit', { id: WEB, sha: 'main' })).data as Commit;
      const input = { id: WEB, branch: 'main', commit_message: 'Trigger CI', actions: [] };
      expect(suite.operation('create_commit').needsApproval?.(input)).toBeUndefined();
      const commit = (await suite.call('create_commit', input, { as: 'maintainer' })).data as Commit;
      expect(commit).toMatchObject({ title: 'Trigger CI', parent_ids: [before.id] });
      expect(commit.stats).toMatchObject({ additions: 0, deletions: 0, total: 0 });
      expect((await suite.call('get_commit_diff', { id: WEB, sha: commit.id })).data).toEqual([]);
    });

    it("passes on the service's refusal of an action on a missing file", async () => {
      const error = await suite
        .call(
          'create_commit',
          {
            id: WEB,
            branch: 'main',
            commit_message: 'x',
            actions: [{ action: 'delete', file_path: 'no/such/file' }],
          },
          { as: 'maintainer' },
        )
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(400);
      expect((error as ApiError).serviceMessage.length).toBeGreaterThan(0);
    });
  });

  describe('cherry_pick_commit and revert_commit', () => {
    it('cherry-picks a feature commit onto main, then reports error_code "empty" the second time', async () => {
      const toggle = await darkModeToggle();
      const result = await pick('cherry_pick_commit', toggle.id, 'main', 'maintainer');
      expect(result.status).toBe(201);
      const picked = result.data as Commit;
      expect(picked.title).toBe(toggle.title);
      expect(picked.id).not.toBe(toggle.id);

      const again = await pickError('cherry_pick_commit', toggle.id, 'main');
      expect(again.errorCode).toBe('empty');
      expect(again.serviceMessage.length).toBeGreaterThan(0);
    });

    it('reports error_code "conflict" when a cherry-pick does not apply', async () => {
      const ours = await commitFile('pick-ours', 'src/styles/main.css', 'body { color: red; }\n', 'Red text', 'main');
      const theirs = await commitFile(
        'pick-theirs',
        'src/styles/main.css',
        'body { color: blue; }\n',
        'Blue text',
        'main',
      );
      expect(ours.id).not.toBe(theirs.id);
      const error = await pickError('cherry_pick_commit', theirs.id, 'pick-ours');
      expect(error.errorCode).toBe('conflict');
    });

    it('reverts a commit, then reports error_code "empty" when it is already reverted', async () => {
      const change = await bumpVersionFromMain('revert-me', '9.9.9');
      const result = await pick('revert_commit', change.id, 'revert-me', 'developer');
      expect(result.status).toBe(201);
      const revert = result.data as Commit;
      expect(revert.parent_ids).toEqual([change.id]);
      expect(revert.message).toContain(change.id);

      const again = await pickError('revert_commit', change.id, 'revert-me');
      expect(again.errorCode).toBe('empty');
    });

    it('says that a direct revert started a pipeline on the branch, with its id', async () => {
      const change = await bumpVersionFromMain('revert-with-pipeline', '8.8.8');
      // Through the path every front end takes: the branch's pipeline for the new commit is read right after.
      const client = new HttpClient({ baseUrl: suite.sandbox.url, token: suite.sandbox.tokens.developer });
      const input = { id: WEB, sha: change.id, branch: 'revert-with-pipeline' };
      const reverted = await executeCall(suite.operation('revert_commit'), input, { client }, { operations }).finally(
        () => client.close(),
      );
      if (!reverted.ok) throw new Error(reverted.message);
      const revert = reverted.result.data as Commit & { started_pipeline: { id: number; ref: string } };
      const [pipeline] = (await suite.call('list_pipelines', { id: WEB, ref: 'revert-with-pipeline', sha: revert.id }))
        .data as Array<{ id: number }>;
      expect(pipeline).toBeDefined();
      expect(revert.started_pipeline).toMatchObject({ id: pipeline.id, ref: 'revert-with-pipeline' });
      expect(reverted.outcome?.text).toMatch(new RegExp(`; pipeline #${pipeline.id} started on revert-with-pipeline$`));
      const shown = suite.operation('revert_commit').present!(revert, input);
      expect(shown.fields).toContainEqual([
        'pipeline',
        expect.stringMatching(new RegExp(`^#${pipeline.id} started on revert-with-pipeline: `)),
      ]);
    });

    it('reports error_code "conflict" when later changes are in the way of a revert', async () => {
      const first = await commitFile(
        'revert-conflict',
        'src/index.ts',
        'export const version = 1;\n',
        'Version 1',
        'main',
      );
      await commitFile('revert-conflict', 'src/index.ts', 'export const version = 2;\n', 'Version 2');
      const error = await pickError('revert_commit', first.id, 'revert-conflict');
      expect(error.errorCode).toBe('conflict');
    });
  });

  describe('commit comments', () => {
    it('comments on a line with the full SHA, on the whole commit with a branch name, and lists both', async () => {
      const commit = (await suite.call('get_commit', { id: WEB, sha: 'v1.0.0' })).data as Commit;
      const onLine = await suite.call(
        'create_commit_comment',
        {
          id: WEB,
          sha: commit.id,
          note: 'Is this version right?',
          path: 'package.json',
          line: 3,
          line_type: 'new',
        },
        { as: 'reporter' },
      );
      expect(onLine.status).toBe(201);
      expect(onLine.data).toMatchObject({
        note: 'Is this version right?',
        path: 'package.json',
        line: 3,
        line_type: 'new',
        author: expect.objectContaining({ username: 'carol' }),
      });

      const onTag = await suite.call(
        'create_commit_comment',
        { id: WEB, sha: 'v1.0.0', note: 'Shipped.', path: 'package.json', line: 3 },
        { as: 'reporter' },
      );
      expect(onTag.data).toMatchObject({ note: 'Shipped.', path: null, line: null, line_type: null });

      const listed = (await suite.call('list_commit_comments', { id: WEB, sha: commit.id })).data as Array<{
        note: string;
      }>;
      expect(listed.map((c) => c.note)).toEqual(['Is this version right?', 'Shipped.']);
      // What the description promises of every listed comment: the note and its author.
      for (const comment of listed)
        expect(comment).toMatchObject({
          note: expect.any(String),
          author: expect.objectContaining({ username: 'carol' }),
        });
    });

    it('refuses line_type "old", a value the spec does not list, in forgeops and in the sandbox alike', async () => {
      const commit = (await suite.call('get_commit', { id: WEB, sha: 'v1.0.0' })).data as Commit;
      const input = { id: WEB, sha: commit.id, note: 'Old line?', path: 'package.json', line: 3, line_type: 'old' };
      await expect(suite.call('create_commit_comment', input, { as: 'reporter' })).rejects.toMatchObject({
        name: 'InputError',
      });
      // Sent anyway (as another client could), the sandbox refuses it as the service would: 400, nothing stored.
      const { id, sha, ...body } = input;
      const sent = await fetch(
        `${suite.sandbox.url}/api/v4/projects/${encodeURIComponent(id)}/repository/commits/${sha}/comments`,
        {
          method: 'POST',
          headers: { 'private-token': suite.sandbox.tokens.reporter, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        },
      );
      expect(sent.status).toBe(400);
      const listed = (await suite.call('list_commit_comments', { id: WEB, sha: commit.id })).data as Array<{
        note: string;
      }>;
      expect(listed.map((c) => c.note)).not.toContain('Old line?');
    });
  });

  describe('revert_as_merge_request', () => {
    // Its whole contract is in revert-as-merge-request.test.ts; here, onto a branch other than the default.
    it('reverts a commit of a feature branch on revert-<sha8> from it, with a merge request back to it', async () => {
      const toggle = await darkModeToggle();
      const branch = `revert-${toggle.id.slice(0, 8)}`;
      const result = await suite.call(
        'revert_as_merge_request',
        { id: WEB, sha: toggle.id, target_branch: FEATURE },
        { as: 'developer' },
      );
      expect(result.data).toMatchObject({
        branch,
        target_branch: FEATURE,
        revert_commit: { title: 'Revert "Add dark mode toggle"' },
      });
      const [head] = (await suite.call('list_commits', { id: WEB, ref_name: branch, per_page: 1 })).data as Commit[];
      expect(head.title).toBe('Revert "Add dark mode toggle"');
    });
  });

  describe('paging', () => {
    suite.pagingCase('list_commits', { id: WEB });
    suite.pagingCase('list_commit_refs', { id: WEB, sha: 'v1.0.0' });
    // The 1.0.0 release commit changed CHANGELOG.md and package.json.
    suite.pagingCase('get_commit_diff', { id: WEB, sha: 'v1.0.0' });
    suite.pagingCase('list_commit_comments', async () => {
      const { sha } = await suite.freshBranch(WEB);
      for (const note of ['First.', 'Second.', 'Third.'])
        await suite.call('create_commit_comment', { id: WEB, sha, note });
      return { id: WEB, sha };
    });
  });

  describe('permissions', () => {
    it("hides a private project from an outsider behind the service's 404", async () => {
      const error = await suite.call('list_commits', { id: PAYMENTS }, { as: 'outsider' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(404);
      expect((error as ApiError).message).toBe('404 Project Not Found');
    });

    it('refuses commits, cherry-picks and reverts from a reporter with 403', async () => {
      await expect(
        suite.call(
          'create_commit',
          {
            id: WEB,
            branch: 'main',
            commit_message: 'x',
            actions: [{ action: 'create', file_path: 'x.txt', content: 'x' }],
          },
          { as: 'reporter' },
        ),
      ).rejects.toMatchObject({ status: 403 });
      await expect(
        suite.call('cherry_pick_commit', { id: WEB, sha: FEATURE, branch: 'main' }, { as: 'reporter' }),
      ).rejects.toMatchObject({ status: 403 });
      await expect(
        suite.call('revert_commit', { id: WEB, sha: 'main', branch: 'main' }, { as: 'guest' }),
      ).rejects.toMatchObject({ status: 403 });
    });
  });

  describe('bad input', () => {
    // A create_commit on main that is valid but for its one action.
    const commitWith = (action: Record<string, unknown>) => ({
      id: WEB,
      branch: 'main',
      commit_message: 'x',
      actions: [action],
    });
    suite.badInputCases([
      ['a commit without actions', 'create_commit', { id: WEB, branch: 'main', commit_message: 'x' }, 'actions'],
      [
        'an update without content',
        'create_commit',
        commitWith({ action: 'update', file_path: 'a' }),
        'actions.0.content',
      ],
      [
        'a move without previous_path',
        'create_commit',
        commitWith({ action: 'move', file_path: 'a' }),
        'actions.0.previous_path',
      ],
      [
        'an action the API does not have',
        'create_commit',
        commitWith({ action: 'copy', file_path: 'a' }),
        'actions.0.action',
      ],
      ['a misspelt action key', 'create_commit', commitWith({ action: 'delete', file_pth: 'a' }), 'actions.0'],
      ['a cherry-pick without a branch', 'cherry_pick_commit', { id: WEB, sha: 'main' }, 'branch'],
      [
        'a line_type the API does not have',
        'create_commit_comment',
        { id: WEB, sha: 'main', note: 'x', line_type: 'both' },
        'line_type',
      ],
      ['a line comment without a path', 'create_commit_comment', { id: WEB, sha: 'main', note: 'x', line: 3 }, 'path'],
      [
        'a line comment without a line',
        'create_commit_comment',
        { id: WEB, sha: 'main', note: 'x', path: 'package.json' },
        'line',
      ],
      [
        'a line_type without path and line',
        'create_commit_comment',
        { id: WEB, sha: 'main', note: 'x', line_type: 'new' },
        'path',
      ],
      ['an order the API does not have', 'list_commits', { id: WEB, order: 'date' }, 'order'],
    ]);
  });
});

suite.coverageCase();
