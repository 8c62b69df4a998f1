// Contract: epics against the sandbox — list filters (state, labels, author, search, inclusive dates, ordering,
// ancestor and descendant groups), the fixed/inherited date fields and who sees them, create and update (close and
// reopen setting closed_at, label events), delete, the to-do (304 the second time), and the refusals: 401, 404 for
// a private group's non-member, 403 without the feature or the access, bad parameters.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { epicStateOf } from '../../src/sandbox/areas/work-items/epic-state.js';
import { workItemsOf } from '../../src/sandbox/areas/work-items/state.js';
import { api } from '../unit/sandbox/sandbox-client.js';
import { expectNeedsToken, expectRefusal } from './builders.js';
import { contractSuite, type Role } from './harness.js';

const suite = contractSuite('epics');

interface Epic {
  id: number;
  iid: number;
  group_id: number;
  parent_id: number | null;
  title: string;
  description: string;
  state: 'opened' | 'closed';
  labels: Array<string | { name: string; color: string }>;
  author: { username: string };
  start_date: string | null;
  start_date_is_fixed?: boolean;
  start_date_fixed?: string | null;
  due_date: string | null;
  due_date_is_fixed?: boolean;
  due_date_fixed?: string | null;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  references: { short: string; relative: string; full: string };
  subscribed?: boolean;
}

const titles = (epics: Epic[]) => epics.map((e) => e.title).sort();
const epicOf = (title: string) => workItemsOf(suite.sandbox.store).epics.find((e) => e.title === title)!;

async function list(input: Record<string, unknown>, as: Role = 'maintainer'): Promise<Epic[]> {
  return (await suite.call('list_epics', { per_page: 100, ...input }, { as })).data as Epic[];
}

// Lists are checked on the epics the sandbox was seeded with: the writing tests add epics of their own, before or after.
let seededIds = new Set<number>();
beforeAll(() => {
  seededIds = new Set(workItemsOf(suite.sandbox.store).epics.map((e) => e.id));
});
const seeded = (epics: Epic[]) => epics.filter((e) => seededIds.has(e.id));

const ACME = ['Checkout redesign', 'Storefront 2.0'];
const PLATFORM = ['PCI compliance', 'Self-serve refunds'];

