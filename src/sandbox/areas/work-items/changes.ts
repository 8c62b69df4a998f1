// What changing an issue or merge request shares (beyond the spec: the Issues, Merge requests and Notes APIs, v4):
// label changes (labels replaces, add_labels / remove_labels adjust, each a comma-separated string or an array;
// each change records label events through setLabels), who may change what, people, and notes — user comments and
// the system notes the service writes for state changes.
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { messageError, paramError } from '../../core/errors.js';
import { paginate } from '../../core/paginate.js';
import { param } from '../../core/params.js';
import { type Reply, type Router, type SandboxRequest, signedInList } from '../../core/router.js';
import { ACCESS, type Project, type Store, type User } from '../../core/store.js';
import { userBasic } from '../../core/views.js';
import { nameList, splitNames } from './shared.js';
import { setLabels, workItemsOf, type Issue, type LabelEventResource, type MergeRequest, type Note } from './state.js';

export const labelChangeShape = {
  labels: nameList().optional(),
  add_labels: nameList().optional(),
  remove_labels: nameList().optional(),
};

export const noteListParams = z.object({
  sort: param.enum(['asc', 'desc']).optional(),
  order_by: param.enum(['created_at', 'updated_at']).optional(),
  activity_filter: param.enum(['all_notes', 'only_comments', 'only_activity']).optional(),
});

export const noteCreateParams = z.object({
  body: z.string(),
  internal: param.boolean().optional(),
  /** Deprecated name of internal. */
  confidential: param.boolean().optional(),
  created_at: z.string().optional(),
  merge_request_diff_head_sha: z.string().optional(),
});

/**
 * The service's guest access to a project: its members (guest and up), and on a public or internal project any
 * signed-in user. It lets a person open issues and comment; it does not let them set an issue's metadata.
 */
export function hasGuestAccess(ctx: SandboxContext, user: User, project: Project): boolean {
  return ctx.projectAccess(user, project) >= ACCESS.guest || project.visibility !== 'private';
}

/**
 * What the service quietly drops from a create or update by someone who may not set an item's metadata (below
 * reporter on issues, below developer on merge requests): labels, people, milestone, due date and locking.
 */
export function withoutMetadata<T extends Record<string, unknown>>(params: T): T {
  const kept = { ...params };
  for (const key of [
    'labels',
    'add_labels',
    'remove_labels',
    'assignee_ids',
    'assignee_id',
    'reviewer_ids',
    'milestone_id',
    'due_date',
    'discussion_locked',
  ]) {
    delete kept[key];
  }
  return kept;
}

/** An update must name something to change (the service's framework error otherwise). */
export function requireOneOf(params: Record<string, unknown>, keys: readonly string[]): void {
  if (keys.some((key) => params[key] !== undefined)) return;
  throw paramError(`${keys.join(', ')} are missing, at least one parameter must be provided`);
}

/** labels (replaces all, '' or [] clears), then add_labels and remove_labels; records label events when anything changes. */
export function changeLabels(
  store: Store,
  resource: LabelEventResource & { kind: 'Issue' | 'MergeRequest' },
  params: z.output<z.ZodObject<typeof labelChangeShape>>,
  user: User,
  at: Date,
): void {
  if (params.labels === undefined && params.add_labels === undefined && params.remove_labels === undefined) return;
  let names = params.labels === undefined ? [...resource.item.labels] : splitNames(params.labels);
  if (params.add_labels !== undefined) {
    for (const name of splitNames(params.add_labels))
      if (!names.some((n) => n.toLowerCase() === name.toLowerCase())) names.push(name);
  }
  if (params.remove_labels !== undefined) {
    const gone = splitNames(params.remove_labels).map((n) => n.toLowerCase());
    names = names.filter((n) => !gone.includes(n.toLowerCase()));
  }
  setLabels(store, resource, names, user, at);
}

/** The next iid among one project's (or group's) items: one above the highest, so an imported iid is never reused. */
export function nextIid(items: ReadonlyArray<{ iid: number }>): number {
  return Math.max(0, ...items.map((item) => item.iid)) + 1;
}

/** What issues and merge requests take alike on create and update: people, milestone, locking, labels. */
export const itemFieldsShape = {
  description: z.string().optional(),
  ...labelChangeShape,
  assignee_id: param.integer().optional(),
  assignee_ids: param.array(param.integer()).optional(),
  milestone_id: param.integer().optional(),
};

