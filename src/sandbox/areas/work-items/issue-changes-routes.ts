// One issue, opening and editing issues, and their notes (beyond the spec: the Issues and Notes APIs, v4), as the
// service's docs and permission table have them.
//
// Reading one needs no token on a public project; a private project seen by an outsider is 404, a confidential issue
// the caller may not see is 404, issues disabled is 403. Opening an issue takes guest access: a member, or any
// signed-in user on a public or internal project; below reporter, labels, people, milestone, due date and the
// incident type are quietly left out, as the service leaves them. Editing takes reporter access or being the
// issue's author or an assignee (the same quiet rule below reporter). Comments: anyone who may read the issue, with
// guest access; a locked discussion only members. Label changes record label events (setLabels); closing and
// reopening write a system note.
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { forbidden, messageError, recordNotFound, validationError } from '../../core/errors.js';
import { param } from '../../core/params.js';
import { integerPathParam, type Router, type SandboxRequest, registerAll } from '../../core/router.js';
import { ACCESS, type Project, type User } from '../../core/store.js';
import {
  applyItemEdits,
  applyStateEvent,
  changeLabels,
  hasGuestAccess,
  itemFieldsShape,
  nextIid,
  openedItemFields,
  registerNoteRoutes,
  requireOneOf,
  withoutMetadata,
} from './changes.js';
import { canSeeIssue } from './shared.js';
import { issueView } from './item-views.js';
import { workItemsOf, type Issue } from './state.js';

const dueDate = () => z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
const ISSUE_TYPES = ['issue', 'incident', 'test_case', 'task'] as const;

/** What creating and updating an issue take alike. */
const issueFieldsShape = {
  ...itemFieldsShape,
  confidential: param.boolean().optional(),
  issue_type: param.enum(ISSUE_TYPES).optional(),
  weight: param.integer().optional(),
  discussion_locked: param.boolean().optional(),
};

const createParams = z.object({
  title: z.string(),
  ...issueFieldsShape,
  due_date: dueDate().optional(),
  created_at: z.string().optional(),
  iid: param.integer().optional(),
});

/** The names the service wants at least one of in an update. */
const UPDATE_KEYS = [
  'assignee_id',
  'assignee_ids',
  'confidential',
  'created_at',
  'description',
  'discussion_locked',
  'due_date',
  'labels',
  'add_labels',
  'remove_labels',
  'milestone_id',
  'state_event',
  'title',
  'issue_type',
  'weight',
  'updated_at',
] as const;

const updateParams = z.object({
  title: z.string().optional(),
  state_event: param.enum(['close', 'reopen']).optional(),
  ...issueFieldsShape,
  due_date: dueDate().or(z.literal('')).optional(),
  updated_at: z.string().optional(),
});

/** An ISO 8601 date given for an import, or undefined when absent or unreadable. */
function givenDate(text: string | undefined): Date | undefined {
  const ms = text === undefined ? Number.NaN : Date.parse(text);
  return Number.isNaN(ms) ? undefined : new Date(ms);
}

function projectWithIssues(ctx: SandboxContext, req: SandboxRequest<unknown>): Project {
  const project = ctx.findProjectFor(req, req.pathParams.id);
  if (!project.issues_enabled) throw forbidden();
  return project;
}

/** Through the caller's own view of issues (as the service's finder): one they may not see is not there. */
function findIssue(ctx: SandboxContext, req: SandboxRequest<unknown>): { project: Project; issue: Issue } {
  const { store } = ctx;
  const project = projectWithIssues(ctx, req);
  const iid = integerPathParam(req, 'issue_iid');
  const issue = workItemsOf(store).issues.find((i) => i.project_id === project.id && i.iid === iid);
  if (!issue || !canSeeIssue(ctx, req.user, project, issue)) throw recordNotFound();
  return { project, issue };
}

/** One issue as the service answers it alone: the list form plus whether the caller is subscribed. */
function view(ctx: SandboxContext, project: Project, issue: Issue, caller: User | null) {
  const { store } = ctx;
  return {
    ...issueView(store, project, issue, { kind: 'project', project }, false),
    subscribed: caller !== null && (issue.author_id === caller.id || issue.assignee_ids.includes(caller.id)),
    imported: false,
    imported_from: 'none',
  };
}

export const register = registerAll(registerIssueReadAndOpen, registerIssueChanges);

