// A list as an MCP result: compact rows, cut to fit the result cap, and a page state that says truthfully what was
// shown and which exact call (page, per_page) reads on; a list of one item is shown whole.
import type { Operation, OperationRoute, PageInfo } from '../operations/engine/define.js';
import { isRecord } from '../operations/engine/present.js';
import { compactRow, detailToolOf } from '../operations/engine/rows.js';
import { callFrom, type NextCall } from '../operations/engine/paging.js';

/** Room kept for the page state and the notes next to the items. */
const NOTES_RESERVE_CHARS = 800;
/** The share of a small cap given to the notes at most, so a small cap still shows items. */
const NOTES_RESERVE_SHARE = 0.25;
/** The service's page size when none was asked for. */
const DEFAULT_PER_PAGE = 20;

/**
 * How many rows, from the start, fit in `maxChars` of a JSON array (at least one: a result never shows nothing), and
 * when all of them do, that array's JSON: each row is serialized once, to be measured and then reused as the text.
 */
function fittingRows(rows: readonly unknown[], maxChars: number): { shown: number; json?: string } {
  const parts: string[] = [];
  let used = 2;
  for (let i = 0; i < rows.length; i++) {
    // As an array writes it: what JSON has no form for (undefined) is null.
    const part = JSON.stringify(rows[i]) ?? 'null';
    used += part.length + 1;
    if (used > maxChars) return { shown: Math.max(1, i) };
    parts.push(part);
  }
  return { shown: rows.length, json: `[${parts.join(',')}]` };
}

interface ListState {
  page: Record<string, unknown>;
  more?: string;
  truncated?: string;
}

/** The page state of a list of which `shown` of `read` items are shown; `offset` lists only have page numbers. */
function listState(
  input: Record<string, unknown>,
  info: PageInfo | undefined,
  shown: number,
  read: number,
  numbered: boolean,
  paged: boolean,
): ListState {
  const cut = shown < read;
  const hasMore = (info?.has_more ?? false) || cut;
  const firstPage = info?.page ?? (typeof input.page === 'number' ? input.page : 1);
  const perPage = info?.per_page ?? (typeof input.per_page === 'number' ? input.per_page : DEFAULT_PER_PAGE);
  const page: Record<string, unknown> = {
    ...(numbered ? { page: firstPage, per_page: perPage } : {}),
    ...(info?.total !== undefined ? { total: info.total } : {}),
    ...(info?.total_pages !== undefined ? { total_pages: info.total_pages } : {}),
    has_more: hasMore,
    ...(info && info.pages_fetched > 1 ? { pages_fetched: info.pages_fetched } : {}),
  };
  const state: ListState = { page };
  const start = numbered ? (firstPage - 1) * perPage : 0;
  if (cut) {
    const beyond = info?.has_more ? ', and the list goes on after them' : ', and the list ends after them';
    state.truncated =
      `showing the first ${shown} of the ${read} results read (list positions ${start + 1}-${start + shown}) to stay ` +
      `within the result size limit; ${read - shown} more were read but not shown${beyond}`;
  }
  // A list without pages (the whole list in one answer) has no call that reads on: the note above says what was left out.
  if (!hasMore || !paged) return state;
  const narrow = input.all_pages === true ? '; or narrow the list with its filters' : '';
  if (!numbered) {
    state.more = cut
      ? 'the rest cannot be addressed by page number here: narrow the list with its filters, or ask for a smaller per_page'
      : 'more results exist: all_pages=true with a higher max_items reads on, or narrow the list with its filters';
    return state;
  }
  // From exactly the first result not shown; a cut list asks for pages no bigger than what fitted.
  const offset = start + shown;
  const pageSize = cut ? shown : perPage;
  const next = callFrom(offset, pageSize);
  page.next = next;
  state.more =
    `to read on from list position ${offset + 1}, call again with page=${next.page}, per_page=${next.per_page}` +
    `${roundPageAlternative(offset, pageSize, next)}${narrow}`;
  return state;
}

/** When the exact call needs small pages, the page of the usual size that starts a few results earlier. */
function roundPageAlternative(offset: number, pageSize: number, exact: NextCall): string {
  if (exact.per_page === pageSize) return '';
  const earlier = offset % pageSize;
  return ` (or page=${Math.floor(offset / pageSize) + 1}, per_page=${pageSize}, which starts ${earlier} result${earlier === 1 ? '' : 's'} earlier)`;
}

/** How a model reads one listed item whole, when the rows leave fields out. */
function wholeItemHint(op: Operation, operations: readonly OperationRoute[], numbered: boolean): string | undefined {
  const detail = detailToolOf(op, operations);
  if (detail)
    return `rows hold the main fields; ${detail.tool} with ${detail.parameter} = an item's ${detail.field} gives the whole item`;
  return numbered ? 'rows hold the main fields; per_page=1 with page=<list position> gives that item whole' : undefined;
}

/** Whether `row` shows less than `item`: fewer fields tell at once (the usual case), else their JSON is compared. */
function leftOut(row: unknown, item: unknown): boolean {
  if (row === item) return false;
  if (isRecord(row) && isRecord(item) && fieldCount(row) < fieldCount(item)) return true;
  return JSON.stringify(row) !== JSON.stringify(item);
}

/** Fields JSON would write: those whose value is not undefined. */
function fieldCount(record: Record<string, unknown>): number {
  let count = 0;
  for (const key in record) if (Object.hasOwn(record, key) && record[key] !== undefined) count++;
  return count;
}

interface ListContext {
  operation: Operation;
  operations: readonly OperationRoute[];
  input: Record<string, unknown>;
  maxChars: number;
}

/** A list's structured result, and its JSON when the rows were serialized whole on the way (reused, not redone). */
interface ListResult {
  structure: Record<string, unknown>;
  json?: string;
}

/** The structured result of a list: rows (or whole items), the page state, and what to call next. */
export function listStructure(items: readonly unknown[], info: PageInfo | undefined, ctx: ListContext): ListResult {
  const { operation: op, input } = ctx;
  // Keyset pages (the service's own, or list_projects' pagination=keyset) have no numbers to ask for.
  const numbered = op.pagination === 'offset' && input.pagination !== 'keyset';
  const readable = items.length > 1 ? wholeItemHint(op, ctx.operations, numbered) : undefined;
  const rows = readable ? items.map(compactRow) : items;
  // The hint only where a row did leave something out (a file tree's rows are its whole items).
  const hint = readable && rows.some((row, i) => leftOut(row, items[i])) ? readable : undefined;
  const reserve = Math.min(NOTES_RESERVE_CHARS, Math.floor(ctx.maxChars * NOTES_RESERVE_SHARE));
  const { shown, json: rowsJson } = fittingRows(rows, ctx.maxChars - reserve);
  const state = listState(input, info, shown, rows.length, numbered, op.pagination !== undefined);
  const notes = {
    ...(op.pagination ? { page: state.page } : {}),
    ...(state.truncated ? { truncated: state.truncated } : {}),
    ...(state.more ? { more: state.more } : {}),
    ...(hint ? { rows: hint } : {}),
  };
  const structure = { items: rows.slice(0, shown), ...notes };
  if (rowsJson === undefined) return { structure };
  // Exactly JSON.stringify(structure): items come first, then the notes.
  const notesJson = JSON.stringify(notes);
  return { structure, json: `{"items":${rowsJson}${notesJson === '{}' ? '}' : `,${notesJson.slice(1)}`}` };
}
