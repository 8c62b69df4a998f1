// The published tool schemas say exactly what the registry's zod schemas say, only smaller: for every tool and
// every input field, the compact schema and zod's full JSON Schema accept and refuse the same values (a change's
// schema adds only dry_run, and a person field a username, which the server resolves first).
import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { z } from 'zod';
import { operations } from '../../../src/operations/index.js';
import { MAX_URL_VALUE_CHARS } from '../../../src/operations/engine/define.js';
import { toolDescriptor } from '../../../src/mcp/tools.js';
import { DRY_RUN_KEY } from '../../../src/run/dry-run.js';
import { personKeys } from '../../../src/operations/engine/people.js';

const ajv = new Ajv2020({ strict: false, allErrors: false });

type Schema = Record<string, unknown>;

/** Every enum and const value anywhere in a schema: the values most worth trying. */
function enumValues(schema: unknown, out: unknown[] = []): unknown[] {
  if (Array.isArray(schema)) for (const s of schema) enumValues(s, out);
  else if (schema && typeof schema === 'object') {
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'enum' && Array.isArray(value)) out.push(...value);
      else if (key === 'const') out.push(value);
      else enumValues(value, out);
    }
  }
  return out;
}

const SAMPLES: unknown[] = [
  0,
  1,
  -1,
  2,
  1.5,
  10,
  11,
  20,
  30,
  40,
  50,
  60,
  99,
  100,
  101,
  255,
  256,
  10_000,
  10_001,
  '',
  'a',
  'x'.repeat(255),
  'x'.repeat(256),
  'None',
  'Any',
  'main',
  'A_b9',
  'a-b',
  '2',
  'true',
  '2026-11-23T00:00:00Z',
  true,
  false,
  null,
  [],
  ['a'],
  [1],
  ['a', 'b'],
  [{ action: 'create', file_path: 'a' }],
  {},
  { a: 'b' },
  { labels: 'bug' },
  { a: 1 },
];

/**
 * What the compact schema leaves to the server on purpose (see compactSchema): the URL value cap, a minimum length
 * of 1 and the ±2^53 integer bounds. Values that only those would refuse are not compared.
 */
function dropsOnPurpose(value: unknown): boolean {
  if (typeof value === 'string') return value === '' || value.length > MAX_URL_VALUE_CHARS;
  if (typeof value === 'number') return !Number.isSafeInteger(value) && Number.isInteger(value);
  if (Array.isArray(value)) return value.some(dropsOnPurpose);
  if (value && typeof value === 'object') return Object.values(value).some(dropsOnPurpose);
  return false;
}

describe('published tool schemas', () => {
  it.each(operations.map((op) => [op.name, op] as const))(
    '%s accepts and refuses what its zod schema does',
    (_name, op) => {
      const full = z.toJSONSchema(op.input, { io: 'input', unrepresentable: 'any' }) as Schema;
      const compact = toolDescriptor(op).inputSchema as Schema;
      expect(compact.required ?? []).toEqual(full.required ?? []);
      expect(compact.additionalProperties).toEqual(full.additionalProperties);
      const fullProps = full.properties as Record<string, Schema>;
      const compactProps = compact.properties as Record<string, Schema>;
      // A change also takes dry_run, which the server reads before the operation's schema does (see dry-run.ts).
      expect(Object.keys(compactProps)).toEqual([
        ...Object.keys(fullProps),
        ...(op.effect === 'read' ? [] : [DRY_RUN_KEY]),
      ]);
      const people = new Set(personKeys(op));
      for (const [field, schema] of Object.entries(fullProps)) {
        const fullCheck = ajv.compile(schema);
        const compactCheck = ajv.compile(compactProps[field]);
        for (const value of [...SAMPLES, ...enumValues(schema)]) {
          if (dropsOnPurpose(value)) continue;
          // A person field takes a username too: the server resolves it to the id before zod sees the call (and
          // answers any other string in words), so the published schema takes every string there.
          const takes = fullCheck(value) || (people.has(field) && typeof value === 'string');
          expect(compactCheck(value), `${op.name}.${field} = ${JSON.stringify(value)}`).toBe(takes);
        }
      }
    },
  );

  it('compares something: the samples tell accepted from refused values on nearly every field', () => {
    let both = 0;
    let fields = 0;
    for (const op of operations) {
      for (const [field, schema] of Object.entries(
        toolDescriptor(op).inputSchema.properties as Record<string, Schema>,
      )) {
        if (field === DRY_RUN_KEY) continue;
        const check = ajv.compile(schema);
        const results = [...SAMPLES, ...enumValues(schema)].map((value) => check(value));
        fields += 1;
        if (results.includes(true) && results.includes(false)) both += 1;
      }
    }
    expect(both / fields).toBeGreaterThan(0.97);
  });
});
