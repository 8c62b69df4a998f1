// Contract: the three merge request lists against the sandbox — every filter at every level, view=simple, wip,
// approvals, branches, the created_by_me default, refusals, visibility and authentication, and the presentation.
import { describe, expect, it } from 'vitest';
import { expectNeedsToken, expectRefusal, PAYMENTS, policyKind, seededUserId, WEB } from './builders.js';
import { contractSuite } from './harness.js';
import { labelNames, type ListedWorkItem, type ListFilter, sharedFilters, workItemLists } from './work-item-lists.js';

const suite = contractSuite('merge_requests');

interface MergeRequest extends ListedWorkItem {
  work_in_progress: boolean;
  source_branch: string;
  target_branch: string;
  web_url: string;
}

const userId = (username: string) => seededUserId(suite, username);

const items = workItemLists<MergeRequest>(suite, [
  'list_merge_requests',
  'list_group_merge_requests',
  'list_project_merge_requests',
]);

const { lists: LISTS, list } = items;

// Each filter, at each level (items.itFiltersEach).
const FILTERS: ListFilter<MergeRequest>[] = [
  ...sharedFilters<MergeRequest>({
    state: 'merged',
    labels: 'Feature,FRONTEND',
    milestone: '1.1',
    author: 'bob',
    userId,
  }),
  ['milestone Any', () => ({ milestone: 'Any' }), (m) => m.milestone !== null],
  ['assignee_id Any', () => ({ assignee_id: 'Any' }), (m) => m.assignees.length > 0],
  ['search', () => ({ search: 'DARK' }), (m) => /dark/i.test(`${m.title} ${m.description}`)],
  ['source_branch', () => ({ source_branch: 'feature/search' }), (m) => m.source_branch === 'feature/search'],
  [
    'target_branch',
    () => ({ target_branch: 'main', state: 'opened' }),
    (m) => m.target_branch === 'main' && m.state === 'opened',
  ],
  ['wip yes', () => ({ wip: 'yes' }), (m) => m.work_in_progress],
  ['wip no', () => ({ wip: 'no' }), (m) => !m.work_in_progress],
  ['approver_ids', () => ({ approver_ids: [userId('bob'), userId('carol')] }), (m) => m.title === 'Draft: Dark mode'],
  [
    'approved_by_ids',
    () => ({ approved_by_ids: [userId('alice')] }),
    (m) => ['Add search', 'Fix header overlap on small screens'].includes(m.title),
  ],
  [
    'approved_by_ids None',
    () => ({ approved_by_ids: 'None' }),
    (m) => !['Add search', 'Fix header overlap on small screens', 'Round JPY without decimals'].includes(m.title),
  ],
];

