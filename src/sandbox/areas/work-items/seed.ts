// Demo work items: labels, issues and merge requests worth listing (labels, assignees, states, milestones,
// confidential ones, reactions, due dates, weights, on public, internal and private projects), epics, and the
// label history of some of them (every label change goes through setLabels in state.ts, which records label events).
//
// What the demo accounts see (acme members inherit acme's level everywhere below it):
//   acme/web (public)              9 issues (2 confidential), 5 merge requests (one a draft, two merged)
//   acme/platform/payments-api     4 issues (1 confidential), 2 merge requests — private: erin sees nothing,
//                                  dave (guest) sees the issues but no merge requests and no confidential issue
//   acme/platform/infra (internal) 4 issues (2 incidents, label incident), 1 merge request (waiting)
//   bob/scratchpad (private)       1 issue
// Confidential issues show only to their author, their assignees, reporters and up and administrators.
import type { Project, Store, User } from '../../core/store.js';
import {
  addLabel,
  setLabels,
  type Award,
  type Epic,
  type Issue,
  type LabelEventResource,
  type MergeRequest,
  workItemsOf,
} from './state.js';

const DAY = 24 * 60 * 60 * 1000;

/** Colours and priorities of the shared labels of group acme (lower priority sorts first). */
const ACME_LABELS: Array<[name: string, color: string, description: string | null, priority: number | null]> = [
  ['security', '#b71c1c', 'Vulnerabilities and hardening', 0],
  ['bug', '#d9534f', 'Something does not work', 1],
  ['feature', '#428bca', 'New functionality', 3],
  ['frontend', '#5cb85c', null, null],
  ['backend', '#8e44ad', null, null],
  ['UX', '#f0ad4e', 'User experience', null],
  ['documentation', '#7f8c8d', null, null],
  ['needs-triage', '#f7f7f7', 'Not yet looked at', 2],
];

interface SeedLabelChange {
  /** Days after creation. */
  after: number;
  by: string;
  labels: string[];
}

/** What a seeded issue and merge request both have. */
interface SeedItem {
  title: string;
  description?: string;
  author: string;
  assignees?: string[];
  labels?: string[];
  /** Label changes after creation, each recorded as label events. */
  relabel?: SeedLabelChange[];
  milestone?: string;
  /** Created this many days before today. */
  created: number;
}

interface SeedIssue extends SeedItem {
  /** Closed (by `closedBy`) this many days before today. */
  closed?: number;
  closedBy?: string;
  confidential?: boolean;
  /** Default 'issue'. */
  type?: 'incident';
  /** Days from today (negative: past). */
  due?: number;
  weight?: number;
  awards?: Array<[username: string, emoji: string]>;
  tasks?: [count: number, completed: number];
}

interface SeedMergeRequest extends SeedItem {
  source: string;
  target?: string;
  state?: 'opened' | 'closed' | 'merged';
  /** Days before today when merged or closed. */
  ended?: number;
  endedBy?: string;
  approvers?: string[];
  approvedBy?: string[];
  awards?: Array<[username: string, emoji: string]>;
  conflicts?: boolean;
}

