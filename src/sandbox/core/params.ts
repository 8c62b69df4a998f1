// Request parameters as the service reads them: bracket-syntax decoding (key[]=, key[sub]=, key[][sub]=), coercing
// zod helpers, unknown names ignored (and reported), null read as absent, and the framework error texts.
import { z } from 'zod';
import { paramError } from './errors.js';

type ParamTree = Record<string, unknown>;

/**
 * A tree with no prototype: a parameter named `constructor`, `toString` or `__proto__` is a name like any other (ignored
 * as unknown, or a hash's key: custom_attributes[constructor]), as on the service, never an inherited property.
 */
function emptyTree(): ParamTree {
  return Object.create(null) as ParamTree;
}

/**
 * Decodes name/value pairs with the Rack bracket rules the service uses for query strings and form bodies:
 * `a=1`, `a[]=1&a[]=2`, `a[b]=1`, `a[][b]=1&a[][c]=2&a[][b]=3` (a new array element starts when the key
 * repeats). A plain key given twice keeps the last value.
 */
export function decodeBracketParams(pairs: Iterable<[string, unknown]>): ParamTree {
  const tree = emptyTree();
  for (const [key, value] of pairs) assignBracketKey(tree, key, value, key);
  return tree;
}

function assignBracketKey(target: ParamTree, key: string, value: unknown, fullKey: string): void {
  const open = key.indexOf('[');
  const name = open === -1 ? key : key.slice(0, open);
  const rest = open === -1 ? '' : key.slice(open);
  if (name === '' && rest === '') return;
  const existing = target[name];
  const typeClash = () => paramError(`${fullKey} does not have a valid value`);
  if (rest === '') {
    target[name] = value;
  } else if (rest === '[]') {
    if (existing === undefined) target[name] = [value];
    else if (Array.isArray(existing)) existing.push(value);
    else throw typeClash();
  } else if (rest.startsWith('[][')) {
    const childKey = rest.slice(3).replace(']', '');
    const list = existing === undefined ? (target[name] = []) : existing;
    if (!Array.isArray(list)) throw typeClash();
    const last = list[list.length - 1];
    if (isTree(last) && !hasBracketKey(last, childKey)) assignBracketKey(last, childKey, value, fullKey);
    else {
      const element = emptyTree();
      assignBracketKey(element, childKey, value, fullKey);
      list.push(element);
    }
  } else {
    const close = rest.indexOf(']');
    if (!rest.startsWith('[') || close === -1) throw typeClash();
    const childKey = rest.slice(1, close) + rest.slice(close + 1);
    const child = existing === undefined ? (target[name] = emptyTree()) : existing;
    if (!isTree(child)) throw typeClash();
    assignBracketKey(child, childKey, value, fullKey);
  }
}

function isTree(value: unknown): value is ParamTree {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !Buffer.isBuffer(value);
}

function hasBracketKey(tree: ParamTree, key: string): boolean {
  const names = key.split(/[[\]]+/).filter((part) => part !== '');
  let node: unknown = tree;
  for (const name of names) {
    if (!isTree(node) || !(name in node)) return false;
    node = node[name];
  }
  return true;
}

/** Parses a query string or an x-www-form-urlencoded body. */
export function decodeQueryString(text: string): ParamTree {
  return decodeBracketParams(new URLSearchParams(text).entries());
}

// The service's boolean coercion, which any client may rely on: clients send more than 'true'/'false' — Python's requests writes
// True/False — and the service reads these words; anything else is "does not have a valid value".
const TRUE_WORDS = new Set(['true', 'True', '1', 't', 'yes', 'on']);
const FALSE_WORDS = new Set(['false', 'False', '0', 'f', 'no', 'off']);
const DATETIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * Parameter types that accept both JSON values and the strings a query string or form carries.
 * Use z.strictObject for nested objects so that unknown nested keys are found (and ignored) as well.
 */
export const param = {
  string: () => z.string(),
  /** true/false; as a string (query, form or JSON) also true/false/1/0/True/False/t/f/yes/no/on/off. */
  boolean: () =>
    z.preprocess(
      (v) =>
        typeof v === 'string' && TRUE_WORDS.has(v) ? true : typeof v === 'string' && FALSE_WORDS.has(v) ? false : v,
      z.boolean(),
    ),
  integer: () => z.preprocess((v) => (typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v), z.number().int()),
  /** An ISO 8601 date or date-time, given to the handler as a Date. */
  datetime: () =>
    z
      .string()
      .refine((s) => DATETIME.test(s) && !Number.isNaN(Date.parse(s)))
      .transform((s) => new Date(s)),
  enum: <const T extends readonly [string, ...string[]]>(values: T) => z.enum(values),
  /** key[]=a&key[]=b in a query or form; a JSON array in a body. */
  array: <T extends z.ZodType>(item: T) => z.array(item),
  /**
   * key[sub]=value pairs, e.g. custom_attributes[team]=payments. Not z.record, which drops a key named __proto__
   * without a word: the service reads it as one more name (that no record has).
   */
  hash: () =>
    z.custom<Record<string, string>>(
      (value) => isTree(value) && Object.values(value).every((item) => typeof item === 'string'),
    ),
};

/**
 * Optional parameters of one type, each name written once: `...optionalParams(param.boolean, 'owned', 'starred')` in
 * a z.object shape. In the order named: a route names the first wrong parameter in its shape's order.
 */
