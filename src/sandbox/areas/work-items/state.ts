// Work items of the sandbox: labels, issues, merge requests, epics and label events, their records, and the
// label rules they share (labels a project or group can use; every label change records label events).
import { areaState } from '../../core/area.js';
import type { Group, Project, Store, User } from '../../core/store.js';

export interface Label {
  id: number;
  name: string;
  color: string;
  description: string | null;
  /** Lower sorts first (order_by=priority / label_priority); null: no priority. */
  priority: number | null;
}

/** An award emoji on an issue or merge request (my_reaction_emoji; upvotes are thumbsup, downvotes thumbsdown). */
export interface Award {
  user_id: number;
  name: string;
}

/** What issues and merge requests have in common, and what their shared list filters read. */
export interface WorkItem {
  id: number;
  iid: number;
  project_id: number;
  title: string;
  description: string;
  author_id: number;
  assignee_ids: number[];
  /** Label names, in the order they were added; changed only through setLabels (it records label events). */
  labels: string[];
  milestone_id: number | null;
  created_at: Date;
  updated_at: Date;
  closed_at: Date | null;
  closed_by_id: number | null;
  awards: Award[];
  user_notes_count: number;
  discussion_locked: boolean | null;
}

type IssueType = 'issue' | 'incident' | 'test_case' | 'task';

export interface Issue extends WorkItem {
  state: 'opened' | 'closed';
  issue_type: IssueType;
  confidential: boolean;
  due_date: string | null;
  weight: number | null;
  relative_position: number;
  moved_to_id: number | null;
  merge_requests_count: number;
  /** Markdown task list counts. */
  tasks: { count: number; completed_count: number };
  time_estimate: number;
  total_time_spent: number;
}

export interface MergeRequest extends WorkItem {
  state: 'opened' | 'closed' | 'locked' | 'merged';
  source_branch: string;
  target_branch: string;
  merged_by_id: number | null;
  merged_at: Date | null;
  sha: string | null;
  merge_commit_sha: string | null;
  squash: boolean;
  has_conflicts: boolean;
  /** Users asked to approve, and those who did (higher-tier filters approver_ids / approved_by_ids). */
  approver_ids: number[];
  approved_by_ids: number[];
  /** Users asked to review. */
  reviewer_ids: number[];
  /** Set by a squash merge. */
  squash_commit_sha: string | null;
  /** remove_source_branch as asked (absent: the project's default, true). */
  force_remove_source_branch?: boolean;
  /** Set to merge once its head pipeline succeeds (auto-merge), by merge_user_id. */
  merge_when_pipeline_succeeds?: boolean;
  merge_user_id?: number | null;
  /** What was asked with auto-merge, for the merge to come; sha: the source head it was set on. */
  merge_params?: MergeChoices;
  /** The diff the merge was made from (the target's head then, and the source's). */
  merged_diff?: { start_sha: string; head_sha: string };
}

/** The merge route's choices (PUT .../merge) that shape the merge. */
export interface MergeChoices {
  sha?: string;
  squash?: boolean;
  should_remove_source_branch?: boolean;
  merge_commit_message?: string;
  squash_commit_message?: string;
}

export interface Epic {
  id: number;
  iid: number;
  group_id: number;
  title: string;
  description: string;
  state: 'opened' | 'closed';
  author_id: number;
  labels: string[];
  start_date_is_fixed: boolean;
  start_date_fixed: string | null;
  due_date_is_fixed: boolean;
  due_date_fixed: string | null;
  parent_id: number | null;
  created_at: Date;
  updated_at: Date;
  closed_at: Date | null;
}

export type LabelEventResource =
  | { kind: 'Issue'; item: Issue }
  | { kind: 'MergeRequest'; item: MergeRequest }
  | { kind: 'Epic'; item: Epic };

export interface LabelEvent {
  id: number;
  resource_type: LabelEventResource['kind'];
  resource_id: number;
  user_id: number;
  created_at: Date;
  label: Label;
  action: 'add' | 'remove';
}

/** A comment on an issue or merge request, or a system note (what changed, written by the service). */
export interface Note {
  id: number;
  noteable_type: 'Issue' | 'MergeRequest';
  noteable_id: number;
  noteable_iid: number;
  project_id: number;
  author_id: number;
  body: string;
  system: boolean;
  /** Shown only to reporters and up (an internal note). */
  internal?: boolean;
  created_at: Date;
  updated_at: Date;
}

