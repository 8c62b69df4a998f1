// Issues and merge requests as the service shows them: their references relative to where a list was asked for,
// labels (with details when asked), people, votes, time stats, milestone, and the merge request's forms (basics,
// simple, full).
import type { Group, Project, Store, User } from '../../core/store.js';
import { iso, milestoneView, projectWebUrl, userBasic } from '../../core/views.js';
import { labelsFor, type Issue, type Label, type MergeRequest, type WorkItem } from './state.js';

/** A draft's title starts with Draft: / [Draft] / (Draft), or the older WIP spellings. */
export function isDraft(title: string): boolean {
  return /^\s*(\[draft\]|\(draft\)|draft:|draft\s-|\[wip\]|wip:|wip\s-)/i.test(title);
}

/** Where a list was asked for: `references.relative` is written relative to it. */
export type ReferenceContext =
  | { kind: 'instance' }
  | { kind: 'group'; group: Group }
  | { kind: 'project'; project: Project };

function references(project: Project, iid: number, sigil: '#' | '!', from: ReferenceContext) {
  const full = `${project.full_path}${sigil}${iid}`;
  let relative = full;
  if (from.kind === 'project' && from.project === project) relative = `${sigil}${iid}`;
  if (from.kind === 'group' && project.full_path.startsWith(`${from.group.full_path}/`)) {
    relative = `${project.full_path.slice(from.group.full_path.length + 1)}${sigil}${iid}`;
  }
  return { reference: `${sigil}${iid}`, references: { short: `${sigil}${iid}`, relative, full } };
}

function labelsView(store: Store, project: Project, names: string[], details: boolean) {
  if (!details) return [...names];
  const known = labelsFor(store, { kind: 'project', project });
  return names.map((name) => {
    const label = known.find((l) => l.name === name);
    return labelDetails(label ?? { id: 0, name, color: '#6699cc', description: null, priority: null });
  });
}

export function labelDetails(label: Label) {
  const dark =
    Number.parseInt(label.color.slice(1, 3), 16) +
      Number.parseInt(label.color.slice(3, 5), 16) +
      Number.parseInt(label.color.slice(5, 7), 16) <
    3 * 128;
  return {
    name: label.name,
    color: label.color,
    description: label.description,
    description_html: label.description ?? '',
    text_color: dark ? '#FFFFFF' : '#333333',
  };
}

function people(store: Store, ids: number[]) {
  return ids
    .map((id) => store.findUser(String(id)))
    .filter((u): u is User => u !== undefined)
    .map((u) => userBasic(store, u));
}

function userOrNull(store: Store, id: number | null) {
  const user = id === null ? undefined : store.findUser(String(id));
  return user ? userBasic(store, user) : null;
}

function votes(item: WorkItem) {
  return {
    upvotes: item.awards.filter((a) => a.name === 'thumbsup').length,
    downvotes: item.awards.filter((a) => a.name === 'thumbsdown').length,
  };
}

function humanTime(seconds: number): string | null {
  if (seconds === 0) return null;
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  return [hours ? `${hours}h` : '', minutes ? `${minutes}m` : ''].join('') || `${seconds}s`;
}

function timeStats(estimate: number, spent: number) {
  return {
    time_estimate: estimate,
    total_time_spent: spent,
    human_time_estimate: humanTime(estimate),
    human_total_time_spent: humanTime(spent),
  };
}

function milestoneOf(store: Store, project: Project, id: number | null) {
  const milestone = id === null ? undefined : project.milestones.find((m) => m.id === id);
  return milestone ? milestoneView(store, project, milestone) : null;
}