describe.shuffle('epics, in any order', () => {
  describe('list_epics', () => {
    it('includes subgroups by default, and ancestors only when asked', async () => {
      expect(titles(seeded(await list({ id: 'acme' })))).toEqual([...ACME, ...PLATFORM].sort());
      expect(titles(seeded(await list({ id: 'acme', include_descendant_groups: false })))).toEqual(ACME);
      expect(titles(seeded(await list({ id: 'acme/platform' })))).toEqual(PLATFORM);
      const withAncestors = await list({ id: 'acme/platform', include_ancestor_groups: true });
      expect(titles(seeded(withAncestors))).toEqual([...ACME, ...PLATFORM].sort());
      // References are relative to the group asked for.
      expect(withAncestors.find((e) => e.title === 'PCI compliance')!.references).toEqual({
        short: '&1',
        relative: '&1',
        full: 'acme/platform&1',
      });
      expect((await list({ id: 'acme', search: 'PCI' }))[0].references.relative).toBe('platform&1');
    });

    const FILTERS: Array<[what: string, input: () => Record<string, unknown>, expected: string[]]> = [
      ['state opened', () => ({ state: 'opened' }), ['PCI compliance', 'Self-serve refunds', 'Storefront 2.0']],
      ['state closed', () => ({ state: 'closed' }), ['Checkout redesign']],
      ['labels all-of, case-insensitively', () => ({ labels: 'FEATURE,frontend' }), ['Storefront 2.0']],
      ['labels Any', () => ({ labels: 'Any' }), [...ACME, ...PLATFORM].sort()],
      ['author_id', () => ({ author_id: suite.sandbox.store.findUser('bob')!.id }), ['Checkout redesign']],
      ['search in title or description', () => ({ search: 'AUDIT' }), ['PCI compliance']],
    ];
    it.each(FILTERS)('filters by %s', async (_what, input, expected) => {
      expect(titles(seeded(await list({ id: 'acme', ...input() })))).toEqual(expected);
    });

    it('keeps both ends of a date range, and orders by either date both ways', async () => {
      const asc = await list({ id: 'acme', order_by: 'created_at', sort: 'asc' });
      const times = asc.map((e) => Date.parse(e.created_at));
      expect(times).toEqual([...times].sort((a, b) => a - b));
      expect((await list({ id: 'acme' })).map((e) => e.id)).toEqual(asc.map((e) => e.id).reverse());
      const between = await list({ id: 'acme', created_after: asc[1].created_at, created_before: asc[2].created_at });
      // Both ends kept: exactly those created from the one time to the other (other tests' epics may share a time).
      const [from, to] = [Date.parse(asc[1].created_at), Date.parse(asc[2].created_at)];
      expect(titles(between)).toEqual(
        titles(asc.filter((e) => Date.parse(e.created_at) >= from && Date.parse(e.created_at) <= to)),
      );
      expect(titles(between)).toEqual(expect.arrayContaining([asc[1].title, asc[2].title]));
      const updated = await list({ id: 'acme', order_by: 'updated_at', sort: 'desc' });
      const changed = updated.map((e) => Date.parse(e.updated_at));
      expect(changed).toEqual([...changed].sort((a, b) => b - a));
      const latest = updated[0].updated_at;
      const last = await list({ id: 'acme', updated_after: latest, updated_before: latest });
      expect(last.map((e) => e.id).sort()).toEqual(
        updated
          .filter((e) => e.updated_at === latest)
          .map((e) => e.id)
          .sort(),
      );
      expect(last.length).toBeLessThan(updated.length);
    });

    it('gives label details on request', async () => {
      const [epic] = await list({ id: 'acme', search: 'Storefront', with_labels_details: true });
      expect(epic.labels).toContainEqual({
        name: 'feature',
        color: '#428bca',
        description: 'New functionality',
        description_html: 'New functionality',
        text_color: '#333333',
      });
    });

    suite.pagingCase('list_epics', { id: 'acme' });
  });

  describe('the date fields', () => {
    it('reads fixed dates as the start and due dates, and shows the fixed fields only to those who may edit', async () => {
      const [closed] = await list({ id: 'acme', state: 'closed' }, 'reporter');
      expect(closed).toMatchObject({
        start_date_is_fixed: true,
        due_date_is_fixed: true,
        parent_id: epicOf('Storefront 2.0').id,
      });
      expect(closed.start_date).toBe(closed.start_date_fixed);
      expect(closed.due_date).toBe(closed.due_date_fixed);
      expect(closed.closed_at).not.toBeNull();
      const [seenByGuest] = await list({ id: 'acme', state: 'closed' }, 'guest');
      expect(seenByGuest.start_date).toBe(closed.start_date);
      for (const field of ['start_date_is_fixed', 'start_date_fixed', 'due_date_is_fixed', 'due_date_fixed'])
        expect(seenByGuest).not.toHaveProperty(field);
      // Not fixed: inherited from milestones, of which the sandbox links none.
      const refunds = (
        await suite.call('get_epic', { id: 'acme/platform', epic_iid: epicOf('Self-serve refunds').iid })
      ).data as Epic;
      expect(refunds).toMatchObject({
        start_date_is_fixed: true,
        due_date_is_fixed: false,
        due_date: null,
        subscribed: true,
      });
    });
  });

  describe('create_epic, update_epic, delete_epic', () => {
    it('creates an epic with labels, fixed dates and a parent in an ancestor group, recording the label events', async () => {
      const parent = epicOf('Storefront 2.0');
      const created = await suite.call(
        'create_epic',
        {
          id: 'acme/platform',
          title: 'Payment page revamp',
          description: 'New provider.',
          labels: 'backend,Security',
          start_date_is_fixed: true,
          start_date_fixed: '2031-01-05',
          due_date_is_fixed: true,
          due_date_fixed: '2031-03-31',
          parent_id: parent.id,
        },
        { as: 'reporter' },
      );
      expect(created.status).toBe(201);
      const epic = created.data as Epic;
      expect(epic).toMatchObject({
        iid: expect.any(Number),
        title: 'Payment page revamp',
        state: 'opened',
        labels: ['backend', 'security'],
        author: { username: 'carol' },
        start_date: '2031-01-05',
        due_date: '2031-03-31',
        parent_id: parent.id,
        closed_at: null,
        references: { short: `&${epic.iid}`, relative: `&${epic.iid}`, full: `acme/platform&${epic.iid}` },
      });
      const events = (await suite.call('list_epic_label_events', { id: 'acme/platform', epic_id: epic.id }))
        .data as Array<{ action: string; label: { name: string } }>;
      expect(events.map((e) => `${e.action} ${e.label.name}`)).toEqual(['add backend', 'add security']);
      expect((await suite.call('get_epic', { id: 'acme/platform', epic_iid: epic.iid })).data).toMatchObject({
        title: 'Payment page revamp',
        subscribed: false,
      });
    });

    it('updates title, description, labels and dates, closes (setting closed_at) and reopens', async () => {
      const { iid, id } = await suite.data<Epic>('create_epic', {
        id: 'acme/platform',
        title: suite.freshName('Refunds'),
        labels: 'backend',
        start_date_is_fixed: true,
        start_date_fixed: '2030-01-15',
      });
      const title = suite.freshName('Refunds, renamed');
      const target = { id: 'acme/platform', epic_iid: iid };
      const updated = (
        await suite.call('update_epic', {
          ...target,
          title,
          description: 'Also partial refunds.',
          labels: 'backend,feature',
          start_date_is_fixed: false,
          start_date_fixed: '2030-02-01',
          due_date_is_fixed: true,
          due_date_fixed: '2030-06-30',
        })
      ).data as Epic;
      expect(updated).toMatchObject({
        title,
        description: 'Also partial refunds.',
        labels: ['backend', 'feature'],
        start_date: null,
        start_date_is_fixed: false,
        start_date_fixed: '2030-02-01',
        due_date: '2030-06-30',
      });
      const closed = (await suite.call('update_epic', { ...target, state_event: 'close' })).data as Epic;
      expect(closed.state).toBe('closed');
      expect(Date.now() - Date.parse(closed.closed_at!)).toBeLessThan(60_000);
      const closedOnes = await list({ id: 'acme/platform', state: 'closed' });
      expect(titles(closedOnes)).toContain(title);
      expect(closedOnes.every((e) => e.state === 'closed')).toBe(true);
      const reopened = (await suite.call('update_epic', { ...target, state_event: 'reopen' })).data as Epic;
      expect([reopened.state, reopened.closed_at]).toEqual(['opened', null]);
      const events = (await suite.call('list_epic_label_events', { id: 'acme/platform', epic_id: id })).data as Array<{
        action: string;
        label: { name: string };
        user: { username: string };
      }>;
      expect(events.map((e) => `${e.action} ${e.label.name} by ${e.user.username}`).slice(-1)).toEqual([
        'add feature by alice',
      ]);
    });

    it('deletes an epic for owners only; its child stays, without a parent', async () => {
      const created = (await suite.call('create_epic', { id: 'acme', title: 'Short-lived' })).data as Epic;
      const child = (
        await suite.call('create_epic', { id: 'acme/platform', title: 'Its child', parent_id: created.id })
      ).data as Epic;
      const target = { id: 'acme', epic_iid: created.iid };
      const denied = await suite.refusal('delete_epic', target);
      expect(denied.status).toBe(403);
      const deleted = await suite.call('delete_epic', target, { as: 'admin' });
      expect([deleted.status, deleted.data]).toEqual([204, null]);
      await expectRefusal(suite, 'get_epic', target, 'maintainer', [404, '404 Epic Not Found']);
      expect((await suite.call('get_epic', { id: 'acme/platform', epic_iid: child.iid })).data).toMatchObject({
        parent_id: null,
      });
      expect((await suite.refusal('delete_epic', target, 'admin')).status).toBe(404);
    });

    it("takes the parent epic's ID as a string too (the spec: integer or string)", async () => {
      const parent = epicOf('Storefront 2.0');
      const child = (
        await suite.call('create_epic', { id: 'acme', title: 'String parent', parent_id: String(parent.id) })
      ).data as Epic;
      expect(child.parent_id).toBe(parent.id);
      // Gone again, so the other tests' lists stay as seeded.
      expect((await suite.call('delete_epic', { id: 'acme', epic_iid: child.iid }, { as: 'admin' })).status).toBe(204);
      const stranger = await suite.refusal('create_epic', {
        id: 'acme',
        title: 'x',
        parent_id: String(epicOf('PCI compliance').id),
      });
      expect(stranger.status).toBe(400);
    });

    it('refuses writes below Reporter, an empty update, a parent outside the hierarchy and a blank title', async () => {
      const storefront = { id: 'acme', epic_iid: epicOf('Storefront 2.0').iid };
      expect((await suite.refusal('create_epic', { id: 'acme', title: 'x' }, 'guest')).status).toBe(403);
      expect((await suite.refusal('update_epic', { ...storefront, state_event: 'close' }, 'guest')).status).toBe(403);
      const empty = await suite.refusal('update_epic', storefront);
      expect([empty.status, empty.serviceMessage]).toEqual([
        400,
        expect.stringContaining('at least one parameter must be provided'),
      ]);
      // An epic of a subgroup cannot be the parent of one in its parent group.
      const parent = await suite.refusal('create_epic', {
        id: 'acme',
        title: 'x',
        parent_id: epicOf('PCI compliance').id,
      });
      expect(parent.status).toBe(400);
      expect(parent.serviceMessage).toContain('parent');
      const date = await suite.refusal('update_epic', { ...storefront, due_date_fixed: '31/12/2030' });
      expect([date.status, date.serviceMessage]).toEqual([400, 'due_date_fixed does not have a valid value']);
      const blank = await api(suite.sandbox, 'POST', '/groups/acme/epics', { as: 'maintainer', json: { title: '  ' } });
      expect([blank.status, blank.data]).toEqual([400, { message: { title: ["can't be blank"] } }]);
      const missing = await api(suite.sandbox, 'POST', '/groups/acme/epics', {
        as: 'maintainer',
        json: { description: 'x' },
      });
      expect([missing.status, missing.data]).toEqual([400, { error: 'title is missing' }]);
      const long = await api(suite.sandbox, 'PUT', `/groups/acme/epics/${storefront.epic_iid}`, {
        as: 'maintainer',
        json: { description: 'x'.repeat(1_048_577), state_event: 'close' },
      });
      expect([long.status, long.data]).toEqual([
        400,
        { message: { description: ['is too long (maximum is 1048576 characters)'] } },
      ]);
      // The refused update closed nothing either: values are checked before anything changes.
      expect(epicOf('Storefront 2.0').state).toBe('opened');
    });
  });

  describe('create_epic_todo', () => {
    it('adds a to-do once per person: 304 when it already exists', async () => {
      const target = { id: 'acme', epic_iid: epicOf('Storefront 2.0').iid };
      const first = await suite.call('create_epic_todo', target, { as: 'developer' });
      expect(first.status).toBe(201);
      expect(first.data).toMatchObject({
        action_name: 'marked',
        target_type: 'Epic',
        state: 'pending',
        body: 'Storefront 2.0',
        author: { username: 'bob' },
        target: { title: 'Storefront 2.0' },
        group: { full_path: 'acme' },
      });
      const again = await suite.call('create_epic_todo', target, { as: 'developer' });
      expect([again.status, again.data]).toEqual([304, null]);
      expect(suite.operation('create_epic_todo').present!(again.data, target).title).toBe(
        'Already on your to-do list; nothing changed.',
      );
      // Another person's to-do is their own.
      expect((await suite.call('create_epic_todo', target, { as: 'guest' })).status).toBe(201);
    });
  });

  describe('refusals', () => {
    afterEach(() => {
      epicStateOf(suite.sandbox.store).unlicensed.clear();
    });

    it('needs a token', async () => {
      await expectNeedsToken(suite, 'list_epics', { id: 'acme' });
    });

    it('answers 404 to a non-member of a private group, and leaves its epics out of a wider list', async () => {
      const pci = { id: 'acme/platform', epic_iid: epicOf('PCI compliance').iid };
      for (const [name, input] of [
        ['get_epic', pci],
        ['list_epics', { id: 'acme/platform' }],
        ['create_epic_todo', pci],
      ] as const) {
        await expectRefusal(suite, name, input, 'outsider', [404, '404 Group Not Found']);
      }
      expect(titles(await list({ id: 'acme' }, 'outsider'))).toEqual(ACME);
    });

    it("answers 403 when the group's plan lacks epics, after the visibility check", async () => {
      epicStateOf(suite.sandbox.store).unlicensed.add(suite.sandbox.store.findGroup('acme')!.id);
      for (const [name, input] of [
        ['list_epics', { id: 'acme/platform' }],
        ['get_epic', { id: 'acme', epic_iid: 1 }],
        ['create_epic', { id: 'acme', title: 'x' }],
        ['create_epic_todo', { id: 'acme', epic_iid: 1 }],
      ] as const) {
        expect((await suite.refusal(name, input)).status).toBe(403);
      }
      expect((await suite.refusal('list_epics', { id: 'acme/platform' }, 'outsider')).status).toBe(404);
    });
  });

  describe('presentation', () => {
    it('shows reference, title, state, dates and age for a list, and the details of one epic', async () => {
      const result = await suite.call('list_epics', { id: 'acme', state: 'closed' });
      const shown = suite.operation('list_epics').present!(result.data, { id: 'acme' });
      expect(shown.title).toBe('1 epic');
      expect(shown.fields).toEqual([
        [
          '&2',
          expect.stringMatching(/^Checkout redesign · closed · \d{4}-\d\d-\d\d → \d{4}-\d\d-\d\d · \d+(?:m|h|d|mo|y)$/),
        ],
      ]);
      const one = await suite.call('get_epic', { id: 'acme', epic_iid: 1 });
      expect(suite.operation('get_epic').present!(one.data, { id: 'acme', epic_iid: 1 })).toEqual({
        title: 'Epic acme&1: Storefront 2.0',
        fields: [
          ['state', 'opened'],
          ['labels', 'feature, frontend'],
          ['dates', '— → —'],
          ['author', 'alice'],
        ],
      });
    });
  });

  suite.badInputCases([
    ['a create without a title', 'create_epic', { id: 'acme' }, 'title'],
    [
      'a date that is not a string',
      'update_epic',
      { id: 'acme', epic_iid: 1, due_date_fixed: 20301231 },
      'due_date_fixed',
    ],
    ['an unknown state_event', 'update_epic', { id: 'acme', epic_iid: 1, state_event: 'archive' }, 'state_event'],
    ['an epic number that is not a whole number', 'get_epic', { id: 'acme', epic_iid: 1.5 }, 'epic_iid'],
    [
      "a description over the spec's 1,048,576 characters",
      'create_epic',
      { id: 'acme', title: 't', description: 'x'.repeat(1_048_577) },
      'description',
    ],
    [
      'an update description over 1,048,576 characters',
      'update_epic',
      { id: 'acme', epic_iid: 1, description: 'x'.repeat(1_048_577) },
      'description',
    ],
    ['an author_id that is not a whole number', 'list_epics', { id: 'acme', author_id: 2.5 }, 'author_id'],
  ]);
});

suite.coverageCase();