const ISSUES: Record<string, SeedIssue[]> = {
  'acme/web': [
    {
      title: 'Search returns nothing for accented names',
      author: 'carol',
      assignees: ['bob'],
      labels: ['bug', 'needs-triage'],
      relabel: [{ after: 1, by: 'carol', labels: ['bug', 'frontend'] }],
      milestone: '1.2',
      created: 20,
      due: 5,
      weight: 3,
      description:
        'Searching for "José" finds nothing although the product exists.\n\n- [x] reproduce\n- [ ] fix the normaliser',
      awards: [
        ['alice', 'thumbsup'],
        ['erin', 'thumbsup'],
      ],
      tasks: [2, 1],
    },
    {
      title: 'Dark mode toggle forgets the choice',
      author: 'erin',
      assignees: ['alice'],
      labels: ['bug', 'UX'],
      milestone: '1.2',
      created: 12,
      weight: 2,
      awards: [['bob', 'eyes']],
      description: 'After a reload the storefront is light again.',
    },
    {
      title: 'Add a price filter to search',
      author: 'alice',
      labels: ['feature', 'frontend'],
      created: 30,
      description: 'Shoppers ask for a minimum and maximum price next to the search box.',
      awards: [['carol', 'thumbsup']],
    },
    {
      title: 'Header overlaps the cart on small screens',
      author: 'dave',
      assignees: ['bob'],
      labels: ['bug', 'frontend'],
      milestone: '1.1',
      created: 25,
      closed: 6,
      closedBy: 'bob',
      description: 'Below 360px the header covers the cart icon.',
    },
    {
      title: 'XSS in the search box',
      author: 'carol',
      assignees: ['alice'],
      labels: ['security', 'bug'],
      confidential: true,
      created: 4,
      due: 2,
      weight: 5,
      description: 'A query with a script tag is echoed without escaping.',
    },
    {
      title: 'Document the deploy process',
      author: 'bob',
      assignees: ['carol'],
      labels: ['documentation'],
      milestone: '1.0',
      created: 40,
      closed: 15,
      closedBy: 'carol',
      description: 'Write down how a merge to main reaches production.',
    },
    {
      title: 'Accessibility audit of the checkout',
      author: 'alice',
      assignees: ['alice', 'carol'],
      labels: ['feature', 'UX', 'needs-triage'],
      milestone: '1.2',
      created: 2,
      weight: 8,
      description: 'Check the checkout with a screen reader and keyboard only.',
      awards: [
        ['bob', 'thumbsup'],
        ['alice', 'rocket'],
      ],
    },
    {
      title: 'Images load slowly on the home page',
      author: 'erin',
      created: 1,
      description: 'The hero image is 4 MB.',
    },
    {
      title: 'Session cookie lacks the Secure flag',
      author: 'dave',
      labels: ['security'],
      confidential: true,
      created: 3,
      description: 'Seen in the browser tools while helping a customer.',
    },
  ],
  'acme/platform/payments-api': [
    {
      title: 'Refunds fail for partial captures',
      author: 'alice',
      assignees: ['bob'],
      labels: ['bug'],
      relabel: [{ after: 2, by: 'alice', labels: ['bug', 'backend'] }],
      milestone: '1.2',
      created: 10,
      weight: 5,
      description: 'A refund of a partially captured charge answers 500.',
    },
    {
      title: 'Sign webhook payloads',
      author: 'bob',
      assignees: ['alice'],
      labels: ['feature', 'backend'],
      milestone: '1.2',
      created: 8,
      due: 14,
      description: 'Receivers need a signature to trust a webhook.',
    },
    {
      title: 'Rotate the API keys',
      author: 'alice',
      assignees: ['alice'],
      labels: ['security'],
      confidential: true,
      created: 5,
      description: 'The keys were shown in a screen share.',
    },
    {
      title: 'Currency rounding differs from the bank',
      author: 'carol',
      labels: ['bug'],
      milestone: '1.0',
      created: 30,
      closed: 20,
      closedBy: 'alice',
      description: 'JPY amounts are rounded to two decimals.',
    },
  ],
  'acme/platform/infra': [
    {
      title: 'Upgrade the load balancer',
      author: 'root',
      assignees: ['alice'],
      labels: ['backend'],
      created: 15,
      description: 'The current version is out of support.',
    },
    {
      title: 'Backups of the staging database',
      author: 'alice',
      labels: ['bug'],
      created: 22,
      closed: 9,
      closedBy: 'alice',
      description: 'Nightly backups stopped.',
    },
    {
      title: 'Staging API answers 502',
      author: 'root',
      assignees: ['bob'],
      labels: ['incident', 'backend'],
      type: 'incident',
      created: 0.2,
      description: 'The load balancer health checks fail since the last deploy.',
    },
    {
      title: 'Disk full on the build runner',
      author: 'root',
      labels: ['incident'],
      type: 'incident',
      created: 6,
      closed: 5,
      closedBy: 'root',
      description: 'Old caches filled the disk; cleaned up.',
    },
  ],
  'bob/scratchpad': [
    {
      title: 'Try the new date API',
      author: 'bob',
      assignees: ['bob'],
      labels: ['idea'],
      created: 4,
      description: 'Temporal looks promising.',
    },
  ],
};

