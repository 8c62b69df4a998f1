// Contract: label events of issues, merge requests and epics — lists and single reads, events recorded for every
// label change (the seed's history and a change made now), visibility (confidential issues, private projects and
// groups), authentication, events of another resource, and the chat presentation.
import { describe, expect, it } from 'vitest';
import { setLabels, workItemsOf } from '../../src/sandbox/areas/work-items/state.js';
import { WEB, PAYMENTS, expectNeedsToken, expectRefusal } from './builders.js';
import { contractSuite, type Role } from './harness.js';

const suite = contractSuite('label_events');

interface LabelEvent {
  id: number;
  user: { username: string };
  created_at: string;
  resource_type: string;
  resource_id: number;
  label: { id: number; name: string; color: string; description: string | null };
  action: 'add' | 'remove';
}

const epicId = (title: string) => workItemsOf(suite.sandbox.store).epics.find((e) => e.title === title)!.id;
const summary = (events: LabelEvent[]) => events.map((e) => `${e.action} ${e.label.name} by ${e.user.username}`);

async function events(name: string, input: Record<string, unknown>, as: Role = 'maintainer'): Promise<LabelEvent[]> {
  return (await suite.call(name, input, { as })).data as LabelEvent[];
}

// Each kind of resource: where it lives, the history the seed gave it, and what an outsider (or guest) may not see.
const KINDS = [
  {
    kind: 'issue',
    list: 'list_issue_label_events',
    get: 'get_issue_label_event',
    resourceType: 'Issue',
    target: () => ({ id: WEB, issue_iid: 1 }),
    other: () => ({ id: WEB, issue_iid: 2 }),
    history: ['add bug by carol', 'add needs-triage by carol', 'remove needs-triage by carol', 'add frontend by carol'],
    hidden: () => ({ input: { id: WEB, issue_iid: 5 }, as: 'outsider' as Role, message: '404 Issue Not Found' }),
  },
  {
    kind: 'merge request',
    list: 'list_merge_request_label_events',
    get: 'get_merge_request_label_event',
    resourceType: 'MergeRequest',
    target: () => ({ id: WEB, merge_request_iid: 2 }),
    other: () => ({ id: WEB, merge_request_iid: 1 }),
    history: ['add feature by alice', 'add UX by alice'],
    hidden: () => ({
      input: { id: PAYMENTS, merge_request_iid: 1 },
      as: 'guest' as Role,
      message: '404 Merge Request Not Found',
    }),
  },
  {
    kind: 'epic',
    list: 'list_epic_label_events',
    get: 'get_epic_label_event',
    resourceType: 'Epic',
    target: () => ({ id: 'acme', epic_id: epicId('Storefront 2.0') }),
    other: () => ({ id: 'acme/platform', epic_id: epicId('PCI compliance') }),
    history: ['add feature by alice', 'add frontend by alice'],
    hidden: () => ({
      input: { id: 'acme/platform', epic_id: epicId('PCI compliance') },
      as: 'outsider' as Role,
      message: '404 Group Not Found',
    }),
  },
] as const;

