// Helpers shared by operations' chat presentations: read the service's loosely shaped data without ever throwing.

export type Fields = Record<string, unknown>;

/** Whether a value is an object of fields (not null, not an array). */
export function isRecord(value: unknown): value is Fields {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** An object as a field map; anything else (null, arrays, strings) reads as an empty one. */
export function asRecord(data: unknown): Fields {
  return isRecord(data) ? data : {};
}

/** A list as field maps; a non-list reads as empty, so a surprising answer still renders. */
export function asList(data: unknown): Fields[] {
  return Array.isArray(data) ? data.map(asRecord) : [];
}

/** The field that names a thing, most telling first: a project's full path before its short name. */
export const NAME_KEYS = [
  'path_with_namespace',
  'title',
  'name',
  'username',
  'tag_name',
  'file_path',
  'new_path',
  'path',
  'key',
  'email',
];

function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/** A nested record by its name (an author → "erin", a milestone → its title), or undefined when it has none. */
export function nameOfRecord(value: unknown): string | number | boolean | undefined {
  const record = asRecord(value);
  const key = NAME_KEYS.find((k) => isScalar(record[k]) && record[k] !== '');
  // A person is known by their username, the handle every filter and mention takes.
  const chosen = isScalar(record.username) ? 'username' : key;
  return chosen ? (record[chosen] as string | number | boolean) : undefined;
}

/** An unnamed record shows this many of its short fields on one line, then an ellipsis. */
const SUMMARY_PAIRS = 4;
/** A text inside a one-line summary: its first line, at most this long. */
const SUMMARY_TEXT_CHARS = 60;
/** Links and pictures say nothing on a line of words. */
const SUMMARY_SKIPPED = /(?:^_links$|_url$)/;

function summaryText(text: string): string {
  const line = text.trim().split('\n', 1)[0];
  return line.length <= SUMMARY_TEXT_CHARS && line.length === text.trim().length
    ? line
    : `${line.slice(0, SUMMARY_TEXT_CHARS)}…`;
}

/** A list in words: its values or its items' names, comma-separated; items without a name are counted. */
function showList(items: readonly unknown[]): string {
  if (items.length === 0) return '—';
  const names = items.map((item) => (isScalar(item) ? item : nameOfRecord(item)));
  if (names.every((name) => name !== undefined)) return names.map(String).join(', ');
  return countOf(items, 'item');
}

/** A record in words: its name, else its first short fields as "key: value" (nested ones by name, lists counted). */
function showRecord(record: Fields): string {
  const name = nameOfRecord(record);
  if (name !== undefined) return String(name);
  const pairs: string[] = [];
  for (const [key, value] of Object.entries(record)) {
    if (value === null || value === undefined || value === '' || SUMMARY_SKIPPED.test(key)) continue;
    const shown =
      typeof value === 'string'
        ? summaryText(value)
        : isScalar(value)
          ? String(value)
          : Array.isArray(value)
            ? value.length > 0 && value.every(isScalar)
              ? summaryText(value.join(', '))
              : countOf(value, 'item')
            : nameOfRecord(value);
    if (shown !== undefined) pairs.push(`${key}: ${String(shown)}`);
  }
  if (pairs.length === 0) return '—';
  return pairs.length > SUMMARY_PAIRS ? `${pairs.slice(0, SUMMARY_PAIRS).join(', ')}, …` : pairs.join(', ');
}

/**
 * A value as it should read in chat: missing and null become '—', numbers sent as strings stay as sent; a list or
 * a record reads as words (names, "key: value"), never as JSON.
 */
export function show(value: unknown): string {
  if (value === undefined || value === null || value === '') return '—';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (Array.isArray(value)) return showList(value);
  if (typeof value === 'object') return showRecord(value as Fields);
  return '—';
}

/** The first 8 characters of a commit SHA, as people quote them. */
export function shortSha(value: unknown): string {
  return typeof value === 'string' && value.length > 8 ? value.slice(0, 8) : show(value);
}

/**
 * A moment as people on call read it, in UTC, to the minute: "13:02 UTC" today, "2026-11-25 13:02 UTC" another day
 * (as triage says when a branch went red). Anything that is not a time reads as show() has it.
 */
export function momentText(value: unknown, now = Date.now()): string {
  const at = typeof value === 'string' || value instanceof Date ? new Date(value) : undefined;
  if (!at || Number.isNaN(at.getTime())) return show(value);
  const iso = at.toISOString();
  const day = iso.slice(0, 10);
  return `${day === new Date(now).toISOString().slice(0, 10) ? '' : `${day} `}${iso.slice(11, 16)} UTC`;
}

/** "3 pipelines" / "1 pipeline". */
export function countOf(items: readonly unknown[], noun: string): string {
  return `${items.length} ${noun}${items.length === 1 ? '' : /(?:ch|sh|s|x|z)$/.test(noun) ? 'es' : 's'}`;
}

/** A list as chat shows it: "3 pipelines" over one labelled line per item. */
export function presentList(
  noun: string,
  line: (item: Fields) => [string, string],
): (data: unknown) => { title: string; fields: Array<[string, string]> } {
  return (data) => {
    const items = asList(data);
    return { title: countOf(items, noun), fields: items.map(line) };
  };
}

/**
 * The service's access levels by name, as people say them and as every access-level field also takes them
 * (access-levels.ts); a field offers the names of its own numbers only (a protected branch: no_one … admin).
 */
export const ACCESS_LEVEL_NAMES: Record<string, string> = {
  0: 'no_one',
  5: 'minimal_access',
  10: 'guest',
  15: 'planner',
  20: 'reporter',
  30: 'developer',
  40: 'maintainer',
  50: 'owner',
  60: 'admin',
};
