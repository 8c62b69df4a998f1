// What people need of a listed item, shared by every front end: the fields that name a thing, the links a reader
// can do without, and an item as one compact row (ids kept, nested records reduced to their names, prose cut).
import type { OperationRoute } from './define.js';
import { asRecord, NAME_KEYS, nameOfRecord, type Fields } from './present.js';

export { NAME_KEYS, nameOfRecord };
/** Links and pictures: a person follows the item's own link, a model asks for the item. */
export const LINK_KEYS = new Set(['web_url', 'avatar_url', '_links']);
/** Facts worth a place on an item's line after its name (chat), and in its row (MCP). */
export const ITEM_DETAIL_KEYS = ['status', 'state', 'ref', 'type', 'author_name'];
/**
 * Besides ids, names and details, the fields a row keeps: who, what it is labelled, where it points, when.
 * Anything else (settings, counters, links) is one get_ call or one per_page=1 read away.
 */
const ROW_KEYS = new Set([
  ...NAME_KEYS,
  ...ITEM_DETAIL_KEYS,
  'id',
  'iid',
  'sha',
  'short_id',
  'slug',
  'full_path',
  'description',
  'labels',
  'assignees',
  'author',
  'owner',
  'user',
  'milestone',
  'source_branch',
  'target_branch',
  'draft',
  'merged_by',
  'visibility',
  'default_branch',
  'archived',
  'version',
  'package_type',
  'access_level',
  'expires_at',
  'value',
  'variable_type',
  'protected',
  'active',
  'entity_type',
  'action',
  'label',
  'mode',
  'commits',
  'additions',
  'deletions',
  'diff',
  'old_path',
  'new_file',
  'deleted_file',
  'renamed_file',
  'note',
  'size',
  'file_name',
  'created_at',
  'updated_at',
  'released_at',
  'due_date',
  'last_activity_at',
]);
/** Longest text kept whole in a row; a description or message beyond it is cut (its first line, up to this). */
const ROW_TEXT_CHARS = 160;

function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

function isLinkKey(key: string): boolean {
  return LINK_KEYS.has(key) || key.endsWith('_url') || key.endsWith('_url_to_repo');
}

/** Ids of related things (project_id, author_id) stay: they are what a follow-up call takes. */
function isRowKey(key: string): boolean {
  return ROW_KEYS.has(key) || key.endsWith('_id') || key.endsWith('_iid');
}

/** Label names from a list of names or of label records (with_labels_details). */
export function labelNamesOf(labels: unknown): string[] {
  if (!Array.isArray(labels)) return [];
  return labels.map((label) => (typeof label === 'string' ? label : String(nameOfRecord(label) ?? ''))).filter(Boolean);
}

/** Usernames of an item's assignees (or its single assignee). */
export function assigneesOf(item: Fields): string[] {
  const people = Array.isArray(item.assignees) && item.assignees.length > 0 ? item.assignees : [item.assignee];
  return people.map((p) => asRecord(p).username).filter((u): u is string => typeof u === 'string');
}

function rowText(text: string): string {
  // Most values are short and on one line: kept as they are, without copying them to compare.
  if (text.length <= ROW_TEXT_CHARS && !text.includes('\n') && !/\s$/.test(text)) return text;
  const firstLine = text.split('\n', 1)[0];
  return firstLine.length <= ROW_TEXT_CHARS && firstLine.length === text.trimEnd().length
    ? firstLine
    : `${firstLine.slice(0, ROW_TEXT_CHARS)}…`;
}

function rowValue(key: string, value: unknown): unknown {
  if (typeof value === 'string') return key === 'diff' ? value : rowText(value);
  if (isScalar(value)) return value;
  if (Array.isArray(value)) {
    const names = value.map((v) => (isScalar(v) ? v : nameOfRecord(v))).filter((v) => v !== undefined);
    return names.length > 0 ? names : undefined;
  }
  return nameOfRecord(value);
}

function rowOf(item: Fields, keep: (key: string) => boolean): Fields {
  const row: Fields = {};
  for (const [key, value] of Object.entries(item)) {
    if (!keep(key) || isLinkKey(key) || value === null || value === '' || (Array.isArray(value) && value.length === 0))
      continue;
    // One assignee repeats the first of the assignees.
    if (key === 'assignee' && Array.isArray(item.assignees)) continue;
    const shown = rowValue(key, value);
    if (shown !== undefined) row[key] = shown;
  }
  return row;
}

/**
 * One listed item as a compact row: its ids (so follow-up calls work), name, state, people, labels and dates,
 * nested records as their names, long text cut to its first line, links and empty fields left out. A diff stays
 * whole: it is the item. An item of a kind these fields do not describe keeps all its short fields.
 */
export function compactRow(item: unknown): unknown {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return item;
  const row = rowOf(item as Fields, isRowKey);
  const described = Object.keys(row).some((key) => !key.endsWith('id'));
  return described ? row : rowOf(item as Fields, () => true);
}

/** Where one listed item is read whole: the get_ tool under the list's own path, and the item field it takes. */
interface DetailTool {
  tool: string;
  parameter: string;
  /** The item field whose value goes in `parameter`. */
  field: string;
}

/** detailToolOf's answers, per registry. */
const detailTools = new WeakMap<readonly OperationRoute[], Map<OperationRoute, DetailTool | undefined>>();

/**
 * The read of one item of a list (list_pipelines → get_pipeline with pipeline_id = the item's id), found by route:
 * GET on the list's path plus one parameter segment. Remembered per registry: a list asks on every call, and a
 * registry does not change while it serves.
 */
export function detailToolOf(list: OperationRoute, operations: readonly OperationRoute[]): DetailTool | undefined {
  let known = detailTools.get(operations);
  if (!known) {
    known = new Map();
    detailTools.set(operations, known);
  }
  if (!known.has(list)) known.set(list, findDetailTool(list, operations));
  return known.get(list);
}

function findDetailTool(list: OperationRoute, operations: readonly OperationRoute[]): DetailTool | undefined {
  const under = `${list.path}/:`;
  const get = operations.find(
    (op) =>
      op.method === 'GET' &&
      op.response === 'json' &&
      op.path.startsWith(under) &&
      op.pathParams.length === list.pathParams.length + 1 &&
      !op.path.slice(under.length).includes('/'),
  );
  if (!get) return undefined;
  const parameter = get.pathParams[get.pathParams.length - 1];
  const field = parameter.endsWith('_iid') ? 'iid' : ['tag_name', 'key', 'slug'].includes(parameter) ? parameter : 'id';
  return { tool: get.name, parameter, field };
}
