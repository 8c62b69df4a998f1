// What changing an issue or merge request shares (beyond the spec: the Issues, Merge requests and Notes APIs, v4):
// label changes (labels replaces, add_labels / remove_labels adjust; each change records label events through
// setLabels), people, and notes — user comments and the system notes the service writes for state changes.
import { z } from 'zod';
import { validationError } from '../../core/errors.js';
import { paginate } from '../../core/paginate.js';
import { param } from '../../core/params.js';
import type { Reply, SandboxRequest } from '../../core/router.js';
import type { Project, Store, User } from '../../core/store.js';
import { userBasic } from '../../core/views.js';
import { splitNames } from './shared.js';
import { setLabels, workItemsOf, type Issue, type LabelEventResource, type MergeRequest, type Note } from './state.js';

export const labelChangeShape = {
  labels: z.string().optional(),
  add_labels: z.string().optional(),
  remove_labels: z.string().optional(),
};

export const noteListParams = z.object({
  sort: param.enum(['asc', 'desc']).optional(),
  order_by: param.enum(['created_at', 'updated_at']).optional(),
});

export const noteCreateParams = z.object({ body: z.string() });

/** labels (replaces all, '' clears), then add_labels and remove_labels; records label events when anything changes. */
export function changeLabels(
  store: Store, resource: LabelEventResource & { kind: 'Issue' | 'MergeRequest' }, params: z.output<z.ZodObject<typeof labelChangeShape>>,
  user: User, at: Date,
): void {
  if (params.labels === undefined && params.add_labels === undefined && params.remove_labels === undefined) return;
  let names = params.labels === undefined ? [...resource.item.labels] : splitNames(params.labels);
  if (params.add_labels !== undefined) {
    for (const name of splitNames(params.add_labels)) if (!names.some((n) => n.toLowerCase() === name.toLowerCase())) names.push(name);
  }
  if (params.remove_labels !== undefined) {
    const gone = splitNames(params.remove_labels).map((n) => n.toLowerCase());
    names = names.filter((n) => !gone.includes(n.toLowerCase()));
  }
  setLabels(store, resource, names, user, at);
}

/** Known user ids only (the service drops unknown ones); an empty list or [0] clears. */
export function userIds(store: Store, ids: readonly number[]): number[] {
  return [...new Set(ids.filter((id) => id !== 0 && store.findUser(String(id)) !== undefined))];
}

export function addNote(store: Store, project: Project, item: Issue | MergeRequest, kind: Note['noteable_type'], author: User, body: string, system: boolean, at = new Date()): Note {
  const note: Note = {
    id: store.nextId('note'), noteable_type: kind, noteable_id: item.id, noteable_iid: item.iid, project_id: project.id,
    author_id: author.id, body, system, created_at: at, updated_at: at,
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
    confidential: false,
    internal: false,
  };
}

/** GET …/notes: newest first by default, by created_at or updated_at, offset pages. */
export function replyNotes(
  store: Store, req: SandboxRequest<z.output<typeof noteListParams>>, reply: Reply, kind: Note['noteable_type'], item: Issue | MergeRequest,
): void {
  const notes = workItemsOf(store).notes.filter((n) => n.noteable_type === kind && n.noteable_id === item.id);
  const key = req.params.order_by ?? 'created_at';
  const sign = (req.params.sort ?? 'desc') === 'asc' ? 1 : -1;
  notes.sort((a, b) => (a[key].getTime() - b[key].getTime() || a.id - b.id) * sign);
  reply.json(paginate(req, reply, notes).map((note) => noteView(store, note)));
}

/** A blank body is the service's model error. */
export function noteBody(body: string): string {
  if (body.trim() === '') throw validationError({ note: ["can't be blank"] });
  return body;
}
