// Path templates, query strings and form bodies in the service's wire conventions (every path value encoded, key[]= arrays, key[sub]= hashes).
import type { QueryParams } from './types.js';

export const API_PREFIX = '/api/v4';
export const SCIM_PREFIX = '/api/scim/';

/** A request path as it sits under the service address: SCIM paths as they are, everything else under /api/v4. */
export function servicePath(path: string): string {
  return path.startsWith(SCIM_PREFIX) ? path : `${API_PREFIX}${path}`;
}

// The same parameter spelling as pathParamNames() in operations/engine/define.ts, so both read a template alike.
const SEGMENT_PARAM = /:([a-z_]+)/g;
const OPTIONAL_SUFFIX = /\[\.([a-z_]+)\]$/;

/**
 * Fills a path template as written in endpoints.tsv ('/projects/:id/repository/archive[.format]').
 * Every value is encoded as one segment, so 'group/sub/app' becomes 'group%2Fsub%2Fapp'.
 */
export function buildPath(template: string, values: Record<string, unknown>): string {
  const suffix = OPTIONAL_SUFFIX.exec(template);
  let path = suffix ? template.slice(0, suffix.index) : template;
  path = path.replace(SEGMENT_PARAM, (_match, name: string) => {
    const value = pathValue(name, ownValue(values, name));
    if (value === undefined) throw new Error(`missing path parameter '${name}'`);
    return encodeURIComponent(value);
  });
  if (suffix) {
    const value = pathValue(suffix[1], ownValue(values, suffix[1]));
    if (value !== undefined) path += `.${encodeURIComponent(value)}`;
  }
  return path;
}

function ownValue(values: Record<string, unknown>, name: string): unknown {
  return Object.hasOwn(values, name) ? values[name] : undefined;
}

/** The text of one path value, or undefined when it is absent or empty. */
function pathValue(name: string, value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  // URL parsers resolve '.' and '..' segments even when encoded: such a value would aim at another endpoint.
  if (value === '.' || value === '..') throw new Error(`path parameter '${name}' cannot be '${value}'`);
  if (typeof value === 'string') return value;
  if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'bigint') return String(value);
  throw new Error(`path parameter '${name}' must be a string or a number, got ${describe(value)}`);
}

/** The query string (without '?') for a request; see flattenParams for the rules. */
export function serializeQuery(query: QueryParams): string {
  return flattenParams(query, 'query');
}

/** An application/x-www-form-urlencoded body, with the same bracket rules as query strings. */
export function encodeForm(body: Record<string, unknown>): string {
  if (!isPlainObject(body)) throw new Error(`form body must be an object, got ${describe(body)}`);
  return flattenParams(body, 'form body');
}

/**
 * key=value pairs in the bracket notation the service reads: arrays as key[]=a&key[]=b, objects as key[sub]=v,
 * arrays of objects as key[][sub]=v. undefined is left out (so are empty arrays and objects: there is no way
 * to write them in this notation that the service reads as empty); null is sent as an empty value.
 */
function flattenParams(params: Record<string, unknown>, what: string): string {
  const pairs: string[] = [];
  const visit = (key: string, label: string, value: unknown): void => {
    if (value === undefined) return;
    if (Array.isArray(value)) {
      for (const item of value) visit(`${key}[]`, `${label}[]`, item);
    } else if (isPlainObject(value)) {
      for (const [sub, item] of Object.entries(value))
        visit(`${key}[${encodeURIComponent(sub)}]`, `${label}[${sub}]`, item);
    } else {
      pairs.push(`${key}=${encodeURIComponent(scalarText(label, value, what))}`);
    }
  };
  for (const [key, value] of Object.entries(params)) visit(encodeURIComponent(key), key, value);
  return pairs.join('&');
}

function scalarText(label: string, value: unknown, what: string): string {
  if (value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'bigint') return String(value);
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value.toISOString();
  throw new Error(`${what} field '${label}' cannot be sent: ${describe(value)}`);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function describe(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (value instanceof Date) return 'an invalid date';
  return value === null
    ? 'null'
    : `a value of type ${typeof value === 'object' ? (value.constructor?.name ?? 'object') : typeof value}`;
}
