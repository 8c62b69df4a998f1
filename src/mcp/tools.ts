// Registry → MCP tool descriptors: name, title, description, JSON Schema from zod, annotations from effect.
import { z } from 'zod';
import {
  MAX_URL_VALUE_CHARS,
  PAGE_INPUT_KEYS,
  PROJECT_ID_DESCRIPTION,
  type Operation,
  type OperationRoute,
} from '../operations/engine/define.js';
import { DRY_RUN_KEY } from '../run/dry-run.js';
import { personKeys } from '../operations/engine/people.js';
import { outputSchemaFor } from './results.js';

/** MCP tool hints; each is sent only when it differs from the protocol's default (see toolAnnotations). */
interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
}

export interface ToolDescriptor {
  name: string;
  title: string;
  description: string;
  inputSchema: { type: 'object'; [key: string]: unknown };
  outputSchema?: { type: 'object'; [key: string]: unknown };
  /** Left out when every hint is the protocol's default. */
  annotations?: ToolAnnotations;
  /** Present on long waits, which a client that supports tasks may run as one. */
  execution?: { taskSupport: 'optional' };
}

/** The protocol's defaults: a tool is assumed to write, destructively, not idempotently, in an open world. */
export const ANNOTATION_DEFAULTS = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
} as const;

/**
 * The hints of an operation, without those equal to the protocol's defaults: every byte of tools/list is paid by
 * every assistant in every conversation. A write that is dangerous for some inputs (a commit that deletes files)
 * keeps the default destructiveHint.
 */
export function toolAnnotations(op: Operation): ToolAnnotations {
  if (op.effect === 'read') return { readOnlyHint: true };
  const destructive = op.effect === 'destructive' || op.needsApproval !== undefined;
  return {
    ...(destructive ? {} : { destructiveHint: false }),
    ...(op.idempotent ? { idempotentHint: true } : {}),
  };
}

/** The largest safe integer, which zod writes as every integer's bound: true of any JSON number a model sends. */
const SAFE_INTEGER = 9007199254740991;

/** Keywords that constrain only one JSON type: a branch made of them (and `type`) can join a type list. */
const TYPE_ONLY_KEYWORDS: Record<string, readonly string[]> = {
  integer: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  string: ['minLength', 'maxLength', 'pattern', 'format'],
  boolean: [],
};

/**
 * `anyOf: [{type: integer, minimum: 1}, {type: string}]` says the same as `type: [integer, string], minimum: 1`,
 * because numeric keywords ignore strings and string keywords ignore numbers: a project `id`, on most tools, costs
 * half as much. Merged only when every branch holds keywords of its own type alone and no keyword appears twice.
 */
function mergeTypeUnion(branches: unknown[]): Record<string, unknown> | undefined {
  const merged: Record<string, unknown> = {};
  const types: string[] = [];
  for (const branch of branches) {
    if (!branch || typeof branch !== 'object' || Array.isArray(branch)) return undefined;
    const { type, ...rest } = branch as Record<string, unknown>;
    if (typeof type !== 'string' || types.includes(type) || !(type in TYPE_ONLY_KEYWORDS)) return undefined;
    // integer and number share keywords: a bound of one would bind the other.
    if ((type === 'integer' && types.includes('number')) || (type === 'number' && types.includes('integer')))
      return undefined;
    for (const [key, value] of Object.entries(rest)) {
      if (!TYPE_ONLY_KEYWORDS[type].includes(key) || key in merged) return undefined;
      merged[key] = value;
    }
    types.push(type);
  }
  return { type: types, ...merged };
}

/** Whether `value` is of the JSON Schema type `type`. */
function isOfType(value: unknown, type: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number';
    case 'integer':
      return Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    default:
      return false;
  }
}

/**
 * `anyOf: [{type: number, enum: [10, 20]}, {type: string, enum: [guest, reporter]}]` says the same as
 * `enum: [10, 20, guest, reporter]`: an enum names every value it takes, so the types and the union add nothing
 * (an access level by number or by name, a protected branch's levels as consts). Merged only when every branch is
 * an enum or a const of its own type and nothing else.
 */
function mergeEnumUnion(branches: unknown[]): Record<string, unknown> | undefined {
  const values: unknown[] = [];
  for (const branch of branches) {
    if (!branch || typeof branch !== 'object' || Array.isArray(branch)) return undefined;
    const { type, enum: list, const: one, ...rest } = branch as Record<string, unknown>;
    const own = Array.isArray(list) ? list : one !== undefined ? [one] : undefined;
    if (!own || Object.keys(rest).length > 0 || (type !== undefined && !own.every((value) => isOfType(value, type))))
      return undefined;
    values.push(...own);
  }
  return { enum: values };
}

/**
 * The JSON Schema as published: what only repeats a default or restates the obvious is left out, while the zod
 * schema still enforces all of it (a value over MAX_URL_VALUE_CHARS is refused by name, before anything is sent):
 * integer bounds at ±2^53, the URL value cap, minLength 1 on strings, additionalProperties false below the top.
 * Unions become one enum or a type list where that says the same thing (see mergeEnumUnion, mergeTypeUnion).
 */
