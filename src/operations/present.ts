// Helpers shared by operations' chat presentations: read the service's loosely shaped data without ever throwing.

export type Fields = Record<string, unknown>;

/** An object as a field map; anything else (null, arrays, strings) reads as an empty one. */
export function asRecord(data: unknown): Fields {
  return data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Fields) : {};
}

/** A list as field maps; a non-list reads as empty, so a surprising answer still renders. */
export function asList(data: unknown): Fields[] {
  return Array.isArray(data) ? data.map(asRecord) : [];
}

/** A value as it should read in chat: missing and null become '—', numbers sent as strings stay as sent. */
export function show(value: unknown): string {
  if (value === undefined || value === null || value === '') return '—';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** The first 8 characters of a commit SHA, as people quote them. */
export function shortSha(value: unknown): string {
  return typeof value === 'string' && value.length > 8 ? value.slice(0, 8) : show(value);
}

/** "3 pipelines" / "1 pipeline". */
export function countOf(items: readonly unknown[], noun: string): string {
  return `${items.length} ${noun}${items.length === 1 ? '' : /(?:ch|sh|s|x|z)$/.test(noun) ? 'es' : 's'}`;
}

/** A list as chat shows it: "3 pipelines" over one labelled line per item. */
export function presentList(noun: string, line: (item: Fields) => [string, string]): (data: unknown) => { title: string; fields: Array<[string, string]> } {
  return (data) => {
    const items = asList(data);
    return { title: countOf(items, noun), fields: items.map(line) };
  };
}

/** The service's access levels by name, as people say them. */
export const ACCESS_LEVEL_NAMES: Record<string, string> = { 10: 'guest', 20: 'reporter', 30: 'developer', 40: 'maintainer', 50: 'owner' };