export function optionalParams<T extends z.ZodType, const Names extends readonly string[]>(
  type: () => T,
  ...names: Names
): { [Name in Names[number]]: z.ZodOptional<T> } {
  return Object.fromEntries(names.map((name) => [name, type().optional()])) as {
    [Name in Names[number]]: z.ZodOptional<T>;
  };
}

/** Grape-style parameter names: ['assets', 'links', 0, 'name'] → 'assets[links][0][name]'. */
function bracketName(path: readonly PropertyKey[]): string {
  const [first, ...rest] = path.map(String);
  return (first ?? '') + rest.map((part) => `[${part}]`).join('');
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let node = input;
  for (const key of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}

/** Turns zod issues into the service's framework error text, several errors joined with ', '. */
function describeIssues(issues: readonly z.core.$ZodIssue[], input: unknown): string {
  const messages: string[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) messages.push(`${bracketName([...issue.path, key])} is not a known parameter`);
    } else if (issue.code === 'custom' && issue.message && issue.message !== 'Invalid input') {
      messages.push(issue.path.length ? `${bracketName(issue.path)} ${issue.message}` : issue.message);
    } else if (valueAt(input, issue.path) === undefined) {
      messages.push(`${bracketName(issue.path)} is missing`);
    } else {
      messages.push(`${bracketName(issue.path)} does not have a valid value`);
    }
  }
  return [...new Set(messages)].join(', ');
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * The first string (value or key) holding a lone UTF-16 surrogate, as the path to it. JSON can carry them
 * ("\ud800"); they have no UTF-8 form, so git, Buffer.from and encodeURIComponent would each make something
 * else of them (or throw), and a value stored with one broke every later answer that showed it.
 */
function loneSurrogateAt(value: unknown, path: PropertyKey[] = []): PropertyKey[] | null {
  if (typeof value === 'string') return LONE_SURROGATE.test(value) ? path : null;
  if (typeof value !== 'object' || value === null || Buffer.isBuffer(value)) return null;
  for (const [key, child] of Object.entries(value)) {
    const childPath = [...path, Array.isArray(value) ? Number(key) : key];
    if (LONE_SURROGATE.test(key)) return childPath;
    const found = loneSurrogateAt(child, childPath);
    if (found !== null) return found;
  }
  return null;
}

export interface ParseOptions {
  /** Refuse unknown parameters with 400 "x is not a known parameter" instead of ignoring them. */
  strict?: boolean;
  /** Receives the bracket names of the unknown parameters, also when the parameters are refused otherwise. */
  unknown?: string[];
}

/** A copy of `tree` without the object keys at `paths` (copied along the paths only: Buffers stay Buffers). */
function omitPaths(tree: unknown, paths: ReadonlyArray<readonly PropertyKey[]>): unknown {
  if (typeof tree !== 'object' || tree === null || Buffer.isBuffer(tree)) return tree;
  const copy = (Array.isArray(tree) ? [...tree] : { ...tree }) as Record<PropertyKey, unknown>;
  const byHead = new Map<PropertyKey, Array<readonly PropertyKey[]>>();
  for (const [head, ...rest] of paths) byHead.set(head, [...(byHead.get(head) ?? []), rest]);
  for (const [head, rests] of byHead) {
    if (rests.some((rest) => rest.length === 0)) delete copy[head];
    else copy[head] = omitPaths(copy[head], rests);
  }
  return copy;
}

/**
 * Validates params against a schema; a failure is a 400 {"error": "..."}. As on the service, a key the schema
 * does not know is ignored (named in options.unknown; refused when options.strict) and an object key whose
 * value is null counts as absent (the default applies; a required one "is missing") unless the schema accepts
 * null. Strings must be well-formed UTF-16 whatever the schema says:
 * {"error": "tag_name is invalid: it contains a lone UTF-16 surrogate"}.
 */
export function parseParams<S extends z.ZodType>(schema: S, input: unknown, options: ParseOptions = {}): z.output<S> {
  const surrogateAt = loneSurrogateAt(input);
  if (surrogateAt !== null)
    throw paramError(`${bracketName(surrogateAt)} is invalid: it contains a lone UTF-16 surrogate`);
  // zod names every unknown key and every refused null in one pass; drop them and parse again, until only
  // real errors (or none) are left. Each pass removes at least one key, so this ends.
  let current = input;
  for (;;) {
    const result = schema.safeParse(current);
    if (result.success) return result.data;
    const { issues } = result.error;
    const nulls = issues
      .filter((issue) => typeof issue.path.at(-1) === 'string' && issue.code !== 'unrecognized_keys')
      .filter((issue) => valueAt(current, issue.path) === null)
      .map((issue) => issue.path);
    const unknown = issues.flatMap((issue) =>
      issue.code === 'unrecognized_keys' ? issue.keys.map((key) => [...issue.path, key]) : [],
    );
    if (nulls.length === 0) options.unknown?.push(...unknown.map(bracketName));
    if (nulls.length === 0 && (options.strict || unknown.length === 0))
      throw paramError(describeIssues(issues, current));
    current = omitPaths(current, nulls.length > 0 ? nulls : unknown);
  }
}

/**
 * The service's name search (branches, tags): part of the name, any case. As the service builds it, the first ^
 * anchors the start, the first $ the end, and every * matches any run of characters; the rest is literal.
 */
export function matchesSearch(name: string, search: string | undefined): boolean {
  if (search === undefined || search === '') return true;
  const escaped = search.toLowerCase().replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const pattern = escaped.replace('\\^', '^').replace(/\\\*/g, '.*?').replace('\\$', '$');
  return new RegExp(pattern, 's').test(name.toLowerCase());
}