describe.shuffle('label-events, in any order', () => {
  describe.each(KINDS)('label events of an $kind', ({ list, get, resourceType, target, other, history, hidden }) => {
    it('lists who added and removed which label, oldest first', async () => {
      const answer = await events(list, target());
      expect(summary(answer)).toEqual(history);
      for (const event of answer) {
        expect(event).toEqual({
          id: expect.any(Number),
          user: expect.objectContaining({ username: expect.any(String), state: 'active' }),
          created_at: expect.any(String),
          resource_type: resourceType,
          resource_id: expect.any(Number),
          label: {
            id: expect.any(Number),
            name: expect.any(String),
            color: expect.stringMatching(/^#[0-9a-f]{6}$/i),
            description: event.label.description === null ? null : expect.any(String),
          },
          action: expect.stringMatching(/^(add|remove)$/),
        });
      }
      const times = answer.map((e) => Date.parse(e.created_at));
      expect(times).toEqual([...times].sort((a, b) => a - b));
    });

    it('reads each event one by one, and 404 for an event of another resource', async () => {
      const answer = await events(list, target());
      for (const event of answer) {
        expect((await suite.call(get, { ...target(), resource_label_event_id: event.id })).data).toEqual(event);
      }
      const foreign = (await events(list, other()))[0];
      const error = await suite.refusal(get, { ...target(), resource_label_event_id: foreign.id });
      expect([error.status, error.message]).toEqual([404, '404 Not Found']);
    });

    it('is 404 to whoever may not see the resource, and needs a token', async () => {
      const { input, as, message } = hidden();
      await expectRefusal(suite, list, input, as, [404, message]);
      const single = await suite.refusal(get, { ...input, resource_label_event_id: 1 }, as);
      expect(single.status).toBe(404);
      await expectNeedsToken(suite, list, target());
    });
  });

  describe('recording', () => {
    it('records an event for each label a change adds or removes, and none for labels it keeps', async () => {
      const { store } = suite.sandbox;
      const project = store.findProject(WEB)!;
      const issue = workItemsOf(store).issues.find((i) => i.project_id === project.id && i.iid === 2)!;
      const before = await events('list_issue_label_events', { id: WEB, issue_iid: 2 });
      // 'ux' in another case is the same label: kept, not removed and added again.
      setLabels(store, { kind: 'Issue', item: issue }, ['ux', 'frontend'], store.findUser('bob')!, new Date());
      const after = await events('list_issue_label_events', { id: WEB, issue_iid: 2 });
      expect(summary(after.slice(before.length))).toEqual(['remove bug by bob', 'add frontend by bob']);
      const issues = (await suite.call('list_project_issues', { id: WEB, iids: [2] })).data as Array<{
        labels: string[];
      }>;
      expect(issues[0].labels).toEqual(['UX', 'frontend']);
    });

    it("finds a confidential issue's events for its author and reporters", async () => {
      expect((await events('list_issue_label_events', { id: WEB, issue_iid: 9 }, 'guest')).length).toBeGreaterThan(0);
      expect((await events('list_issue_label_events', { id: WEB, issue_iid: 5 }, 'reporter')).length).toBeGreaterThan(
        0,
      );
      const guest = await suite.refusal('list_issue_label_events', { id: WEB, issue_iid: 5 }, 'guest');
      expect(guest.status).toBe(404);
    });
  });

  describe('presentation', () => {
    it('shows one line per event: action, label, who and how long ago', async () => {
      const result = await suite.call('list_issue_label_events', { id: WEB, issue_iid: 1 });
      const shown = suite.operation('list_issue_label_events').present!(result.data, { id: WEB, issue_iid: 1 });
      expect(shown.title).toBe('4 label events');
      expect(shown.fields?.[2]).toEqual([
        expect.stringMatching(/^#\d+$/),
        expect.stringMatching(/^remove needs-triage · @carol · \d+(?:m|h|d|mo|y)$/),
      ]);
      const first = (result.data as LabelEvent[])[0];
      const one = await suite.call('get_issue_label_event', {
        id: WEB,
        issue_iid: 1,
        resource_label_event_id: first.id,
      });
      expect(
        suite.operation('get_issue_label_event').present!(one.data, {
          id: WEB,
          issue_iid: 1,
          resource_label_event_id: first.id,
        }),
      ).toEqual({
        title: `Label event #${first.id}: add bug`,
        fields: [
          ['by', 'carol'],
          ['at', first.created_at],
          ['on', `Issue ${first.resource_id}`],
        ],
      });
    });
  });

  describe('paging', () => {
    suite.pagingCase('list_issue_label_events', { id: WEB, issue_iid: 1 });
    suite.pagingCase('list_merge_request_label_events', { id: WEB, merge_request_iid: 2 });
    suite.pagingCase('list_epic_label_events', { id: 'acme', epic_id: 1 }); // Storefront 2.0, the first epic seeded
  });
});

suite.coverageCase();
