// Contract: the three issue lists against the sandbox — every filter at every level (labels all-of and
// case-insensitive, None/Any, scope defaults, exclusive and one-value parameters, iids, search/in, inclusive
// dates, confidential, not[...], ordering), visibility and authentication, and the chat presentation.
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/http/errors.js';
import { expectNeedsToken, expectRefusal, PAYMENTS, policyKind, seededUserId, WEB } from './builders.js';
import { contractSuite, withoutRules, type BadInputCase } from './harness.js';
import { labelNames, type ListedWorkItem, type ListFilter, sharedFilters, workItemLists } from './work-item-lists.js';
import { decide } from '../../src/policy/policy.js';

const suite = contractSuite('issues');

interface Issue extends ListedWorkItem {
  confidential: boolean;
  labels: Array<string | { name: string; color: string; text_color: string }>;
  weight: number | null;
  due_date: string | null;
}

const userId = (username: string) => seededUserId(suite, username);

const items = workItemLists<Issue>(suite, ['list_issues', 'list_group_issues', 'list_project_issues']);

const { lists: LISTS, list } = items;

// Each filter, at each level (items.itFiltersEach).
const FILTERS: ListFilter<Issue>[] = [
  ...sharedFilters<Issue>({ state: 'closed', labels: 'BUG,Frontend', milestone: '1.2', author: 'carol', userId }),
  ['labels Any', () => ({ labels: 'Any' }), (i) => i.labels.length > 0],
  ['milestone None', () => ({ milestone: 'None' }), (i) => i.milestone === null],
  ['scope created_by_me', () => ({ scope: 'created_by_me' }), (i) => i.author.username === 'alice'],
  ['author_username', () => ({ author_username: 'erin' }), (i) => i.author.username === 'erin'],
  ['assignee_id None', () => ({ assignee_id: 'None' }), (i) => i.assignees.length === 0],
  ['assignee_id', () => ({ assignee_id: userId('bob') }), (i) => i.assignees.some((a) => a.username === 'bob')],
  ['assignee_username', () => ({ assignee_username: ['bob'] }), (i) => i.assignees.some((a) => a.username === 'bob')],
  [
    'search in description',
    () => ({ search: 'SCREEN reader', in: 'description' }),
    (i) => /screen reader/i.test(i.description),
  ],
  ['iids', () => ({ iids: [1, 2] }), (i) => i.iid === 1 || i.iid === 2],
  ['confidential', () => ({ confidential: true }), (i) => i.confidential],
  ['weight Any', () => ({ weight: 'Any' }), (i) => i.weight !== null],
  ['weight', () => ({ weight: 3 }), (i) => i.weight === 3],
  [
    'not[labels]: none of them',
    () => ({ not: { labels: 'bug,feature' } }),
    (i) => !labelNames(i).includes('bug') && !labelNames(i).includes('feature'),
  ],
  ['not[author_username]', () => ({ not: { author_username: 'alice' } }), (i) => i.author.username !== 'alice'],
];