export function compactSchema(node: unknown, top = true): unknown {
  if (Array.isArray(node)) return node.map((item) => compactSchema(item, false));
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    if ((key === 'maximum' && value === SAFE_INTEGER) || (key === 'minimum' && value === -SAFE_INTEGER)) continue;
    if (key === 'maxLength' && value === MAX_URL_VALUE_CHARS) continue;
    if (key === 'minLength' && value === 1) continue;
    if (key === 'additionalProperties' && value === false && !top) continue;
    if (key === 'exclusiveMinimum' && value === 0 && (node as { type?: unknown }).type === 'integer') {
      out.minimum = 1;
      continue;
    }
    if (key === 'anyOf' && Array.isArray(value)) {
      const branches = value.map((branch) => compactSchema(branch, false));
      const merged = mergeEnumUnion(branches) ?? mergeTypeUnion(branches);
      if (merged) Object.assign(out, merged);
      else out.anyOf = branches;
      continue;
    }
    // Property names are data, not keywords: only their schemas are compacted.
    out[key] =
      key === 'properties' && value && typeof value === 'object'
        ? Object.fromEntries(Object.entries(value).map(([name, schema]) => [name, compactSchema(schema, false)]))
        : compactSchema(value, false);
  }
  return out;
}

/**
 * Descriptions the server's instructions give once for every tool (see SHARED_INPUTS_NOTE): a project `id` and the
 * paging inputs, which would otherwise be repeated on most tools. The field itself, its type and bounds stay.
 */
function dropSharedDescriptions(op: Operation, properties: Record<string, Record<string, unknown>>): void {
  for (const [name, schema] of Object.entries(properties)) {
    const shared =
      (name === 'id' && schema.description === PROJECT_ID_DESCRIPTION) ||
      (op.pagination !== undefined && (PAGE_INPUT_KEYS as readonly string[]).includes(name));
    if (shared) delete schema.description;
  }
}

/** `[a, b, c]` → "a, b or c". */
function wordList(words: string[]): string {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
}

/**
 * A person field (user_id, author_id, assignee_id, a user's own id: personKeys) also takes a username, `erin` or
 * `@erin`: the server looks it up before the zod schema sees the call (resolvePeople), so the published schema takes
 * a string too and says so. Words the field takes besides (assignee_id's None, Any) stay in the description.
 */
function acceptUsernames(op: Operation, properties: Record<string, Record<string, unknown>>): void {
  for (const key of personKeys(op)) {
    const schema = properties[key];
    const branches = (schema?.anyOf ?? [schema]) as Array<Record<string, unknown> | undefined>;
    const number = branches.find((branch) => [branch?.type].flat().includes('integer'));
    if (!schema || !number) continue;
    const words = branches.flatMap((branch) =>
      branch?.type === 'string' && Array.isArray(branch.enum) ? branch.enum.map(String) : [],
    );
    const said = typeof schema.description === 'string' ? schema.description : undefined;
    const description =
      said && /username/i.test(said)
        ? said
        : `${wordList([said ? said.replace(/\.$/, '') : 'ID', 'username', ...words])}.`;
    properties[key] = {
      type: ['integer', 'string'],
      ...(typeof number.minimum === 'number' ? { minimum: number.minimum } : {}),
      description,
    };
  }
}

/** What every tool leaves undescribed, said once (in the server's instructions). */
export const SHARED_INPUTS_NOTE =
  'An undescribed `id` is a project: its numeric ID or full path ("group/sub/app"); group tools say so. ' +
  'Times are ISO 8601. Lists read one page: page (from 1), per_page (default 20, at most 100); ' +
  'all_pages=true reads on through the pages up to max_items (default 500).';

/**
 * A tool that changes data also takes dry_run (see dry-run.ts). Only its type is published: the server instructions
 * explain it once, rather than every tool's schema repeating the same sentence.
 */
function withDryRun(op: Operation, schema: Record<string, unknown>): Record<string, unknown> {
  if (op.effect === 'read') return schema;
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  return { ...schema, properties: { ...properties, [DRY_RUN_KEY]: { type: 'boolean' } } };
}

const descriptorCache = new WeakMap<Operation, ToolDescriptor>();

/** Converted once per operation per process: tools/list is answered often and zod → JSON Schema is not free. */
export function toolDescriptor(op: Operation): ToolDescriptor {
  const cached = descriptorCache.get(op);
  if (cached) return cached;
  const schema = compactSchema(z.toJSONSchema(op.input, { io: 'input', unrepresentable: 'any' })) as Record<
    string,
    unknown
  >;
  delete schema.$schema;
  dropSharedDescriptions(op, (schema.properties ?? {}) as Record<string, Record<string, unknown>>);
  acceptUsernames(op, (schema.properties ?? {}) as Record<string, Record<string, unknown>>);
  const suffix = op.effect === 'destructive' ? ' A human approves it first.' : '';
  const descriptor: ToolDescriptor = {
    name: op.name,
    title: op.title,
    description: op.description + suffix,
    inputSchema: { ...withDryRun(op, schema), type: 'object' },
    ...(outputSchemaFor(op) ? { outputSchema: outputSchemaFor(op) } : {}),
    ...(op.longRunning ? { execution: { taskSupport: 'optional' as const } } : {}),
  };
  // A write that may be destructive has every hint at its default: an empty object says nothing.
  const annotations = toolAnnotations(op);
  if (Object.keys(annotations).length > 0) descriptor.annotations = annotations;
  descriptorCache.set(op, descriptor);
  return descriptor;
}

/** One tool as tools/list shows it, with the registry facts that decide whether it is offered and relate it to others. */
export interface CatalogTool extends Pick<Operation, 'name' | 'area' | 'effect'>, OperationRoute {
  descriptor: ToolDescriptor;
}