export function issueView(
  store: Store,
  project: Project,
  issue: Issue,
  from: ReferenceContext,
  withLabelsDetails: boolean,
) {
  const api = `${store.baseUrl}/api/v4/projects/${project.id}`;
  const assignees = people(store, issue.assignee_ids);
  return {
    id: issue.id,
    iid: issue.iid,
    project_id: issue.project_id,
    title: issue.title,
    description: issue.description,
    state: issue.state,
    created_at: iso(issue.created_at),
    updated_at: iso(issue.updated_at),
    closed_at: iso(issue.closed_at),
    // Present only for issues closed by an account that still exists.
    ...(issue.state === 'closed' && issue.closed_by_id !== null
      ? { closed_by: userOrNull(store, issue.closed_by_id) }
      : {}),
    labels: labelsView(store, project, issue.labels, withLabelsDetails),
    milestone: milestoneOf(store, project, issue.milestone_id),
    assignees,
    assignee: assignees[0] ?? null,
    author: userOrNull(store, issue.author_id),
    moved_to_id: issue.moved_to_id,
    ...votes(issue),
    merge_requests_count: issue.merge_requests_count,
    user_notes_count: issue.user_notes_count,
    due_date: issue.due_date,
    web_url: `${projectWebUrl(store, project)}/-/issues/${issue.iid}`,
    ...references(project, issue.iid, '#', from),
    time_stats: timeStats(issue.time_estimate, issue.total_time_spent),
    has_tasks: issue.tasks.count > 0,
    task_status: issue.tasks.count > 0 ? `${issue.tasks.completed_count} of ${issue.tasks.count} tasks completed` : '',
    confidential: issue.confidential,
    discussion_locked: issue.discussion_locked,
    _links: {
      self: `${api}/issues/${issue.iid}`,
      notes: `${api}/issues/${issue.iid}/notes`,
      award_emoji: `${api}/issues/${issue.iid}/award_emoji`,
      project: api,
    },
    task_completion_status: { ...issue.tasks },
    weight: issue.weight,
    issue_type: issue.issue_type,
    type: issue.issue_type.toUpperCase(),
  };
}

/** What every short form of a merge request starts with (view=simple, the answer to an approval). */
export function mergeRequestBasics(mr: MergeRequest) {
  return {
    id: mr.id,
    iid: mr.iid,
    project_id: mr.project_id,
    title: mr.title,
    description: mr.description,
    state: mr.state,
    created_at: iso(mr.created_at),
    updated_at: iso(mr.updated_at),
  };
}

/** view=simple: iid, URL, title, description and the basic state. */
export function mergeRequestSimple(store: Store, project: Project, mr: MergeRequest) {
  return {
    ...mergeRequestBasics(mr),
    web_url: `${projectWebUrl(store, project)}/-/merge_requests/${mr.iid}`,
  };
}

export function mergeRequestView(
  store: Store,
  project: Project,
  mr: MergeRequest,
  from: ReferenceContext,
  withLabelsDetails: boolean,
) {
  const assignees = people(store, mr.assignee_ids);
  return {
    ...mergeRequestSimple(store, project, mr),
    source_project_id: mr.project_id,
    target_project_id: mr.project_id,
    merged_by: userOrNull(store, mr.merged_by_id),
    merged_at: iso(mr.merged_at),
    closed_by: userOrNull(store, mr.closed_by_id),
    closed_at: iso(mr.closed_at),
    target_branch: mr.target_branch,
    source_branch: mr.source_branch,
    ...votes(mr),
    author: userOrNull(store, mr.author_id),
    assignee: assignees[0] ?? null,
    assignees,
    reviewers: people(store, mr.reviewer_ids),
    labels: labelsView(store, project, mr.labels, withLabelsDetails),
    work_in_progress: isDraft(mr.title),
    milestone: milestoneOf(store, project, mr.milestone_id),
    merge_when_pipeline_succeeds: mr.merge_when_pipeline_succeeds ?? false,
    merge_status: mr.state === 'opened' ? (mr.has_conflicts ? 'cannot_be_merged' : 'can_be_merged') : 'unchecked',
    sha: mr.sha,
    merge_commit_sha: mr.merge_commit_sha,
    squash_commit_sha: mr.squash_commit_sha,
    user_notes_count: mr.user_notes_count,
    discussion_locked: mr.discussion_locked,
    should_remove_source_branch: null,
    force_remove_source_branch: mr.force_remove_source_branch ?? true,
    allow_collaboration: false,
    allow_maintainer_to_push: false,
    ...references(project, mr.iid, '!', from),
    time_stats: timeStats(0, 0),
    squash: mr.squash,
    task_completion_status: { count: 0, completed_count: 0 },
    has_conflicts: mr.has_conflicts,
    blocking_discussions_resolved: true,
    approvals_before_merge: null,
  };
}