describe.shuffle('issues, in any order', () => {
  describe.each(LISTS)('%s filters', (name, base) => {
    items.itFiltersEach(name, base, FILTERS);

    it('keeps both ends of a date range (inclusive)', async () => {
      const everything = await list(name, { ...base, scope: 'all', order_by: 'created_at', sort: 'asc' });
      const [first, pivot] = [everything[1], everything[everything.length - 2]];
      const between = await list(name, {
        ...base,
        scope: 'all',
        created_after: first.created_at,
        created_before: pivot.created_at,
      });
      expect(between.map((i) => i.references.full)).toEqual(
        expect.arrayContaining([first.references.full, pivot.references.full]),
      );
      // Exactly those created from the first time to the second, both kept (other tests' issues may share a time).
      const inRange = (i: Issue) =>
        Date.parse(i.created_at) >= Date.parse(first.created_at) &&
        Date.parse(i.created_at) <= Date.parse(pivot.created_at);
      expect(between.map((i) => i.references.full).sort()).toEqual(
        everything
          .filter(inRange)
          .map((i) => i.references.full)
          .sort(),
      );
      expect(between.length).toBeLessThan(everything.length);
      const updated = [...everything].sort((a, b) => Date.parse(a.updated_at) - Date.parse(b.updated_at));
      const last = updated.at(-1)!.updated_at;
      const touched = await list(name, { ...base, scope: 'all', updated_after: last, updated_before: last });
      expect(touched.length).toBeGreaterThan(0);
      expect(touched.every((i) => i.updated_at === last)).toBe(true);
    });

    it('orders by each key, both ways', async () => {
      const created = await list(name, { ...base, scope: 'all', order_by: 'created_at', sort: 'asc' });
      const times = created.map((i) => Date.parse(i.created_at));
      expect(times).toEqual([...times].sort((a, b) => a - b));
      const byDefault = await list(name, { ...base, scope: 'all' });
      expect(byDefault.map((i) => i.references.full)).toEqual(created.map((i) => i.references.full).reverse());
      // Nulls last in both directions; the rest in order.
      const due = (await list(name, { ...base, scope: 'all', order_by: 'due_date', sort: 'asc' })).map(
        (i) => i.due_date,
      );
      const dated = due.filter((d) => d !== null);
      expect(dated.length).toBeGreaterThan(1);
      expect(due.slice(0, dated.length)).toEqual([...dated].sort());
      const popular = (await list(name, { ...base, scope: 'all', order_by: 'popularity' })).map((i) => i.upvotes);
      expect(popular).toEqual([...popular].sort((a, b) => b - a));
      const heavy = (await list(name, { ...base, scope: 'all', order_by: 'weight', sort: 'desc' })).map(
        (i) => i.weight,
      );
      expect(heavy.filter((w) => w !== null)).toEqual(heavy.slice(0, heavy.filter((w) => w !== null).length));
      expect(heavy.filter((w) => w !== null)).toEqual([...heavy.filter((w) => w !== null)].sort((a, b) => b! - a!));
      // Security (priority 0) before bug (1) before needs-triage (2) before feature (3): label priority, highest first with asc.
      const prioritised = await list(name, { ...base, scope: 'all', order_by: 'label_priority', sort: 'asc' });
      expect(labelNames(prioritised[0])).toContain('security');
      const priority = await list(name, { ...base, scope: 'all', order_by: 'priority', sort: 'asc' });
      expect(labelNames(priority[0])).toContain('security');
      const updated = (await list(name, { ...base, scope: 'all', order_by: 'updated_at', sort: 'asc' })).map((i) =>
        Date.parse(i.updated_at),
      );
      expect(updated).toEqual([...updated].sort((a, b) => a - b));
      const dues = (await list(name, { ...base, scope: 'all', order_by: 'milestone_due', sort: 'asc' })).map(
        (i) => (i.milestone as { due_date?: string } | null)?.due_date ?? null,
      );
      const withDue = dues.filter((d) => d !== null);
      expect(withDue.length).toBeGreaterThan(1);
      expect(dues.slice(0, withDue.length)).toEqual([...withDue].sort());
      // The seed places each project's issues newest first on the board (a higher position for an older issue).
      const board = await list(name, { ...base, scope: 'all', order_by: 'relative_position', sort: 'asc' });
      const web = board.filter((i) => i.references.full.startsWith(`${WEB}#`)).map((i) => i.iid);
      expect(web).toEqual([...web].sort((a, b) => b - a));
    });

    it('gives label details on request', async () => {
      const [issue] = await list(name, {
        ...base,
        scope: 'all',
        labels: 'security',
        with_labels_details: true,
        per_page: 1,
      });
      expect(issue.labels).toContainEqual({
        name: 'security',
        color: '#b71c1c',
        description: 'Vulnerabilities and hardening',
        description_html: expect.any(String),
        text_color: '#FFFFFF',
      });
    });

    it('refuses author_id with author_username, and several assignee usernames (community edition)', async () => {
      // The exclusive pairs are the operation's own rules too; here the sandbox's answer to a client without them.
      const sandboxRefusal = async (input: Record<string, unknown>) => {
        const error = await suite.call(withoutRules(suite.operation(name)), input).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ApiError);
        return error as ApiError;
      };
      const both = await sandboxRefusal({ ...base, author_id: userId('bob'), author_username: 'bob' });
      expect([both.status, both.serviceMessage]).toEqual([400, 'author_id, author_username are mutually exclusive']);
      const two = await suite.refusal(name, { ...base, assignee_username: ['alice', 'bob'] });
      expect([two.status, two.serviceMessage]).toEqual([
        400,
        'assignee_username allows one value, but found 2: alice, bob',
      ]);
      const mixed = await sandboxRefusal({ ...base, assignee_id: userId('bob'), assignee_username: ['bob'] });
      expect(mixed.serviceMessage).toBe('assignee_id, assignee_username are mutually exclusive');
    });

    it('needs a token', async () => {
      await expectNeedsToken(suite, name, base);
    });
  });

  describe('list_issues', () => {
    it('lists only your own issues unless asked for another scope', async () => {
      await items.expectOnlyOwnByDefault();
      // Another author under the default scope finds nothing: the two filters combine.
      expect(await list('list_issues', { author_username: 'bob' })).toEqual([]);
      expect((await list('list_issues', { author_username: 'bob', scope: 'all' })).length).toBeGreaterThan(0);
    });

    it('writes full references for an instance-wide list', async () => {
      const [issue] = await list('list_issues', { scope: 'all', iids: [1], search: 'accented' });
      expect(issue.references).toEqual({ short: '#1', relative: 'acme/web#1', full: 'acme/web#1' });
    });
  });

  describe('visibility', () => {
    it('hides confidential issues from outsiders and guests, but not from their authors', async () => {
      const outsider = await list('list_project_issues', { id: WEB }, 'outsider');
      expect(outsider.length).toBeGreaterThan(0);
      expect(outsider.filter((i) => i.confidential)).toEqual([]);
      const guest = await list('list_project_issues', { id: WEB, confidential: true }, 'guest');
      expect(guest.map((i) => i.title)).toEqual(['Session cookie lacks the Secure flag']);
      const reporter = await list('list_project_issues', { id: WEB, confidential: true }, 'reporter');
      expect(reporter.map((i) => i.title).sort()).toEqual([
        'Session cookie lacks the Secure flag',
        'XSS in the search box',
      ]);
    });

    it('answers 404 for a private project or group to a non-member, and leaves their issues out of wider lists', async () => {
      await expectRefusal(suite, 'list_project_issues', { id: PAYMENTS }, 'outsider', [404, '404 Project Not Found']);
      await expectRefusal(suite, 'list_group_issues', { id: 'acme/platform' }, 'outsider', [
        404,
        '404 Group Not Found',
      ]);
      const everywhere = await list('list_issues', { scope: 'all' }, 'outsider');
      expect(everywhere.some((i) => i.references.full.startsWith(`${PAYMENTS}#`))).toBe(false);
      expect(everywhere.some((i) => i.references.full.startsWith('acme/platform/infra#'))).toBe(true);
      // A guest of the private project sees its issues, except the confidential one.
      const guest = await list('list_project_issues', { id: PAYMENTS }, 'guest');
      expect(guest.map((i) => i.iid).sort()).toEqual([1, 2, 4]);
    });

    it('answers 403 for a project with issues disabled', async () => {
      const error = await suite.refusal('list_project_issues', { id: 'acme/handbook' });
      expect(error.status).toBe(403);
    });
  });

  describe('list_group_issues', () => {
    afterEach(() => {
      suite.sandbox.store.findProject(PAYMENTS)!.archived = false;
    });

    it('includes subgroups, with references relative to the group', async () => {
      const issues = await list('list_group_issues', { id: 'acme', scope: 'all', iids: [1] });
      expect(issues.map((i) => i.references.relative).sort()).toEqual([
        'platform/infra#1',
        'platform/payments-api#1',
        'web#1',
      ]);
    });

    it('leaves out archived projects unless non_archived=false', async () => {
      suite.sandbox.store.findProject(PAYMENTS)!.archived = true;
      const active = await list('list_group_issues', { id: 'acme/platform' });
      expect(active.every((i) => !i.references.full.startsWith(PAYMENTS))).toBe(true);
      const withArchived = await list('list_group_issues', { id: 'acme/platform', non_archived: false });
      expect(withArchived.some((i) => i.references.full.startsWith(PAYMENTS))).toBe(true);
      expect(await list('list_group_issues', { id: 'acme/platform', non_archived: true })).toEqual(active);
    });
  });

  describe('list_project_issues', () => {
    it('reads the issue record, with references relative to the project', async () => {
      const [issue] = await list('list_project_issues', { id: WEB, iids: [1] });
      expect(issue).toMatchObject({
        iid: 1,
        title: 'Search returns nothing for accented names',
        state: 'opened',
        labels: ['bug', 'frontend'],
        author: { username: 'carol' },
        assignees: [{ username: 'bob' }],
        assignee: { username: 'bob' },
        references: { short: '#1', relative: '#1', full: 'acme/web#1' },
        upvotes: 2,
        confidential: false,
        has_tasks: true,
        task_completion_status: { count: 2, completed_count: 1 },
        milestone: { title: '1.2' },
      });
    });

    it('finds text in titles only when in=title, and matches not[search]', async () => {
      expect(await list('list_project_issues', { id: WEB, search: 'screen reader', in: 'title' })).toEqual([]);
      const inTitle = await list('list_project_issues', { id: WEB, search: 'search', in: 'title' });
      expect(inTitle.map((i) => i.iid).sort()).toEqual([1, 3, 5]);
      const notSearch = await list('list_project_issues', { id: WEB, not: { search: 'search', in: 'title' } });
      expect(notSearch.some((i) => [1, 3, 5].includes(i.iid))).toBe(false);
    });

    it('reads None and Any in not[...] and in my_reaction_emoji', async () => {
      const reacted = await list('list_project_issues', { id: WEB, my_reaction_emoji: 'Any' });
      expect(reacted.map((i) => i.iid).sort()).toEqual([1, 7]);
      const notReacted = await list('list_project_issues', { id: WEB, my_reaction_emoji: 'None' });
      expect(notReacted.length + reacted.length).toBe((await list('list_project_issues', { id: WEB })).length);
      const withMilestone = await list('list_project_issues', { id: WEB, not: { milestone: 'None' } });
      expect(withMilestone.every((i) => i.milestone !== null)).toBe(true);
      const weightless = await list('list_project_issues', { id: WEB, weight: 'None' });
      expect(weightless.every((i) => i.weight === null)).toBe(true);
    });

    it('presents a list with reference, title, state, labels, assignee and age', async () => {
      const result = await suite.call('list_project_issues', { id: WEB, iids: [1, 3] });
      const shown = suite.operation('list_project_issues').present!(result.data, { id: WEB });
      expect(shown.title).toBe('2 issues');
      expect(shown.fields).toEqual([
        [
          '#1',
          expect.stringMatching(
            /^Search returns nothing for accented names · opened · bug, frontend · @bob · \d+(?:m|h|d|mo|y)$/,
          ),
        ],
        [
          '#3',
          expect.stringMatching(
            /^Add a price filter to search · opened · feature, frontend · unassigned · \d+(?:m|h|d|mo|y)$/,
          ),
        ],
      ]);
    });
  });

  describe('paging', () => {
    suite.pagingCase('list_issues', { scope: 'all' });
    suite.pagingCase('list_group_issues', { id: 'acme' });
    suite.pagingCase('list_project_issues', { id: WEB });
  });

  describe('bad input', () => {
    suite.badInputCases(
      LISTS.flatMap(
        ([name, base]) =>
          [
            [
              `author_id with author_username (${name})`,
              name,
              { ...base, author_id: 1, author_username: 'bob' },
              'author_username',
            ],
            [
              `assignee_id with assignee_username (${name})`,
              name,
              { ...base, assignee_id: 'Any', assignee_username: ['bob'] },
              'assignee_username',
            ],
            [`an author_id that is not a whole number (${name})`, name, { ...base, author_id: 1.5 }, 'author_id'],
            [`iids that are not whole numbers (${name})`, name, { ...base, iids: [1.5] }, 'iids.0'],
            [`a weight that is not a whole number (${name})`, name, { ...base, weight: 2.5 }, 'weight'],
          ] as BadInputCase[],
      ),
    );
  });

  describe('one issue: read, open, change, comment (beyond the spec)', () => {
    const INFRA = 'acme/platform/infra';
    interface Detail extends Issue {
      issue_type: string;
      type: string;
    }

    it('reads one issue (an incident of the demo data); 404 for what the caller may not see', async () => {
      const issue = await suite.data<Detail>('get_issue', { id: INFRA, issue_iid: 3 }, 'guest');
      expect(issue).toMatchObject({
        title: 'Staging API answers 502',
        issue_type: 'incident',
        type: 'INCIDENT',
        state: 'opened',
      });
      expect(labelNames(issue)).toContain('incident');
      expect((await suite.refusal('get_issue', { id: PAYMENTS, issue_iid: 1 }, 'outsider')).status).toBe(404);
      expect((await suite.refusal('get_issue', { id: PAYMENTS, issue_iid: 3 }, 'guest')).status).toBe(404);
      expect(suite.operation('get_issue').present!(issue, { id: INFRA }).title).toBe(
        'Issue #3: Staging API answers 502 (opened)',
      );
    });

    it('opens an incident (reporters and up) with labels, people, type and due date', async () => {
      const result = await suite.call(
        'create_issue',
        {
          id: INFRA,
          title: 'Payments timeouts',
          description: 'p99 over 5 s.',
          labels: 'incident,backend',
          assignee_ids: [userId('bob')],
          confidential: true,
          issue_type: 'incident',
          due_date: '2030-01-02',
        },
        { as: 'reporter' },
      );
      expect(result.status).toBe(201);
      const issue = result.data as Detail;
      expect(issue).toMatchObject({
        iid: expect.any(Number),
        issue_type: 'incident',
        confidential: true,
        due_date: '2030-01-02',
        author: { username: 'carol' },
        labels: ['incident', 'backend'],
      });
      // Guest access opens issues too: a guest member, and any signed-in user of an internal project; below reporter the
      // service quietly leaves out labels, people and the incident type. A private project stays hidden from outsiders.
      const byGuest = await suite.data<Detail>(
        'create_issue',
        { id: INFRA, title: 'Staging login loops', labels: 'bug', issue_type: 'incident' },
        'guest',
      );
      expect(byGuest).toMatchObject({ author: { username: 'dave' }, labels: [], issue_type: 'issue' });
      expect(byGuest.iid).toBe(issue.iid + 1);
      expect(
        (await suite.data<Detail>('create_issue', { id: INFRA, title: 'Docs link broken' }, 'outsider')).author,
      ).toMatchObject({ username: 'erin' });
      expect((await suite.refusal('create_issue', { id: PAYMENTS, title: 'x' }, 'outsider')).status).toBe(404);
    });

    it('updates labels (recording label events), people, state, title and description', async () => {
      const { iid } = await suite.freshIssue(
        INFRA,
        { title: 'Payments timeouts', labels: 'incident,backend', confidential: true, issue_type: 'incident' },
        'reporter',
      );
      let issue = await suite.data<Detail>(
        'update_issue',
        {
          id: INFRA,
          issue_iid: iid,
          add_labels: 'bug',
          remove_labels: 'backend',
          assignee_ids: [userId('alice')],
          confidential: false,
          due_date: '2030-02-01',
        },
        'reporter',
      );
      expect(labelNames(issue)).toEqual(['incident', 'bug']);
      expect(issue).toMatchObject({ confidential: false, due_date: '2030-02-01', assignees: [{ username: 'alice' }] });
      issue = await suite.data<Detail>('update_issue', { id: INFRA, issue_iid: iid, labels: 'incident' });
      expect(labelNames(issue)).toEqual(['incident']);
      const events = await suite.data<Array<{ label: { name: string }; action: string }>>('list_issue_label_events', {
        id: INFRA,
        issue_iid: iid,
      });
      expect(events.map((e) => `${e.action} ${e.label.name}`)).toEqual([
        'add incident',
        'add backend',
        'remove backend',
        'add bug',
        'remove bug',
      ]);
      issue = await suite.data<Detail>('update_issue', {
        id: INFRA,
        issue_iid: iid,
        state_event: 'close',
        title: 'Payments timeouts (resolved)',
        description: 'Fixed.',
      });
      expect(issue).toMatchObject({ state: 'closed', title: 'Payments timeouts (resolved)', description: 'Fixed.' });
      expect(
        (await suite.data<Detail>('update_issue', { id: INFRA, issue_iid: iid, state_event: 'reopen' })).state,
      ).toBe('opened');
      expect(
        (await suite.refusal('update_issue', { id: INFRA, issue_iid: iid, state_event: 'close' }, 'guest')).status,
      ).toBe(403);
    });

    it('comments (guest access and up) and lists comments with system notes', async () => {
      const { iid } = await suite.freshIssue(INFRA);
      await suite.data('update_issue', { id: INFRA, issue_iid: iid, state_event: 'close' });
      await suite.data('update_issue', { id: INFRA, issue_iid: iid, state_event: 'reopen' });
      const note = await suite.call(
        'comment_on_issue',
        { id: INFRA, issue_iid: iid, body: 'Rolled back.' },
        { as: 'reporter' },
      );
      expect(note.status).toBe(201);
      expect(
        (await suite.refusal('comment_on_issue', { id: PAYMENTS, issue_iid: 1, body: 'hi' }, 'outsider')).status,
      ).toBe(404);
      const newest = await suite.data<Array<{ body: string; system: boolean }>>('list_issue_notes', {
        id: INFRA,
        issue_iid: iid,
      });
      expect(newest.map((n) => n.body)).toEqual(['Rolled back.', 'reopened', 'closed']);
      const oldest = await suite.data<Array<{ body: string }>>('list_issue_notes', {
        id: INFRA,
        issue_iid: iid,
        sort: 'asc',
        order_by: 'created_at',
      });
      expect(oldest.map((n) => n.body)).toEqual(['closed', 'reopened', 'Rolled back.']);
    });

    it('asks a human only for updates that overwrite the title or description', () => {
      const ask = (name: string, raw: Record<string, unknown>) => policyKind(suite, name, raw);
      expect(ask('update_issue', { id: INFRA, issue_iid: 1, state_event: 'close', labels: 'bug' })).toBe('run');
      expect(ask('update_issue', { id: INFRA, issue_iid: 1, title: 't' })).toBe('approve');
      expect(ask('update_issue', { id: INFRA, issue_iid: 1, description: 'd' })).toBe('approve');
      expect(ask('create_issue', { id: INFRA, title: 't' })).toBe('run');
      expect(ask('comment_on_issue', { id: INFRA, issue_iid: 1, body: 'b' })).toBe('run');
    });
  });

  describe('an incident issue from triage', () => {
    it('opens one while the default branch is red, written from the triage, and no second one for the same incident', async () => {
      const opened = await suite.call('open_incident_issue', { id: WEB }, { as: 'developer' });
      expect(opened.status).toBe(201);
      const issue = opened.data as Issue & { issue_type: string; description: string };
      expect(issue).toMatchObject({
        title: 'main is red: test failing',
        issue_type: 'incident',
        state: 'opened',
        author: { username: 'bob' },
      });
      expect(labelNames(issue)).toEqual(['incident']);
      expect(issue.description).toMatch(/^Red for .*, since .* UTC\.$/m);
      const again = await suite.refusal('open_incident_issue', { id: WEB }, 'developer');
      expect(again.message).toContain(`already open: #${issue.iid}`);
      // A project whose default branch is green gets none.
      const green = await suite.refusal('open_incident_issue', { id: 'acme/platform/infra' });
      expect(green.message).toMatch(/main of acme\/platform\/infra is green now/);
      expect(decide(suite.operation('open_incident_issue'), { id: WEB }, { readOnly: true }).kind).toBe('deny');
    });
  });

  describe('paging issue notes', () => {
    suite.pagingCase('list_issue_notes', async () => {
      const { iid } = await suite.freshIssue('acme/platform/infra');
      for (const body of ['First.', 'Second.', 'Third.'])
        await suite.data('comment_on_issue', { id: 'acme/platform/infra', issue_iid: iid, body });
      return { id: 'acme/platform/infra', issue_iid: iid };
    });
  });
});

suite.coverageCase();
