// String numerals → numbers where a schema wants a number: models often send "pipeline_id": "2" for an integer.
import type { z } from 'zod';
import { ownEntry } from '../../text/own-key.js';
import { isRecord } from './present.js';

/** Only an exact whole-number numeral is read as a number: "2x", "1.5", " 2" and "" stay strings and fail by name. */
const INTEGER_NUMERAL = /^-?\d+$/;

function numeralValue(value: unknown): number | undefined {
  if (typeof value !== 'string' || !INTEGER_NUMERAL.test(value)) return undefined;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** The parts of a zod definition this walk reads; every wrapper keeps its inner schema under one of these names. */
interface SchemaDef {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  options?: z.ZodType[];
  valueType?: z.ZodType;
}

const defOf = (schema: z.ZodType): SchemaDef => (schema as unknown as { _zod: { def: SchemaDef } })._zod.def;

/** Wrappers that accept what their inner schema accepts (optional, nullable, default, …). */
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional']);

/**
 * `value` with every string numeral turned into a number where `schema` wants a number there: at the top, inside
 * wrappers, arrays, objects, records and unions (a union takes a numeral only when none of its options accepts the
 * string as it is: a project id "42" may be a path). The input is never changed: without a numeral in it, it is the
 * answer; otherwise the answer is new objects and arrays.
 */
export function coerceNumerals(schema: z.ZodType, value: unknown): unknown {
  // Most calls hold no numeral at all (a project path, numbers already numbers): then there is nothing to turn, and
  // the walk below (which tries a union's options one by one) is not paid.
  return holdsNumeral(value) ? coerceWithin(schema, value) : value;
}

/** Nesting looked into for numerals; deeper, the schema's own walk decides (it goes no deeper than the schema). */
const MAX_LOOK_DEPTH = 32;

/** Whether a string numeral may stand anywhere in `value` (said yes beyond MAX_LOOK_DEPTH). */
function holdsNumeral(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return INTEGER_NUMERAL.test(value);
  if (depth > MAX_LOOK_DEPTH) return true;
  if (Array.isArray(value)) return value.some((item) => holdsNumeral(item, depth + 1));
  if (isRecord(value)) {
    for (const key in value) if (Object.hasOwn(value, key) && holdsNumeral(value[key], depth + 1)) return true;
  }
  return false;
}

function coerceWithin(schema: z.ZodType, value: unknown): unknown {
  const def = defOf(schema);
  if (WRAPPERS.has(def.type) && def.innerType) return coerceWithin(def.innerType, value);
  switch (def.type) {
    case 'number':
      return numeralValue(value) ?? value;
    case 'pipe':
      return def.in ? coerceWithin(def.in, value) : value;
    case 'array':
      return Array.isArray(value) && def.element ? value.map((item) => coerceWithin(def.element!, item)) : value;
    case 'object':
      return isRecord(value) && def.shape ? coerceEntries(value, (key) => ownEntry(def.shape!, key)) : value;
    case 'record':
      return isRecord(value) && def.valueType ? coerceEntries(value, () => def.valueType) : value;
    case 'union':
      return coerceUnion(def.options ?? [], value);
    default:
      return value;
  }
}

function coerceEntries(
  value: Record<string, unknown>,
  schemaOf: (key: string) => z.ZodType | undefined,
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => {
      const schema = schemaOf(key);
      return [key, schema ? coerceWithin(schema, item) : item];
    }),
  );
}

function coerceUnion(options: z.ZodType[], value: unknown): unknown {
  if (options.some((option) => option.safeParse(value).success)) return value;
  for (const option of options) {
    const coerced = coerceWithin(option, value);
    if (coerced !== value && option.safeParse(coerced).success) return coerced;
  }
  return value;
}