/** Reading one issue and opening one. */
function registerIssueReadAndOpen(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;
  const atLeastReporter = (user: User, project: Project) => ctx.projectAccess(user, project) >= ACCESS.reporter;
  router.route('GET', '/projects/:id/issues/:issue_iid', {}, (req, reply) => {
    const { project, issue } = findIssue(ctx, req);
    reply.json(view(ctx, project, issue, req.user));
  });

  router.route('POST', '/projects/:id/issues', { params: createParams, auth: 'user' }, (req, reply) => {
    const user = ctx.requireUser(req);
    const project = projectWithIssues(ctx, req);
    if (project.archived || !hasGuestAccess(ctx, user, project)) throw forbidden();
    const reporter = atLeastReporter(user, project);
    const p = reporter ? req.params : withoutMetadata(req.params);
    if (p.title.trim() === '') throw validationError({ title: ["can't be blank"] });
    const items = workItemsOf(store);
    // created_at and iid are an administrator's or an owner's to set (an import); anyone else's are ignored.
    const owner = ctx.projectAccess(user, project) >= ACCESS.owner;
    const given = owner ? givenDate(p.created_at) : undefined;
    const now = given ?? new Date();
    const iid = owner && p.iid !== undefined ? p.iid : nextIid(items.issues.filter((i) => i.project_id === project.id));
    if (items.issues.some((i) => i.project_id === project.id && i.iid === iid))
      throw messageError(409, 'Duplicated issue');
    // An incident takes a reporter to open; below it the service opens a plain issue.
    const issueType = p.issue_type === 'incident' && !reporter ? 'issue' : (p.issue_type ?? 'issue');
    const issue: Issue = {
      id: store.nextId('issue'),
      ...openedItemFields(store, project, user, p, iid, now),
      issue_type: issueType,
      discussion_locked: p.discussion_locked ?? null,
      confidential: p.confidential ?? false,
      due_date: p.due_date ?? null,
      weight: p.weight ?? null,
      relative_position: 0,
      moved_to_id: null,
      merge_requests_count: 0,
      tasks: { count: 0, completed_count: 0 },
      time_estimate: 0,
      total_time_spent: 0,
    };
    items.issues.push(issue);
    changeLabels(store, { kind: 'Issue', item: issue }, p, user, now);
    reply.json(view(ctx, project, issue, user), 201);
  });
}

/** Editing an issue, and its other changes. */
function registerIssueChanges(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;
  const atLeastReporter = (user: User, project: Project) => ctx.projectAccess(user, project) >= ACCESS.reporter;
  router.route('PUT', '/projects/:id/issues/:issue_iid', { params: updateParams, auth: 'user' }, (req, reply) => {
    const user = ctx.requireUser(req);
    requireOneOf(req.params, UPDATE_KEYS);
    const { project, issue } = findIssue(ctx, req);
    const involved =
      (issue.author_id === user.id || issue.assignee_ids.includes(user.id)) &&
      ctx.projectAccess(user, project) >= ACCESS.guest;
    if (project.archived || (!atLeastReporter(user, project) && !involved)) throw forbidden();
    const reporter = atLeastReporter(user, project);
    const p = reporter
      ? req.params
      : { ...withoutMetadata(req.params), confidential: undefined, issue_type: undefined };
    if (p.title !== undefined && p.title.trim() === '') throw validationError({ title: ["can't be blank"] });
    const now = new Date();
    applyItemEdits(store, project, issue, p);
    if (p.confidential !== undefined) issue.confidential = p.confidential;
    if (p.issue_type !== undefined) issue.issue_type = p.issue_type;
    if (p.due_date !== undefined) issue.due_date = p.due_date === '' ? null : p.due_date;
    if (p.weight !== undefined) issue.weight = p.weight;
    changeLabels(store, { kind: 'Issue', item: issue }, p, user, now);
    applyStateEvent(store, project, { kind: 'Issue', item: issue }, { state_event: p.state_event, user, at: now });
    issue.updated_at = (ctx.projectAccess(user, project) >= ACCESS.owner ? givenDate(p.updated_at) : undefined) ?? now;
    reply.json(view(ctx, project, issue, user));
  });

  registerNoteRoutes(router, ctx, '/projects/:id/issues/:issue_iid', 'Issue', (req) => {
    const { project, issue } = findIssue(ctx, req);
    return { project, item: issue };
  });
}
