// Contract: the three merge request lists against the sandbox — every filter at every level, view=simple, wip,
// approvals, branches, the created_by_me default, refusals, visibility and authentication, and the presentation.
import { describe, expect, it } from 'vitest';
import { contractSuite, type Role } from './harness.js';

const suite = contractSuite('merge_requests');
const WEB = 'acme/web';
const PAYMENTS = 'acme/platform/payments-api';

interface MergeRequest {
  iid: number;
  title: string;
  description: string;
  state: string;
  labels: Array<string | { name: string }>;
  milestone: { title: string } | null;
  author: { username: string };
  assignees: Array<{ username: string }>;
  upvotes: number;
  work_in_progress: boolean;
  source_branch: string;
  target_branch: string;
  created_at: string;
  updated_at: string;
  web_url: string;
  references: { short: string; relative: string; full: string };
}

const userId = (username: string) => suite.sandbox.store.findUser(username)!.id;
const names = (mr: MergeRequest) => mr.labels.map((l) => (typeof l === 'string' ? l : l.name).toLowerCase());

const LISTS = [
  ['list_merge_requests', {}],
  ['list_group_merge_requests', { id: 'acme' }],
  ['list_project_merge_requests', { id: WEB }],
] as const;

async function list(name: string, input: Record<string, unknown>, as: Role = 'maintainer'): Promise<MergeRequest[]> {
  return (await suite.call(name, { per_page: 100, ...input }, { as })).data as MergeRequest[];
}

// Each filter at each level: a non-empty answer that every merge request passes, smaller than the unfiltered one.
const FILTERS: Array<[what: string, input: () => Record<string, unknown>, check: (mr: MergeRequest) => boolean]> = [
  ['state', () => ({ state: 'merged' }), (m) => m.state === 'merged'],
  ['labels all-of, case-insensitively', () => ({ labels: 'Feature,FRONTEND' }), (m) => names(m).includes('feature') && names(m).includes('frontend')],
  ['labels None', () => ({ labels: 'None' }), (m) => m.labels.length === 0],
  ['milestone', () => ({ milestone: '1.1' }), (m) => m.milestone?.title === '1.1'],
  ['milestone Any', () => ({ milestone: 'Any' }), (m) => m.milestone !== null],
  ['scope assigned_to_me', () => ({ scope: 'assigned_to_me' }), (m) => m.assignees.some((a) => a.username === 'alice')],
  ['author_id', () => ({ author_id: userId('bob') }), (m) => m.author.username === 'bob'],
  ['assignee_id Any', () => ({ assignee_id: 'Any' }), (m) => m.assignees.length > 0],
  ['my_reaction_emoji', () => ({ my_reaction_emoji: 'thumbsup' }), (m) => m.upvotes > 0],
  ['search', () => ({ search: 'DARK' }), (m) => /dark/i.test(`${m.title} ${m.description}`)],
  ['source_branch', () => ({ source_branch: 'feature/search' }), (m) => m.source_branch === 'feature/search'],
  ['target_branch', () => ({ target_branch: 'main', state: 'opened' }), (m) => m.target_branch === 'main' && m.state === 'opened'],
  ['wip yes', () => ({ wip: 'yes' }), (m) => m.work_in_progress],
  ['wip no', () => ({ wip: 'no' }), (m) => !m.work_in_progress],
  ['approver_ids', () => ({ approver_ids: [userId('bob'), userId('carol')] }), (m) => m.title === 'Draft: Dark mode'],
  ['approved_by_ids', () => ({ approved_by_ids: [userId('alice')] }), (m) => ['Add search', 'Fix header overlap on small screens'].includes(m.title)],
  ['approved_by_ids None', () => ({ approved_by_ids: 'None' }), (m) => !['Add search', 'Fix header overlap on small screens', 'Round JPY without decimals'].includes(m.title)],
];