describe.shuffle('merge-requests, in any order', () => {
  describe.each(LISTS)('%s filters', (name, base) => {
    items.itFiltersEach(name, base, FILTERS);

    it('keeps both ends of a date range, and orders by either date both ways', async () => {
      const asc = await list(name, { ...base, scope: 'all', order_by: 'created_at', sort: 'asc' });
      const times = asc.map((m) => Date.parse(m.created_at));
      expect(times).toEqual([...times].sort((a, b) => a - b));
      expect((await list(name, { ...base, scope: 'all' })).map((m) => m.iid + m.web_url)).toEqual(
        asc.map((m) => m.iid + m.web_url).reverse(),
      );
      const between = await list(name, {
        ...base,
        scope: 'all',
        created_after: asc[0].created_at,
        created_before: asc[1].created_at,
      });
      // Both ends are kept: exactly those created from the first to the second time (other tests' may share a time).
      const from = Date.parse(asc[0].created_at);
      const to = Date.parse(asc[1].created_at);
      const createdBetween = asc.filter((m) => Date.parse(m.created_at) >= from && Date.parse(m.created_at) <= to);
      expect(between.map((m) => m.web_url).sort()).toEqual(createdBetween.map((m) => m.web_url).sort());
      expect(between.map((m) => m.web_url)).toEqual(expect.arrayContaining([asc[0].web_url, asc[1].web_url]));
      const updated = await list(name, { ...base, scope: 'all', order_by: 'updated_at', sort: 'desc' });
      const newest = updated[0].updated_at;
      expect(updated.map((m) => Date.parse(m.updated_at))).toEqual(
        updated.map((m) => Date.parse(m.updated_at)).sort((a, b) => b - a),
      );
      const last = await list(name, { ...base, scope: 'all', updated_after: newest, updated_before: newest });
      const updatedLast = updated.filter((m) => m.updated_at === newest);
      expect(last.map((m) => m.web_url).sort()).toEqual(updatedLast.map((m) => m.web_url).sort());
      expect(last.length).toBeLessThan(updated.length);
    });

    it('answers the short form with view=simple, and label details on request', async () => {
      const [simple] = await list(name, { ...base, scope: 'all', view: 'simple', per_page: 1 });
      expect(Object.keys(simple).sort()).toEqual([
        'created_at',
        'description',
        'id',
        'iid',
        'project_id',
        'state',
        'title',
        'updated_at',
        'web_url',
      ]);
      const [detailed] = await list(name, {
        ...base,
        scope: 'all',
        labels: 'bug',
        with_labels_details: true,
        per_page: 1,
      });
      expect(detailed.labels).toContainEqual(
        expect.objectContaining({ name: 'bug', color: '#d9534f', text_color: '#FFFFFF' }),
      );
    });

    it('lists every state with state=all, as without a state', async () => {
      const all = await list(name, { ...base, scope: 'all', state: 'all' });
      expect(new Set(all.map((m) => m.state))).toEqual(new Set(['opened', 'merged', 'closed']));
      expect(all.map((m) => m.web_url)).toEqual((await list(name, { ...base, scope: 'all' })).map((m) => m.web_url));
    });

    it('takes more than 5 approver_ids (the spec limits approved_by_ids only)', async () => {
      const six = [userId('bob'), userId('carol'), userId('alice'), userId('dave'), userId('erin'), userId('root')];
      const result = await suite.call(name, { ...base, scope: 'all', approver_ids: six });
      expect(result.status).toBe(200);
      expect(result.data).toEqual([]);
    });

    it('refuses more than 5 approved_by_ids before sending, and needs a token', async () => {
      await expect(suite.call(name, { ...base, approved_by_ids: [1, 2, 3, 4, 5, 6] })).rejects.toThrow(
        /approved_by_ids/,
      );
      await expectNeedsToken(suite, name, base);
    });
  });

  describe('list_merge_requests', () => {
    it('lists only your own merge requests by default', async () => {
      await items.expectOnlyOwnByDefault();
    });

    it('searches titles or descriptions with in', async () => {
      const inTitle = await list('list_merge_requests', { scope: 'all', search: 'webhook', in: 'title' });
      expect(inTitle.map((m) => m.title)).toEqual(['Refund webhooks']);
      const inDescription = await list('list_merge_requests', { scope: 'all', search: 'webhook', in: 'description' });
      expect(inDescription.map((m) => m.title)).toEqual(['Refund webhooks']);
      expect(await list('list_merge_requests', { scope: 'all', search: 'remembered', in: 'title' })).toEqual([]);
      expect(
        (await list('list_merge_requests', { scope: 'all', search: 'remembered', in: 'title,description' })).map(
          (m) => m.title,
        ),
      ).toEqual(['Draft: Dark mode']);
    });
  });

  describe('visibility', () => {
    it("shows a private project's merge requests to reporters, 403 to its guests and 404 to outsiders", async () => {
      expect((await list('list_project_merge_requests', { id: PAYMENTS }, 'reporter')).length).toBe(2);
      const guest = await suite.refusal('list_project_merge_requests', { id: PAYMENTS }, 'guest');
      expect(guest.status).toBe(403);
      const projectNotFound: [number, string] = [404, '404 Project Not Found'];
      await expectRefusal(suite, 'list_project_merge_requests', { id: PAYMENTS }, 'outsider', projectNotFound);
      await expectRefusal(suite, 'list_group_merge_requests', { id: 'acme/platform' }, 'outsider', [
        404,
        '404 Group Not Found',
      ]);
      // Wider lists leave out what the caller may not see, instead of failing.
      const guestEverywhere = await list('list_merge_requests', { scope: 'all' }, 'guest');
      expect(guestEverywhere.length).toBeGreaterThan(0);
      expect(guestEverywhere.some((m) => m.references.full.startsWith(PAYMENTS))).toBe(false);
    });

    it('answers 403 for a project with merge requests disabled', async () => {
      const error = await suite.refusal('list_project_merge_requests', { id: 'bob/scratchpad' }, 'developer');
      expect(error.status).toBe(403);
    });
  });

  describe('list_project_merge_requests', () => {
    it('reads the merge request record, with iids[] and a reference relative to the project', async () => {
      const [mr] = await list('list_project_merge_requests', { id: WEB, iids: [2] });
      expect(mr).toMatchObject({
        iid: 2,
        title: 'Draft: Dark mode',
        state: 'opened',
        work_in_progress: true,
        labels: ['feature', 'UX'],
        source_branch: 'feature/dark-mode',
        target_branch: 'main',
        author: { username: 'alice' },
        assignees: [{ username: 'bob' }],
        references: { short: '!2', relative: '!2', full: 'acme/web!2' },
        merge_status: 'can_be_merged',
        project_id: 1,
        source_project_id: 1,
        target_project_id: 1,
        sha: expect.stringMatching(/^[0-9a-f]{40}$/),
      });
      const merged = await list('list_project_merge_requests', { id: WEB, iids: [1, 5] });
      expect(merged.map((m) => [m.iid, m.state])).toEqual([
        [5, 'merged'],
        [1, 'merged'],
      ]);
      expect(merged[1]).toMatchObject({ merged_by: { username: 'alice' }, merged_at: expect.any(String) });
    });

    it('presents a list with reference, title, state, labels, assignee and age', async () => {
      const result = await suite.call('list_project_merge_requests', { id: WEB, iids: [2, 5] });
      const shown = suite.operation('list_project_merge_requests').present!(result.data, { id: WEB });
      expect(shown.title).toBe('2 merge requests');
      expect(shown.fields).toEqual([
        ['!5', expect.stringMatching(/^Bump dependencies · merged · no labels · unassigned · \d+(?:m|h|d|mo|y)$/)],
        ['!2', expect.stringMatching(/^Draft: Dark mode · opened · feature, UX · @bob · \d+(?:m|h|d|mo|y)$/)],
      ]);
      const simple = await suite.call('list_project_merge_requests', { id: WEB, iids: [2], view: 'simple' });
      expect(suite.operation('list_project_merge_requests').present!(simple.data, { id: WEB }).fields).toEqual([
        ['!2', expect.stringMatching(/^Draft: Dark mode · opened · \d+(?:m|h|d|mo|y)$/)],
      ]);
    });
  });

  describe('one merge request: read, open, change, merge, approve, comment (beyond the spec)', () => {
    const INFRA = 'acme/platform/infra';
    const head = (path: string, branch: string) =>
      suite.sandbox.store.findProject(path)!.repo.refTarget(`refs/heads/${branch}`);
    interface Detail extends MergeRequest {
      sha: string;
      detailed_merge_status: string;
      merge_commit_sha: string | null;
      squash_commit_sha: string | null;
      reviewers: Array<{ username: string }>;
    }

    it('reads one merge request with sha = the source branch head and its detailed merge status', async () => {
      const mr = await suite.data<Detail>('get_merge_request', { id: INFRA, merge_request_iid: 1 }, 'reporter');
      expect(mr).toMatchObject({
        title: 'Bigger staging',
        state: 'opened',
        detailed_merge_status: 'mergeable',
        source_branch: 'feature/bigger-staging',
      });
      expect(mr.sha).toBe(await head(INFRA, 'feature/bigger-staging'));
      expect(
        (await suite.data<Detail>('get_merge_request', { id: WEB, merge_request_iid: 2 })).detailed_merge_status,
      ).toBe('draft_status');
      expect(
        (await suite.refusal('get_merge_request', { id: PAYMENTS, merge_request_iid: 1 }, 'outsider')).status,
      ).toBe(404);
      // A guest sees the project but not its code: the merge request is found, then refused.
      expect((await suite.refusal('get_merge_request', { id: PAYMENTS, merge_request_iid: 1 }, 'guest')).status).toBe(
        403,
      );
      expect((await suite.refusal('get_merge_request', { id: WEB, merge_request_iid: 99 })).status).toBe(404);
      const shown = suite.operation('get_merge_request').present!(mr, { id: INFRA });
      expect(shown.title).toBe('Merge request !1: Bigger staging (opened)');
    });

    it('opens a merge request between existing branches (developers and up), once per pair of branches', async () => {
      const branch = await suite.freshBranch(WEB);
      const input = {
        id: WEB,
        source_branch: branch.name,
        target_branch: 'main',
        title: 'Search, again',
        description: 'Re-merge.',
        assignee_ids: [userId('alice')],
        reviewer_ids: [userId('carol')],
        labels: 'bug',
        remove_source_branch: true,
        squash: false,
      };
      const result = await suite.call('create_merge_request', input, { as: 'developer' });
      expect(result.status).toBe(201);
      const created = result.data as Detail;
      expect(created).toMatchObject({
        state: 'opened',
        author: { username: 'bob' },
        labels: ['bug'],
        reviewers: [{ username: 'carol' }],
      });
      expect(created.sha).toBe(branch.sha);
      const again = await suite.refusal('create_merge_request', input, 'developer');
      expect([again.status, again.message]).toEqual([
        409,
        `409 Another open merge request already exists for this source branch: !${created.iid}`,
      ]);
      expect((await suite.refusal('create_merge_request', { ...input, source_branch: 'no/such-branch' })).status).toBe(
        400,
      );
      expect((await suite.refusal('create_merge_request', { ...input, source_branch: 'main' })).status).toBe(422);
      expect((await suite.refusal('create_merge_request', input, 'reporter')).status).toBe(403);
    });

    it('updates labels (recording label events), people, state, title, description and target branch', async () => {
      const { iid } = await suite.freshMergeRequest(WEB, { labels: 'bug' }, 'developer');
      let mr = await suite.data<Detail>(
        'update_merge_request',
        {
          id: WEB,
          merge_request_iid: iid,
          labels: 'feature,frontend',
          add_labels: 'UX',
          remove_labels: 'frontend',
          assignee_ids: [userId('bob')],
          reviewer_ids: [userId('alice')],
          squash: true,
          remove_source_branch: true,
        },
        'developer',
      );
      expect(labelNames(mr)).toEqual(['feature', 'ux']);
      expect(mr.assignees.map((a) => a.username)).toEqual(['bob']);
      expect(mr.reviewers.map((a) => a.username)).toEqual(['alice']);
      const events = await suite.data<Array<{ label: { name: string }; action: string }>>(
        'list_merge_request_label_events',
        { id: WEB, merge_request_iid: iid },
      );
      expect(events.map((e) => `${e.action} ${e.label.name}`)).toEqual([
        'add bug',
        'remove bug',
        'add feature',
        'add UX',
      ]);
      mr = await suite.data<Detail>('update_merge_request', { id: WEB, merge_request_iid: iid, state_event: 'close' });
      expect([mr.state, mr.detailed_merge_status]).toEqual(['closed', 'not_open']);
      mr = await suite.data<Detail>('update_merge_request', {
        id: WEB,
        merge_request_iid: iid,
        state_event: 'reopen',
        title: 'Search, once more',
        description: 'Again.',
        target_branch: 'feature/dark-mode',
      });
      expect(mr).toMatchObject({
        state: 'opened',
        title: 'Search, once more',
        description: 'Again.',
        target_branch: 'feature/dark-mode',
      });
      mr = await suite.data<Detail>('update_merge_request', { id: WEB, merge_request_iid: iid, target_branch: 'main' });
      expect(mr.target_branch).toBe('main');
      expect(
        (
          await suite.refusal('update_merge_request', {
            id: WEB,
            merge_request_iid: iid,
            target_branch: 'no/such-branch',
          })
        ).status,
      ).toBe(400);
      expect(
        (
          await suite.refusal(
            'update_merge_request',
            { id: WEB, merge_request_iid: iid, state_event: 'close' },
            'reporter',
          )
        ).status,
      ).toBe(403);
    });

    it('merges in git only at the reviewed head: 409 for another sha, 401 without the right to merge into the target, 405 for a draft', async () => {
      const fresh = await suite.freshMergeRequest(INFRA);
      const source = fresh.sha;
      const target = (await head(INFRA, 'main'))!;
      const wrong = await suite.refusal('merge_merge_request', {
        id: INFRA,
        merge_request_iid: fresh.iid,
        sha: '0000000000000000000000000000000000000000',
      });
      expect([wrong.status, wrong.message]).toEqual([409, `409 SHA does not match HEAD of source branch: ${source}`]);
      // main is protected for maintainers: a developer may not merge into it, and a reporter may merge nothing.
      for (const role of ['reporter', 'developer'] as const) {
        const refused = await suite.refusal(
          'merge_merge_request',
          { id: INFRA, merge_request_iid: fresh.iid, sha: source },
          role,
        );
        expect(refused.status, role).toBe(401);
      }
      const draft = await suite.data<Detail>('get_merge_request', { id: WEB, merge_request_iid: 2 });
      expect(
        (await suite.refusal('merge_merge_request', { id: WEB, merge_request_iid: 2, sha: draft.sha })).status,
      ).toBe(405);
      const merged = await suite.data<Detail>('merge_merge_request', {
        id: INFRA,
        merge_request_iid: fresh.iid,
        sha: source,
        merge_commit_message: 'Merge bigger staging',
        merge_when_pipeline_succeeds: false,
        should_remove_source_branch: false,
      });
      expect(merged).toMatchObject({ state: 'merged', detailed_merge_status: 'not_open', sha: source });
      const repo = suite.sandbox.store.findProject(INFRA)!.repo;
      expect(merged.merge_commit_sha).toBe(await head(INFRA, 'main'));
      expect(await repo.text(['log', '-1', '--format=%P%n%s', merged.merge_commit_sha!])).toBe(
        `${target} ${source}\nMerge bigger staging`,
      );
      expect(await head(INFRA, fresh.source_branch)).toBe(source);
      expect(
        (await suite.refusal('merge_merge_request', { id: INFRA, merge_request_iid: fresh.iid, sha: source })).status,
      ).toBe(405);
    });

    it('squashes and removes the source branch when asked', async () => {
      const fresh = await suite.freshMergeRequest(WEB);
      const source = fresh.sha;
      const merged = await suite.data<Detail>('merge_merge_request', {
        id: WEB,
        merge_request_iid: fresh.iid,
        sha: source,
        squash: true,
        squash_commit_message: 'Search, squashed',
        should_remove_source_branch: true,
      });
      expect(merged.state).toBe('merged');
      const repo = suite.sandbox.store.findProject(WEB)!.repo;
      expect(await repo.text(['log', '-1', '--format=%s', merged.squash_commit_sha!])).toBe('Search, squashed');
      expect(await repo.text(['log', '-1', '--format=%P', merged.merge_commit_sha!])).toMatch(
        new RegExp(` ${merged.squash_commit_sha}$`),
      );
      expect(await head(WEB, fresh.source_branch)).toBeNull();
    });

    it('approves as the caller (developers and up), at the reviewed head, once', async () => {
      const mr = await suite.freshMergeRequest(WEB);
      const wrong = await suite.refusal(
        'approve_merge_request',
        { id: WEB, merge_request_iid: mr.iid, sha: 'abcdef0' },
        'developer',
      );
      expect([wrong.status, wrong.message]).toEqual([409, `409 SHA does not match HEAD of source branch: ${mr.sha}`]);
      const result = await suite.call(
        'approve_merge_request',
        { id: WEB, merge_request_iid: mr.iid, sha: mr.sha },
        { as: 'developer' },
      );
      expect(result.status).toBe(201);
      expect(
        (result.data as { approved_by: Array<{ user: { username: string } }> }).approved_by.map((a) => a.user.username),
      ).toEqual(['bob']);
      expect(
        (await suite.refusal('approve_merge_request', { id: WEB, merge_request_iid: mr.iid }, 'developer')).status,
      ).toBe(401);
      expect(
        (await suite.refusal('approve_merge_request', { id: WEB, merge_request_iid: mr.iid }, 'reporter')).status,
      ).toBe(403);
    });

    it('comments (guest access and up where the merge request is readable) and lists comments with the system notes, newest first by default', async () => {
      const mr = await suite.freshMergeRequest(WEB);
      await suite.data('approve_merge_request', { id: WEB, merge_request_iid: mr.iid, sha: mr.sha }, 'developer');
      const note = await suite.call(
        'comment_on_merge_request',
        { id: WEB, merge_request_iid: mr.iid, body: 'Looks good in Firefox.' },
        { as: 'reporter' },
      );
      expect(note.status).toBe(201);
      expect(note.data).toMatchObject({
        body: 'Looks good in Firefox.',
        system: false,
        author: { username: 'carol' },
        noteable_type: 'MergeRequest',
      });
      expect(
        (await suite.refusal('comment_on_merge_request', { id: PAYMENTS, merge_request_iid: 1, body: 'hi' }, 'guest'))
          .status,
      ).toBe(404);
      expect(
        (await suite.refusal('comment_on_merge_request', { id: WEB, merge_request_iid: mr.iid, body: ' ' })).status,
      ).toBe(400);
      const newest = await suite.data<Array<{ body: string }>>('list_merge_request_notes', {
        id: WEB,
        merge_request_iid: mr.iid,
      });
      expect(newest.map((n) => n.body)).toEqual(['Looks good in Firefox.', 'approved this merge request']);
      const oldest = await suite.data<Array<{ body: string }>>('list_merge_request_notes', {
        id: WEB,
        merge_request_iid: mr.iid,
        sort: 'asc',
        order_by: 'updated_at',
      });
      expect(oldest.map((n) => n.body)).toEqual(['approved this merge request', 'Looks good in Firefox.']);
    });

    it('asks a human before merging and approving, and before updates that overwrite text', () => {
      const ask = (name: string, raw: Record<string, unknown>) => policyKind(suite, name, raw);
      expect(ask('merge_merge_request', { id: WEB, merge_request_iid: 2, sha: 'abcdef0' })).toBe('approve');
      expect(ask('approve_merge_request', { id: WEB, merge_request_iid: 2 })).toBe('approve');
      expect(
        ask('update_merge_request', { id: WEB, merge_request_iid: 2, add_labels: 'bug', state_event: 'close' }),
      ).toBe('run');
      for (const key of ['title', 'description', 'target_branch'])
        expect(ask('update_merge_request', { id: WEB, merge_request_iid: 2, [key]: 'x' })).toBe('approve');
      expect(ask('create_merge_request', { id: WEB, source_branch: 'a', target_branch: 'main', title: 't' })).toBe(
        'run',
      );
      expect(ask('comment_on_merge_request', { id: WEB, merge_request_iid: 2, body: 'b' })).toBe('run');
    });
  });

  describe('paging', () => {
    suite.pagingCase('list_merge_requests', { scope: 'all' });
    suite.pagingCase('list_group_merge_requests', { id: 'acme' });
    suite.pagingCase('list_project_merge_requests', { id: WEB });
    suite.pagingCase('list_merge_request_notes', async () => {
      const mr = await suite.freshMergeRequest(WEB);
      for (const body of ['First.', 'Second.', 'Third.'])
        await suite.data('comment_on_merge_request', { id: WEB, merge_request_iid: mr.iid, body });
      return { id: WEB, merge_request_iid: mr.iid };
    });
  });

  describe('bad input', () => {
    suite.badInputCases([
      ['iids that are not whole numbers', 'list_project_merge_requests', { id: WEB, iids: [1.5] }, 'iids.0'],
      ['approver_ids that are not whole numbers', 'list_merge_requests', { approver_ids: [1.5] }, 'approver_ids'],
      ['an unknown state', 'list_group_merge_requests', { id: 'acme', state: 'draft' }, 'state'],
    ]);
  });
});

suite.coverageCase();
