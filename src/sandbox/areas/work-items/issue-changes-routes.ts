// One issue, opening and editing issues, and their notes (beyond the spec: the Issues and Notes APIs, v4).
//
// A token is needed (401 without). Reading follows the lists: a private project seen by an outsider is 404, a
// confidential issue the caller may not see is 404, issues disabled is 403. Opening an issue and commenting need
// reporter access (403 below it); editing needs reporter access or being the issue's author. Label changes record
// label events (setLabels); closing and reopening write a system note.
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { forbidden, notFound, validationError } from '../../core/errors.js';
import { param } from '../../core/params.js';
import { integerPathParam, type Router, type SandboxRequest } from '../../core/router.js';
import { ACCESS, type Project, type User } from '../../core/store.js';
import {
  addNote, changeLabels, labelChangeShape, noteBody, noteCreateParams, noteListParams, noteView, replyNotes, userIds,
} from './changes.js';
import { canSeeIssue, issueView } from './shared.js';
import { workItemsOf, type Issue } from './state.js';

const dueDate = () => z.string().regex(/^\d{4}-\d{2}-\d{2}$/);

const createParams = z.object({
  title: z.string(),
  description: z.string().optional(),
  ...labelChangeShape,
  assignee_ids: param.array(param.integer()).optional(),
  assignee_id: param.integer().optional(),
  confidential: param.boolean().optional(),
  issue_type: param.enum(['issue', 'incident', 'test_case', 'task']).optional(),
  due_date: dueDate().optional(),
  milestone_id: param.integer().optional(),
  weight: param.integer().optional(),
});

const updateParams = z.object({
  title: z.string().optional(),
  description: z.string().optional(),
  state_event: param.enum(['close', 'reopen']).optional(),
  ...labelChangeShape,
  assignee_ids: param.array(param.integer()).optional(),
  confidential: param.boolean().optional(),
  issue_type: param.enum(['issue', 'incident', 'test_case', 'task']).optional(),
  due_date: dueDate().or(z.literal('')).optional(),
  discussion_locked: param.boolean().optional(),
});

export function register(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;

  function projectWithIssues(req: SandboxRequest<unknown>): { user: User; project: Project } {
    const user = ctx.requireUser(req);
    const project = ctx.findProjectFor(req, req.pathParams.id);
    if (!project.issues_enabled) throw forbidden();
    return { user, project };
  }

  function findIssue(req: SandboxRequest<unknown>): { user: User; project: Project; issue: Issue } {
    const { user, project } = projectWithIssues(req);
    const iid = integerPathParam(req, 'issue_iid');
    const issue = workItemsOf(store).issues.find((i) => i.project_id === project.id && i.iid === iid);
    if (!issue || !canSeeIssue(ctx, user, project, issue)) throw notFound();
    return { user, project, issue };
  }

  const atLeastReporter = (user: User, project: Project) => ctx.projectAccess(user, project) >= ACCESS.reporter;
  const view = (project: Project, issue: Issue) => issueView(store, project, issue, { kind: 'project', project }, false);

  router.route('GET', '/projects/:id/issues/:issue_iid', { auth: 'user' }, (req, reply) => {
    const { project, issue } = findIssue(req);
    reply.json(view(project, issue));
  });

  router.route('POST', '/projects/:id/issues', { params: createParams, auth: 'user' }, (req, reply) => {
    const { user, project } = projectWithIssues(req);
    if (project.archived || !atLeastReporter(user, project)) throw forbidden();
    const p = req.params;
    if (p.title.trim() === '') throw validationError({ title: ["can't be blank"] });
    const items = workItemsOf(store);
    const now = new Date();
    const issue: Issue = {
      id: store.nextId('issue'),
      iid: Math.max(0, ...items.issues.filter((i) => i.project_id === project.id).map((i) => i.iid)) + 1,
      project_id: project.id, title: p.title, description: p.description ?? '', state: 'opened',
      issue_type: p.issue_type ?? 'issue', author_id: user.id,
      assignee_ids: userIds(store, p.assignee_ids ?? (p.assignee_id === undefined ? [] : [p.assignee_id])), labels: [],
      milestone_id: project.milestones.some((m) => m.id === p.milestone_id) ? p.milestone_id! : null,
      created_at: now, updated_at: now, closed_at: null, closed_by_id: null, awards: [], user_notes_count: 0,
      discussion_locked: null, confidential: p.confidential ?? false, due_date: p.due_date ?? null, weight: p.weight ?? null,
      relative_position: 0, moved_to_id: null, merge_requests_count: 0, tasks: { count: 0, completed_count: 0 },
      time_estimate: 0, total_time_spent: 0,
    };
    items.issues.push(issue);
    changeLabels(store, { kind: 'Issue', item: issue }, p, user, now);
    reply.json(view(project, issue), 201);
  });

  router.route('PUT', '/projects/:id/issues/:issue_iid', { params: updateParams, auth: 'user' }, (req, reply) => {
    const { user, project, issue } = findIssue(req);
    if (project.archived || (!atLeastReporter(user, project) && issue.author_id !== user.id)) throw forbidden();
    const p = req.params;
    if (p.title !== undefined && p.title.trim() === '') throw validationError({ title: ["can't be blank"] });
    const now = new Date();
    if (p.title !== undefined) issue.title = p.title;
    if (p.description !== undefined) issue.description = p.description;
    if (p.assignee_ids !== undefined) issue.assignee_ids = userIds(store, p.assignee_ids);
    if (p.confidential !== undefined) issue.confidential = p.confidential;
    if (p.issue_type !== undefined) issue.issue_type = p.issue_type;
    if (p.due_date !== undefined) issue.due_date = p.due_date === '' ? null : p.due_date;
    if (p.discussion_locked !== undefined) issue.discussion_locked = p.discussion_locked;
    changeLabels(store, { kind: 'Issue', item: issue }, p, user, now);
    if (p.state_event === 'close' && issue.state === 'opened') {
      Object.assign(issue, { state: 'closed', closed_at: now, closed_by_id: user.id });
      addNote(store, project, issue, 'Issue', user, 'closed', true, now);
    }
    if (p.state_event === 'reopen' && issue.state === 'closed') {
      Object.assign(issue, { state: 'opened', closed_at: null, closed_by_id: null });
      addNote(store, project, issue, 'Issue', user, 'reopened', true, now);
    }
    issue.updated_at = now;
    reply.json(view(project, issue));
  });

  router.route('GET', '/projects/:id/issues/:issue_iid/notes', { params: noteListParams, pagination: 'offset', auth: 'user' }, (req, reply) => {
    const { issue } = findIssue(req);
    replyNotes(store, req, reply, 'Issue', issue);
  });

  router.route('POST', '/projects/:id/issues/:issue_iid/notes', { params: noteCreateParams, auth: 'user' }, (req, reply) => {
    const { user, project, issue } = findIssue(req);
    if (project.archived || (!atLeastReporter(user, project) && issue.author_id !== user.id)) throw forbidden();
    if (issue.discussion_locked && !atLeastReporter(user, project)) throw forbidden();
    const note = addNote(store, project, issue, 'Issue', user, noteBody(req.params.body), false);
    issue.updated_at = note.created_at;
    reply.json(noteView(store, note), 201);
  });
}