interface ItemFields {
  title?: string;
  description?: string;
  assignee_ids?: number[];
  assignee_id?: number;
  milestone_id?: number;
  discussion_locked?: boolean;
}

/** assignee_ids, or the older single assignee_id; undefined when neither is given. */
function assigneesGiven(params: ItemFields): number[] | undefined {
  return params.assignee_ids ?? (params.assignee_id === undefined ? undefined : [params.assignee_id]);
}

/** A milestone id of the project's own, or null (the service drops another's). */
function milestoneIn(project: Project, id: number | undefined): number | null {
  return id !== undefined && project.milestones.some((m) => m.id === id) ? id : null;
}

/** The fields a new issue or merge request starts with, whichever it is (the caller adds its id and its own). */
export function openedItemFields(
  store: Store,
  project: Project,
  author: User,
  params: ItemFields & { title: string },
  iid: number,
  at: Date,
) {
  return {
    iid,
    project_id: project.id,
    title: params.title,
    description: params.description ?? '',
    state: 'opened' as const,
    author_id: author.id,
    assignee_ids: userIds(store, assigneesGiven(params) ?? []),
    labels: [],
    milestone_id: milestoneIn(project, params.milestone_id),
    created_at: at,
    updated_at: at,
    closed_at: null,
    closed_by_id: null,
    awards: [],
    user_notes_count: 0,
  };
}

/** The edits an issue and a merge request share: title, description, assignees, milestone, discussion locking. */
export function applyItemEdits(store: Store, project: Project, item: Issue | MergeRequest, params: ItemFields): void {
  if (params.title !== undefined) item.title = params.title;
  if (params.description !== undefined) item.description = params.description;
  const assignees = assigneesGiven(params);
  if (assignees !== undefined) item.assignee_ids = userIds(store, assignees);
  if (params.milestone_id !== undefined) item.milestone_id = milestoneIn(project, params.milestone_id);
  if (params.discussion_locked !== undefined) item.discussion_locked = params.discussion_locked;
}

/**
 * state_event close / reopen, each with its system note; `alsoOnClose` is what closing also resets (a merge
 * request's auto-merge), `beforeReopen` may refuse the reopening (a merge request that another open one duplicates).
 */
export function applyStateEvent(
  store: Store,
  project: Project,
  target: { kind: Note['noteable_type']; item: Issue | MergeRequest },
  event: { state_event?: 'close' | 'reopen'; user: User; at: Date },
  alsoOnClose: Partial<MergeRequest> = {},
  beforeReopen: () => void = () => undefined,
): void {
  const { kind, item } = target;
  const { user, at } = event;
  if (event.state_event === 'close' && item.state === 'opened') {
    Object.assign(item, { state: 'closed', closed_at: at, closed_by_id: user.id, ...alsoOnClose });
    addNote(store, project, item, kind, user, 'closed', true, at);
  }
  if (event.state_event === 'reopen' && item.state === 'closed') {
    beforeReopen();
    Object.assign(item, { state: 'opened', closed_at: null, closed_by_id: null });
    addNote(store, project, item, kind, user, 'reopened', true, at);
  }
}

/** Known user ids only (the service drops unknown ones); an empty list or [0] clears. */
export function userIds(store: Store, ids: readonly number[]): number[] {
  return [...new Set(ids.filter((id) => id !== 0 && store.findUser(String(id)) !== undefined))];
}

export function addNote(
  store: Store,
  project: Project,
  item: Issue | MergeRequest,
  kind: Note['noteable_type'],
  author: User,
  body: string,
  system: boolean,
  at = new Date(),
  internal = false,
): Note {
  const note: Note = {
    id: store.nextId('note'),
    noteable_type: kind,
    noteable_id: item.id,
    noteable_iid: item.iid,
    project_id: project.id,
    author_id: author.id,
    body,
    system,
    internal,
    created_at: at,
    updated_at: at,
  };
  workItemsOf(store).notes.push(note);
  if (!system) item.user_notes_count += 1;
  return note;
}

