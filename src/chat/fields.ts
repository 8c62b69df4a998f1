// An operation's input fields as the chat sees them (read once from the JSON Schema of its zod input), and the
// typing of the text a person typed into the value each field expects.
import { z } from 'zod';
import type { Operation } from '../operations/engine/define.js';
import { ChatError } from './errors.js';

export interface JsonSchema {
  type?: string | string[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  description?: string;
}

type ValueKind = 'string' | 'number' | 'boolean' | 'array' | 'object';

export interface FieldInfo {
  name: string;
  required: boolean;
  description?: string;
  /** What the field accepts (every branch of a union). */
  kinds: Set<ValueKind>;
  /** What each element accepts, for list fields. */
  itemKinds: Set<ValueKind>;
  /** The allowed values of an enum or literal field. */
  values?: unknown[];
  /** How help names the type: "integer", "integer or string", "list of string", "one of asc, desc". */
  type: string;
  schema: JsonSchema;
}

function branches(schema: JsonSchema): JsonSchema[] {
  const union = schema.anyOf ?? schema.oneOf;
  return union ? union.flatMap(branches) : [schema];
}

function kindOfValue(value: unknown): ValueKind {
  return typeof value === 'number' ? 'number' : typeof value === 'boolean' ? 'boolean' : 'string';
}

function kindsOf(schema: JsonSchema | undefined): Set<ValueKind> {
  const kinds = new Set<ValueKind>();
  for (const branch of schema ? branches(schema) : []) {
    if (branch.enum) for (const v of branch.enum) kinds.add(kindOfValue(v));
    else if (branch.const !== undefined) kinds.add(kindOfValue(branch.const));
    for (const type of [branch.type ?? []].flat()) {
      if (type === 'integer' || type === 'number') kinds.add('number');
      else if (type === 'string' || type === 'boolean' || type === 'array' || type === 'object') kinds.add(type);
    }
  }
  return kinds;
}

function typeLabel(schema: JsonSchema): string {
  return branches(schema)
    .map((branch) => {
      const values = branch.enum ?? (branch.const !== undefined ? [branch.const] : undefined);
      if (values) return `one of ${values.join(', ')}`;
      const type = [branch.type ?? 'any'].flat().join(' or ');
      return type === 'array' ? `list of ${branch.items ? typeLabel(branch.items) : 'any'}` : type;
    })
    .join(' or ');
}

const cache = new WeakMap<Operation, FieldInfo[]>();

/** The operation's input fields, in schema order. */
export function fieldsOf(op: Operation): FieldInfo[] {
  let fields = cache.get(op);
  if (!fields) {
    const schema = z.toJSONSchema(op.input, { io: 'input' }) as JsonSchema;
    const required = new Set(schema.required ?? []);
    fields = Object.entries(schema.properties ?? {}).map(([name, field]) => {
      const values = branches(field).flatMap((b) => b.enum ?? (b.const !== undefined ? [b.const] : []));
      return {
        name,
        required: required.has(name),
        description: field.description,
        kinds: kindsOf(field),
        itemKinds: kindsOf(branches(field).find((b) => b.items)?.items),
        values: values.length > 0 ? values : undefined,
        type: typeLabel(field),
        schema: field,
      };
    });
    cache.set(op, fields);
  }
  return fields;
}

export function fieldOf(op: Operation, name: string): FieldInfo | undefined {
  return fieldsOf(op).find((f) => f.name === name);
}

// '#12' (an issue) and '!7' (a merge request) are how people write numbers that name things.
const NUMBER = /^[#!]?(\d+)$|^(-?\d+(?:\.\d+)?)$/;
const BOOLEANS: Record<string, boolean> = { true: true, yes: true, on: true, false: false, no: false, off: false };

/** One value typed as text: a number or boolean where the field takes one, else the text as it stands. */
function typeScalar(kinds: Set<ValueKind>, text: string): unknown {
  const number = NUMBER.exec(text);
  if (kinds.has('number') && number) return Number(number[1] ?? number[2]);
  if (kinds.has('boolean') && isBooleanWord(text)) return BOOLEANS[text.toLowerCase()];
  // Left as text: the schema's own check names the field and what it expected.
  return text;
}

/**
 * The value `text` stands for in `field`: JSON for list and object fields when it looks like JSON, comma lists
 * for unquoted lists of plain values, numbers and booleans where the field takes them.
 */
export function typeValue(field: FieldInfo, text: string, quoted: boolean): unknown {
  const structured = field.kinds.has('array') || field.kinds.has('object');
  if (structured && /^\s*[[{]/.test(text)) {
    try {
      return JSON.parse(text);
    } catch (error) {
      // A list of plain text may hold "[WIP]"; anything else was meant as JSON.
      if (!field.itemKinds.has('string') && !field.kinds.has('string')) {
        throw new ChatError(`${field.name}: not valid JSON (${(error as Error).message}).`);
      }
    }
  }
  if (field.kinds.has('array') && !field.kinds.has('string')) {
    const items = quoted
      ? [text]
      : text
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== '');
    return items.map((item) => typeScalar(field.itemKinds, item));
  }
  return typeScalar(field.kinds, text);
}

export function isBooleanWord(text: string): boolean {
  return Object.hasOwn(BOOLEANS, text.toLowerCase());
}

/** The boolean a word stands for (yes, off, true…), or undefined when it is not one. */
export function booleanWord(text: string): boolean | undefined {
  return isBooleanWord(text) ? BOOLEANS[text.toLowerCase()] : undefined;
}
