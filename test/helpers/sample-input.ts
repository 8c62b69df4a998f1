// A valid input for any operation, built from its own schema: the required fields (and one of each one_of rule)
// with the plainest value each type accepts. For tests that run every operation against a scripted service.
import { z } from 'zod';
import type { Operation } from '../../src/operations/engine/define.js';
import { validateInput } from '../../src/operations/engine/validate.js';

type Schema = Record<string, unknown>;

/** Values tried for a string, in order, until the operation's schema accepts one. */
const STRINGS = [
  'x',
  'main',
  'a/b',
  'x@example.com',
  'https://example.com/x',
  '2026-01-01T00:00:00Z',
  '2026-01-01',
  'abcdef1',
  'a'.repeat(40),
  'AA:BB',
  'X',
];
/** The first value for a string of a known format. */
const FORMATS: Record<string, string> = {
  email: 'x@example.com',
  uri: 'https://example.com/x',
  url: 'https://example.com/x',
  'date-time': '2026-01-01T00:00:00Z',
  date: '2026-01-01',
};

function candidates(schema: Schema | undefined): unknown[] {
  if (!schema) return ['x'];
  if (Array.isArray(schema.enum)) return schema.enum;
  if ('const' in schema) return [schema.const];
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(schema[key])) return (schema[key] as Schema[]).flatMap(candidates);
  }
  switch (schema.type) {
    case 'integer':
    case 'number': {
      const min =
        typeof schema.minimum === 'number'
          ? schema.minimum
          : typeof schema.exclusiveMinimum === 'number'
            ? schema.exclusiveMinimum + 1
            : 1;
      return [Math.max(min, 1), min];
    }
    case 'boolean':
      return [true, false];
    case 'array': {
      const items = candidates(schema.items as Schema);
      const count = typeof schema.minItems === 'number' ? Math.max(1, schema.minItems) : 1;
      return items.slice(0, 3).map((item) => Array.from({ length: count }, () => item));
    }
    case 'object':
      return [objectSample(schema)];
    case 'string': {
      const length = typeof schema.minLength === 'number' ? schema.minLength : 1;
      const all = [...STRINGS, 'x'.repeat(Math.max(1, length))];
      const pattern = typeof schema.pattern === 'string' ? new RegExp(schema.pattern) : undefined;
      const fitting = pattern ? all.filter((value) => pattern.test(value)) : [];
      const format = typeof schema.format === 'string' ? FORMATS[schema.format] : undefined;
      return [...(format ? [format] : []), ...fitting, ...all];
    }
    default:
      return ['x', 1, true];
  }
}

function objectSample(schema: Schema): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = (schema.required ?? []) as string[];
  return Object.fromEntries(required.map((key) => [key, candidates(properties[key])[0]]));
}

const accepts = (op: Operation, input: Record<string, unknown>) => {
  try {
    validateInput(op, input);
    return true;
  } catch {
    return false;
  }
};

/** A valid input for the operation, or undefined when the plain values do not make one. */
export function sampleInput(op: Operation): Record<string, unknown> | undefined {
  const schema = z.toJSONSchema(op.input, { io: 'input', unrepresentable: 'any' }) as Schema;
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const keys = new Set((schema.required ?? []) as string[]);
  for (const rule of op.rules ?? []) if (rule.kind === 'one_of') keys.add(rule.keys[0]);
  let input: Record<string, unknown> = {};
  for (const key of keys) input[key] = candidates(properties[key])[0];
  // Each field in turn takes the first value its schema accepts alone.
  for (const key of keys) {
    for (const value of candidates(properties[key])) {
      const tried = { ...input, [key]: value };
      if (accepts(op, tried)) return tried;
      const single = op.input.shape[key as keyof typeof op.input.shape] as z.ZodType | undefined;
      if (single?.safeParse(value).success) {
        input = tried;
        break;
      }
    }
  }
  return accepts(op, input) ? input : undefined;
}