const MERGE_REQUESTS: Record<string, SeedMergeRequest[]> = {
  'acme/web': [
    {
      title: 'Add search',
      author: 'bob',
      assignees: ['alice'],
      labels: ['feature', 'frontend'],
      milestone: '1.1',
      source: 'feature/search',
      created: 14,
      state: 'merged',
      ended: 10,
      endedBy: 'alice',
      approvedBy: ['alice'],
      description: 'Search by product title.',
    },
    {
      title: 'Draft: Dark mode',
      author: 'alice',
      assignees: ['bob'],
      labels: ['feature'],
      relabel: [{ after: 1, by: 'alice', labels: ['feature', 'UX'] }],
      milestone: '1.2',
      source: 'feature/dark-mode',
      created: 6,
      approvers: ['bob', 'carol'],
      description: 'A dark theme, remembered per browser.',
    },
    {
      title: 'Fix header overlap on small screens',
      author: 'bob',
      assignees: ['alice'],
      labels: ['bug', 'frontend'],
      milestone: '1.1',
      source: 'fix/header',
      created: 3,
      approvedBy: ['alice'],
      awards: [
        ['carol', 'thumbsup'],
        ['alice', 'thumbsup'],
      ],
      description: 'Closes #4.',
    },
    {
      title: 'WIP: try a serif font',
      author: 'carol',
      labels: ['UX'],
      source: 'experiment/font',
      created: 20,
      state: 'closed',
      ended: 18,
      endedBy: 'carol',
      description: 'Only to see how it looks.',
    },
    {
      title: 'Bump dependencies',
      author: 'root',
      source: 'chore/deps',
      created: 2,
      state: 'merged',
      ended: 1,
      endedBy: 'root',
      description: 'Monthly update.',
    },
  ],
  'acme/platform/payments-api': [
    {
      title: 'Refund webhooks',
      author: 'bob',
      assignees: ['alice'],
      labels: ['feature', 'backend'],
      milestone: '1.2',
      source: 'feature/refund-webhooks',
      created: 4,
      conflicts: true,
      description: 'Sends a webhook when a refund settles.',
    },
    {
      title: 'Round JPY without decimals',
      author: 'alice',
      labels: ['bug'],
      milestone: '1.0',
      source: 'fix/jpy',
      created: 25,
      state: 'merged',
      ended: 20,
      endedBy: 'alice',
      approvedBy: ['bob'],
      description: 'Fixes #4.',
    },
  ],
  'acme/platform/infra': [
    {
      title: 'Bigger staging',
      author: 'alice',
      assignees: ['root'],
      labels: ['backend'],
      source: 'feature/bigger-staging',
      created: 2,
      description: 'Doubles the staging nodes.',
    },
  ],
};

const EPICS: Array<{
  group: string;
  title: string;
  author: string;
  labels: string[];
  relabel?: SeedLabelChange[];
  created: number;
  description: string;
}> = [
  {
    group: 'acme',
    title: 'Storefront 2.0',
    author: 'alice',
    labels: ['feature'],
    created: 45,
    relabel: [{ after: 3, by: 'alice', labels: ['feature', 'frontend'] }],
    description: 'Search, dark mode and accessibility.',
  },
  {
    group: 'acme/platform',
    title: 'PCI compliance',
    author: 'alice',
    labels: ['security'],
    created: 60,
    description: 'Everything the audit asks for.',
  },
];

/** The commit a branch points at in the seed history, or null when the seed has no such branch. */
type BranchTip = (project: Project, branch: string) => string | null;

function awardsOf(list: Array<[string, string]> | undefined, users: Map<string, User>): Award[] {
  return (list ?? []).map(([username, name]) => ({ user_id: users.get(username)!.id, name }));
}

export function seedWorkItems(store: Store, users: Map<string, User>, epoch: number, tipOf: BranchTip): void {
  seedLabels(store);
  const times = seedTimes(store, users, epoch);
  seedIssues(store, users, times);
  seedMergeRequests(store, users, times, tipOf);
  seedEpicItems(store, times);
}

/** acme's group labels, and a project label each for infra and bob's scratchpad. */
function seedLabels(store: Store): void {
  const acme = store.findGroup('acme')!;
  for (const [name, color, description, priority] of ACME_LABELS)
    addLabel(store, `group:${acme.id}`, { name, color, description, priority });
  const infra = store.findProject('acme/platform/infra')!;
  addLabel(store, `project:${infra.id}`, {
    name: 'incident',
    color: '#ff0000',
    description: 'Production is affected',
    priority: null,
  });
  const scratchpad = store.findProject('bob/scratchpad')!;
  addLabel(store, `project:${scratchpad.id}`, { name: 'idea', color: '#c0ffee', description: null, priority: null });
}

/** The seed's people and times: a user by name, days ago at 09:00, a day's date, label history, an item's basics. */
function seedTimes(store: Store, users: Map<string, User>, epoch: number) {
  const user = (name: string) => users.get(name)!;
  const ago = (days: number) => new Date(epoch - days * DAY + 9 * 60 * 60 * 1000);
  const day = (offset: number) => new Date(epoch + offset * DAY).toISOString().slice(0, 10);
  const milestoneId = (project: Project, title: string | undefined) =>
    title === undefined ? null : project.milestones.find((m) => m.title === title)!.id;

  /** Creation labels, then each later change, as label events by whoever made them. */
  function label(
    resource: LabelEventResource,
    spec: { author: string; labels?: string[]; relabel?: SeedLabelChange[]; created: number },
  ): void {
    setLabels(store, resource, spec.labels ?? [], user(spec.author), ago(spec.created));
    for (const change of spec.relabel ?? [])
      setLabels(store, resource, change.labels, user(change.by), ago(spec.created - change.after));
  }
  /** The fields a seeded issue and merge request fill alike from their spec. */
  function itemBasics(project: Project, spec: SeedItem, index: number) {
    return {
      iid: index + 1,
      project_id: project.id,
      title: spec.title,
      description: spec.description ?? '',
      author_id: user(spec.author).id,
      assignee_ids: (spec.assignees ?? []).map((name) => user(name).id),
      labels: [],
      milestone_id: milestoneId(project, spec.milestone),
      created_at: ago(spec.created),
      updated_at: ago(spec.created),
    };
  }
  return { user, ago, day, label, itemBasics };
}
type SeedTimes = ReturnType<typeof seedTimes>;