describe.each(LISTS)('%s filters', (name, base) => {
  it.each(FILTERS)('%s', async (_what, input, check) => {
    const everything = await list(name, { ...base, scope: 'all' });
    const filtered = await list(name, { ...base, scope: 'all', ...input() });
    expect(filtered.length).toBeGreaterThan(0);
    expect(filtered.length).toBeLessThan(everything.length);
    for (const mr of filtered) expect(check(mr), `${mr.references.full}: ${mr.title}`).toBe(true);
  });

  it('keeps both ends of a date range, and orders by either date both ways', async () => {
    const asc = await list(name, { ...base, scope: 'all', order_by: 'created_at', sort: 'asc' });
    const times = asc.map((m) => Date.parse(m.created_at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect((await list(name, { ...base, scope: 'all' })).map((m) => m.iid + m.web_url)).toEqual(asc.map((m) => m.iid + m.web_url).reverse());
    const between = await list(name, { ...base, scope: 'all', created_after: asc[0].created_at, created_before: asc[1].created_at });
    expect(between.map((m) => m.web_url).sort()).toEqual([asc[0].web_url, asc[1].web_url].sort());
    const updated = await list(name, { ...base, scope: 'all', order_by: 'updated_at', sort: 'desc' });
    const newest = updated[0].updated_at;
    expect(updated.map((m) => Date.parse(m.updated_at))).toEqual(updated.map((m) => Date.parse(m.updated_at)).sort((a, b) => b - a));
    const last = await list(name, { ...base, scope: 'all', updated_after: newest, updated_before: newest });
    expect(last.map((m) => m.web_url)).toEqual([updated[0].web_url]);
  });

  it('answers the short form with view=simple, and label details on request', async () => {
    const [simple] = await list(name, { ...base, scope: 'all', view: 'simple', per_page: 1 });
    expect(Object.keys(simple).sort()).toEqual(['created_at', 'description', 'id', 'iid', 'project_id', 'state', 'title', 'updated_at', 'web_url']);
    const [detailed] = await list(name, { ...base, scope: 'all', labels: 'bug', with_labels_details: true, per_page: 1 });
    expect(detailed.labels).toContainEqual(expect.objectContaining({ name: 'bug', color: '#d9534f', text_color: '#FFFFFF' }));
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
    await expect(suite.call(name, { ...base, approved_by_ids: [1, 2, 3, 4, 5, 6] })).rejects.toThrow(/approved_by_ids/);
    const error = await suite.refusal(name, base, 'anonymous');
    expect([error.status, error.message]).toEqual([401, '401 Unauthorized']);
  });
});

describe('list_merge_requests', () => {
  it('lists only your own merge requests by default', async () => {
    const mine = await list('list_merge_requests', {});
    expect(mine.length).toBeGreaterThan(0);
    expect(new Set(mine.map((m) => m.author.username))).toEqual(new Set(['alice']));
    expect((await list('list_merge_requests', { scope: 'all' })).length).toBeGreaterThan(mine.length);
  });

  it('searches titles or descriptions with in', async () => {
    const inTitle = await list('list_merge_requests', { scope: 'all', search: 'webhook', in: 'title' });
    expect(inTitle.map((m) => m.title)).toEqual(['Refund webhooks']);
    const inDescription = await list('list_merge_requests', { scope: 'all', search: 'webhook', in: 'description' });
    expect(inDescription.map((m) => m.title)).toEqual(['Refund webhooks']);
    expect(await list('list_merge_requests', { scope: 'all', search: 'remembered', in: 'title' })).toEqual([]);
    expect((await list('list_merge_requests', { scope: 'all', search: 'remembered', in: 'title,description' })).map((m) => m.title)).toEqual(['Draft: Dark mode']);
  });
});

describe('visibility', () => {
  it('shows a private project\'s merge requests to reporters, 403 to its guests and 404 to outsiders', async () => {
    expect((await list('list_project_merge_requests', { id: PAYMENTS }, 'reporter')).length).toBe(2);
    const guest = await suite.refusal('list_project_merge_requests', { id: PAYMENTS }, 'guest');
    expect(guest.status).toBe(403);
    const outsider = await suite.refusal('list_project_merge_requests', { id: PAYMENTS }, 'outsider');
    expect([outsider.status, outsider.message]).toEqual([404, '404 Project Not Found']);
    const group = await suite.refusal('list_group_merge_requests', { id: 'acme/platform' }, 'outsider');
    expect([group.status, group.message]).toEqual([404, '404 Group Not Found']);
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
      iid: 2, title: 'Draft: Dark mode', state: 'opened', work_in_progress: true, labels: ['feature', 'UX'],
      source_branch: 'feature/dark-mode', target_branch: 'main', author: { username: 'alice' }, assignees: [{ username: 'bob' }],
      references: { short: '!2', relative: '!2', full: 'acme/web!2' }, merge_status: 'can_be_merged', project_id: 1,
      source_project_id: 1, target_project_id: 1, sha: expect.stringMatching(/^[0-9a-f]{40}$/),
    });
    const merged = await list('list_project_merge_requests', { id: WEB, iids: [1, 5] });
    expect(merged.map((m) => [m.iid, m.state])).toEqual([[5, 'merged'], [1, 'merged']]);
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
    expect(suite.operation('list_project_merge_requests').present!(simple.data, { id: WEB }).fields)
      .toEqual([['!2', expect.stringMatching(/^Draft: Dark mode · opened · \d+(?:m|h|d|mo|y)$/)]]);
  });
});

describe('paging', () => {
  suite.pagingCase('list_merge_requests', { scope: 'all' });
  suite.pagingCase('list_group_merge_requests', { id: 'acme' });
  suite.pagingCase('list_project_merge_requests', { id: WEB });
});

describe('bad input', () => {
  suite.badInputCases([
    ['iids that are not whole numbers', 'list_project_merge_requests', { id: WEB, iids: [1.5] }, 'iids.0'],
    ['approver_ids that are not whole numbers', 'list_merge_requests', { approver_ids: [1.5] }, 'approver_ids'],
    ['an unknown state', 'list_group_merge_requests', { id: 'acme', state: 'draft' }, 'state'],
  ]);
});

suite.coverageCase();