export function noteView(store: Store, note: Note) {
  const author = store.findUser(String(note.author_id));
  return {
    id: note.id,
    type: null,
    body: note.body,
    attachment: null,
    author: author ? userBasic(store, author) : null,
    created_at: note.created_at.toISOString(),
    updated_at: note.updated_at.toISOString(),
    system: note.system,
    noteable_id: note.noteable_id,
    noteable_type: note.noteable_type,
    project_id: note.project_id,
    noteable_iid: note.noteable_iid,
    resolvable: false,
    confidential: note.internal === true,
    internal: note.internal === true,
    imported: false,
    imported_from: 'none',
    commands_changes: {},
  };
}

/**
 * GET …/notes: newest first by default, by created_at or updated_at, offset pages; activity_filter keeps comments
 * or system notes only; internal notes only for reporters and up.
 */
export function replyNotes(
  ctx: SandboxContext,
  req: SandboxRequest<z.output<typeof noteListParams>>,
  reply: Reply,
  kind: Note['noteable_type'],
  item: Issue | MergeRequest,
  project: Project,
): void {
  const { store } = ctx;
  const filter = req.params.activity_filter ?? 'all_notes';
  const seesInternal = ctx.projectAccess(req.user, project) >= ACCESS.reporter;
  const notes = workItemsOf(store).notes.filter(
    (n) =>
      n.noteable_type === kind &&
      n.noteable_id === item.id &&
      (filter === 'all_notes' || n.system === (filter === 'only_activity')) &&
      (seesInternal || n.internal !== true),
  );
  const key = req.params.order_by ?? 'created_at';
  const sign = (req.params.sort ?? 'desc') === 'asc' ? 1 : -1;
  notes.sort((a, b) => (a[key].getTime() - b[key].getTime() || a.id - b.id) * sign);
  reply.json(paginate(req, reply, notes).map((note) => noteView(store, note)));
}

/** The most characters a note may have. */
const NOTE_LIMIT = 1_000_000;

/** A blank or too long body is refused as the service's notes API words it (a Ruby hash of the model's errors). */
function noteBody(body: string): string {
  if (body.trim() === '') throw messageError(400, '400 Bad request - Note {:note=>["can\'t be blank"]}');
  if ([...body].length > NOTE_LIMIT)
    throw messageError(400, `400 Bad request - Note {:note=>["is too long (maximum is ${NOTE_LIMIT} characters)"]}`);
  return body;
}

/**
 * Creates a comment as the notes API does: anyone who may read the item and has guest access to the project, a
 * locked discussion only its project's members; an archived project none. Internal notes take a reporter.
 */
export function commentOn(
  ctx: SandboxContext,
  req: SandboxRequest<z.output<typeof noteCreateParams>>,
  kind: Note['noteable_type'],
  item: Issue | MergeRequest,
  project: Project,
): Note {
  const user = ctx.requireUser(req);
  const member = ctx.projectAccess(user, project) >= ACCESS.guest;
  if (project.archived || !hasGuestAccess(ctx, user, project) || (item.discussion_locked === true && !member)) {
    throw messageError(403, '403 Forbidden');
  }
  const body = noteBody(req.params.body);
  const internal =
    (req.params.internal ?? req.params.confidential ?? false) && ctx.projectAccess(user, project) >= ACCESS.reporter;
  // created_at is an administrator's or an owner's to set (an import); anyone else's is ignored.
  const given = req.params.created_at === undefined ? Number.NaN : Date.parse(req.params.created_at);
  const at = ctx.projectAccess(user, project) >= ACCESS.owner && given > 0 ? new Date(given) : new Date();
  const note = addNote(ctx.store, project, item, kind, user, body, false, at, internal);
  item.updated_at = note.created_at;
  return note;
}

/** GET and POST `<itemPattern>/notes`: an item's comments, the item found by `find` through the caller's own view. */
export function registerNoteRoutes(
  router: Router,
  ctx: SandboxContext,
  itemPattern: string,
  kind: Note['noteable_type'],
  find: (req: SandboxRequest<unknown>) => { project: Project; item: Issue | MergeRequest },
): void {
  router.route('GET', `${itemPattern}/notes`, signedInList(noteListParams), (req, reply) => {
    const { project, item } = find(req);
    replyNotes(ctx, req, reply, kind, item, project);
  });

  router.route('POST', `${itemPattern}/notes`, { params: noteCreateParams, auth: 'user' }, (req, reply) => {
    const { project, item } = find(req);
    reply.json(noteView(ctx.store, commentOn(ctx, req, kind, item, project)), 201);
  });
}