function seedIssues(store: Store, users: Map<string, User>, { user, ago, day, label, itemBasics }: SeedTimes): void {
  for (const [path, specs] of Object.entries(ISSUES)) {
    const project = store.findProject(path)!;
    specs.forEach((spec, index) => {
      const issue: Issue = {
        id: store.nextId('issue'),
        ...itemBasics(project, spec, index),
        state: spec.closed === undefined ? 'opened' : 'closed',
        issue_type: spec.type ?? 'issue',
        closed_at: spec.closed === undefined ? null : ago(spec.closed),
        closed_by_id: spec.closedBy ? user(spec.closedBy).id : null,
        awards: awardsOf(spec.awards, users),
        user_notes_count: (spec.awards?.length ?? 0) + (index % 3),
        discussion_locked: null,
        confidential: spec.confidential ?? false,
        due_date: spec.due === undefined ? null : day(spec.due),
        weight: spec.weight ?? null,
        relative_position: (specs.length - index) * 100,
        moved_to_id: null,
        merge_requests_count: 0,
        tasks: { count: spec.tasks?.[0] ?? 0, completed_count: spec.tasks?.[1] ?? 0 },
        time_estimate: (spec.weight ?? 0) * 3600,
        total_time_spent: spec.closed === undefined ? 0 : 5400,
      };
      workItemsOf(store).issues.push(issue);
      label({ kind: 'Issue', item: issue }, spec);
      // The last change is its closing, or else its last label change (setLabels keeps updated_at).
      if (issue.closed_at) issue.updated_at = issue.closed_at;
    });
  }
}

function seedMergeRequests(
  store: Store,
  users: Map<string, User>,
  { user, ago, label, itemBasics }: SeedTimes,
  tipOf: BranchTip,
): void {
  for (const [path, specs] of Object.entries(MERGE_REQUESTS)) {
    const project = store.findProject(path)!;
    specs.forEach((spec, index) => {
      const state = spec.state ?? 'opened';
      const ended = spec.ended === undefined ? null : ago(spec.ended);
      const mr: MergeRequest = {
        id: store.nextId('merge_request'),
        ...itemBasics(project, spec, index),
        state,
        closed_at: state === 'closed' ? ended : null,
        closed_by_id: state === 'closed' && spec.endedBy ? user(spec.endedBy).id : null,
        merged_at: state === 'merged' ? ended : null,
        merged_by_id: state === 'merged' && spec.endedBy ? user(spec.endedBy).id : null,
        awards: awardsOf(spec.awards, users),
        user_notes_count: index % 4,
        discussion_locked: null,
        source_branch: spec.source,
        target_branch: spec.target ?? project.default_branch,
        sha: tipOf(project, spec.source) ?? tipOf(project, project.default_branch),
        merge_commit_sha: state === 'merged' ? tipOf(project, project.default_branch) : null,
        squash: false,
        has_conflicts: spec.conflicts ?? false,
        approver_ids: (spec.approvers ?? []).map((name) => user(name).id),
        approved_by_ids: (spec.approvedBy ?? []).map((name) => user(name).id),
        reviewer_ids: [],
        squash_commit_sha: null,
      };
      workItemsOf(store).mergeRequests.push(mr);
      label({ kind: 'MergeRequest', item: mr }, spec);
      if (ended) mr.updated_at = ended;
    });
  }
}

function seedEpicItems(store: Store, { user, ago, label }: SeedTimes): void {
  const iids = new Map<number, number>();
  for (const spec of EPICS) {
    const group = store.findGroup(spec.group)!;
    const iid = (iids.get(group.id) ?? 0) + 1;
    iids.set(group.id, iid);
    const epic: Epic = {
      id: store.nextId('epic'),
      iid,
      group_id: group.id,
      title: spec.title,
      description: spec.description,
      state: 'opened',
      author_id: user(spec.author).id,
      labels: [],
      start_date_is_fixed: false,
      start_date_fixed: null,
      due_date_is_fixed: false,
      due_date_fixed: null,
      parent_id: null,
      created_at: ago(spec.created),
      updated_at: ago(spec.created),
      closed_at: null,
    };
    workItemsOf(store).epics.push(epic);
    label({ kind: 'Epic', item: epic }, spec);
  }
}