/** A sandbox's work items; read them through workItemsOf(store). */
interface WorkItems {
  /** Labels by the group or project that defines them ('group:7', 'project:3'); a project also sees its groups' labels. */
  readonly labels: Map<string, Label[]>;
  readonly issues: Issue[];
  readonly mergeRequests: MergeRequest[];
  readonly epics: Epic[];
  readonly labelEvents: LabelEvent[];
  readonly notes: Note[];
}

export const workItemsOf = areaState(
  'work_items',
  (): WorkItems => ({
    labels: new Map(),
    issues: [],
    mergeRequests: [],
    epics: [],
    labelEvents: [],
    notes: [],
  }),
);

/** Labels a project can use: its own, then those of its groups (nearest first); the first of a name wins. */
export function labelsFor(
  store: Store,
  owner: { kind: 'project'; project: Project } | { kind: 'group'; group: Group },
): Label[] {
  const groups =
    owner.kind === 'group'
      ? store.groupChain(owner.group)
      : owner.project.namespace.kind === 'group'
        ? store.groupChain(owner.project.namespace.group)
        : [];
  const keys = [
    ...(owner.kind === 'project' ? [`project:${owner.project.id}`] : []),
    ...groups.map((g) => `group:${g.id}`),
  ];
  const seen = new Set<string>();
  return keys
    .flatMap((key) => workItemsOf(store).labels.get(key) ?? [])
    .filter((label) => {
      const name = label.name.toLowerCase();
      if (seen.has(name)) return false;
      seen.add(name);
      return true;
    });
}

export function addLabel(store: Store, owner: string, input: Omit<Label, 'id'>): Label {
  const label = { ...input, id: store.nextId('label') };
  workItemsOf(store).labels.set(owner, [...(workItemsOf(store).labels.get(owner) ?? []), label]);
  return label;
}

/**
 * Sets the labels of an issue, merge request or epic and records one label event per label added or removed,
 * as the service does whenever labels change. Names match known labels case-insensitively (the label's own
 * spelling is kept); an unknown name is created as a label of the project or group.
 */
export function setLabels(
  store: Store,
  resource: LabelEventResource,
  names: readonly string[],
  user: User,
  at: Date,
): void {
  const owner =
    resource.kind === 'Epic'
      ? { kind: 'group' as const, group: store.findGroup(String(resource.item.group_id))! }
      : { kind: 'project' as const, project: store.findProject(String(resource.item.project_id))! };
  const known = labelsFor(store, owner);
  const wanted: Label[] = [];
  for (const name of names) {
    const existing =
      known.find((l) => l.name.toLowerCase() === name.toLowerCase()) ??
      addLabel(store, owner.kind === 'group' ? `group:${owner.group.id}` : `project:${owner.project.id}`, {
        name,
        color: '#6699cc',
        description: null,
        priority: null,
      });
    if (!known.includes(existing)) known.push(existing);
    if (!wanted.includes(existing)) wanted.push(existing);
  }
  const current = resource.item.labels.map((name) => known.find((l) => l.name === name)!).filter(Boolean);
  const record = (label: Label, action: 'add' | 'remove') =>
    workItemsOf(store).labelEvents.push({
      id: store.nextId('label_event'),
      resource_type: resource.kind,
      resource_id: resource.item.id,
      user_id: user.id,
      created_at: at,
      label,
      action,
    });
  for (const label of current) if (!wanted.includes(label)) record(label, 'remove');
  for (const label of wanted) if (!current.includes(label)) record(label, 'add');
  resource.item.labels = wanted.map((l) => l.name);
  resource.item.updated_at = at;
}

export function labelEventsOf(store: Store, kind: LabelEventResource['kind'], id: number): LabelEvent[] {
  return workItemsOf(store).labelEvents.filter((e) => e.resource_type === kind && e.resource_id === id);
}

/** The source and target branches of a project's open merge requests (deleting merged branches spares them). */
export function openMergeRequestBranches(store: Store, project: Project): Set<string> {
  const open = workItemsOf(store).mergeRequests.filter((mr) => mr.project_id === project.id && mr.state === 'opened');
  return new Set(open.flatMap((mr) => [mr.source_branch, mr.target_branch]));
}
