// The registry held to the spec: every parameter the spec documents (test/data/spec-parameters/<area>.tsv) and every
// rule it states in prose (test/data/spec-rules.tsv) checked against the registry's schemas, both ways, so neither
// can drift from what the spec says.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PAGINATION_CONTROL_KEYS } from '../../../src/operations/engine/define.js';
import { operations } from '../../../src/operations/index.js';
import { ACCESS_LEVEL_NAMES } from '../../../src/operations/engine/present.js';
import { validateInput } from '../../../src/operations/engine/validate.js';

const DATA = new URL('../../data/', import.meta.url);

/** Keys forgeops itself understands and never sends: the all-pages controls, and reveal for masked credentials. */
const FORGEOPS_CONTROLS = new Set<string>([...PAGINATION_CONTROL_KEYS, 'reveal']);

/** forgeops's cap on anything it puts in a URL (MAX_URL_VALUE_CHARS): a transport limit, not a spec bound. */
const URL_VALUE_CAP = 2048;

interface ParameterRow {
  line: string;
  method: string;
  path: string;
  param: string;
  in: string;
  type: string;
  required: string;
  enum: string;
  default: string;
  min: string;
  max: string;
}

const COLUMNS = ['method', 'path', 'param', 'in', 'type', 'required', 'enum', 'default', 'min', 'max', 'note'] as const;
/** A type cell: one or more of these, joined by '|' in sorted order (as typeOf writes a union), or file / any. */
const TYPE_CELL =
  /^(?:(?:array<(?:integer|number|string|boolean|object)>|integer|number|string|boolean|object|null)(?:\|(?=.))?)+$|^(?:file|any)$/;

function readTsv(file: URL): string[][] {
  const [header, ...lines] = readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
  return [header.split('\t'), ...lines.map((line) => line.split('\t'))];
}

function readParameterTables(): ParameterRow[] {
  const dir = new URL('spec-parameters/', DATA);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.tsv'))
    .sort()
    .flatMap((file) => {
      const [header, ...rows] = readTsv(new URL(file, dir));
      expect(header, `${file}: header`).toEqual([...COLUMNS]);
      return rows.map((cells, i) => {
        const row = Object.fromEntries(COLUMNS.map((c, j) => [c, (cells[j] ?? '').trim()])) as unknown as ParameterRow;
        row.line = `${file}:${i + 2}`;
        return row;
      });
    });
}

function readEndpoints(): string[] {
  const [, ...rows] = readTsv(new URL('endpoints.tsv', DATA));
  return rows.map(([method, path]) => `${method} ${path}`);
}

type JsonSchema = Record<string, unknown>;

/** The operation that sends this spec endpoint (a composed operation such as wait_for_pipeline repeats another's). */
function operationFor(route: string) {
  return operations.find((op) => `${op.method} ${op.path}` === route && !op.composedOf);
}

/** The spec's name for a JSON Schema property's type. */
function typeOf(schema: JsonSchema): string {
  const options = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (options) {
    const types = [...new Set(options.filter((o) => o.type !== 'null').map(typeOf))].sort();
    return types.join('|');
  }
  // zod writes a nullable scalar as type ["boolean", "null"]: null is no type of its own here, as in anyOf.
  if (Array.isArray(schema.type))
    return (schema.type as string[])
      .filter((t) => t !== 'null')
      .map((t) => typeOf({ ...schema, type: t }))
      .sort()
      .join('|');
  if (schema.type === 'array') return `array<${typeOf((schema.items ?? {}) as JsonSchema)}>`;
  // zod writes a literal of whole numbers (access levels 10..50) as type number; every value says integer.
  const values = Array.isArray(schema.enum) ? schema.enum : schema.const !== undefined ? [schema.const] : [];
  if ((schema.type === 'number' || schema.type === undefined) && values.length > 0 && values.every(Number.isInteger))
    return 'integer';
  if (typeof schema.type === 'string') return schema.type;
  if (schema.const !== undefined) return typeof schema.const;
  if (Array.isArray(schema.enum)) return typeof schema.enum[0];
  return 'any';
}

function enumOf(schema: JsonSchema): string[] | undefined {
  const options = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (options) {
    const all = options.map(enumOf);
    return all.every((e) => e !== undefined) ? (all.flat() as string[]) : undefined;
  }
  if (schema.type === 'array') return enumOf((schema.items ?? {}) as JsonSchema);
  if (schema.const !== undefined) return [String(schema.const)];
  if (Array.isArray(schema.enum)) return schema.enum.map(String);
  return undefined;
}

/** A bound of the property (or of its array items / union members), if any states it. */
function boundOf(schema: JsonSchema, name: 'minimum' | 'maximum' | 'minLength' | 'maxLength'): number | undefined {
  const options = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (options) {
    const found = options.map((o) => boundOf(o, name)).filter((b): b is number => b !== undefined);
    return found.length > 0 ? (name.startsWith('min') ? Math.min(...found) : Math.max(...found)) : undefined;
  }
  if (schema.type === 'array') {
    // A bound of the items, else of the count ("at most 5 IDs" is maxItems).
    const count = name === 'minimum' ? schema.minItems : name === 'maximum' ? schema.maxItems : undefined;
    return boundOf((schema.items ?? {}) as JsonSchema, name) ?? (typeof count === 'number' ? count : undefined);
  }
  const value =
    schema[name] ??
    (name === 'minimum' ? schema.exclusiveMinimum : name === 'maximum' ? schema.exclusiveMaximum : undefined);
  // zod's .int() states the safe-integer range; that is JavaScript's limit, not a bound anyone chose.
  return typeof value === 'number' && Math.abs(value) !== Number.MAX_SAFE_INTEGER ? value : undefined;
}

/** A value of the spec's type, for checking that a spread (open-object) parameter is accepted. */
function sampleOf(type: string): unknown {
  if (type === 'integer' || type === 'number' || type === 'integer|string') return 1;
  if (type === 'boolean') return true;
  if (type.startsWith('array')) return ['a'];
  return 'x';
}

const rows = readParameterTables();
const endpoints = readEndpoints();
const byRoute = new Map<string, ParameterRow[]>();
for (const row of rows)
  byRoute.set(`${row.method} ${row.path}`, [...(byRoute.get(`${row.method} ${row.path}`) ?? []), row]);

describe('spec audit: the parameter table', () => {
  it('has every endpoint of the spec, and nothing else', () => {
    expect([...byRoute.keys()].sort()).toEqual([...endpoints].sort());
  });

  it('is well formed: known types and places, yes/no requiredness, one row per parameter', () => {
    const problems: string[] = [];
    for (const [route, list] of byRoute) {
      const names = list.map((r) => r.param);
      if (new Set(names).size !== names.length) problems.push(`${route}: a parameter listed twice`);
      for (const row of list) {
        if (row.param === '-') {
          if (list.length > 1) problems.push(`${row.line}: '-' (no parameters) beside other rows`);
          continue;
        }
        if (!TYPE_CELL.test(row.type)) problems.push(`${row.line}: type '${row.type}'`);
        if (!['path', 'query', 'body', 'spread'].includes(row.in)) problems.push(`${row.line}: in '${row.in}'`);
        if (!['yes', 'no'].includes(row.required)) problems.push(`${row.line}: required '${row.required}'`);
        // An optional suffix segment ('archive[.format]') is the one path parameter the spec lets a caller leave out.
        const optionalSuffix = row.path.endsWith(`[.${row.param}]`);
        if (row.in === 'path' && row.required !== 'yes' && !optionalSuffix)
          problems.push(`${row.line}: a path parameter is required`);
      }
    }
    expect(problems).toEqual([]);
  });
});

describe.each(endpoints)('spec audit: %s', (route) => {
  const op = operationFor(route);
  const list = (byRoute.get(route) ?? []).filter((r) => r.param !== '-');

  it('matches the registry, parameter by parameter, both ways', () => {
    expect(op, `an operation sends ${route}`).toBeDefined();
    if (!op) return;
    const schema = z.toJSONSchema(op.input, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set((schema.required ?? []) as string[]);
    const problems: string[] = [];
    const documented = new Set<string>();

    for (const row of list) {
      if (row.in === 'spread') {
        if (!op.spreadInput) {
          problems.push(`${row.param}: spread, but ${op.name} has no open settings object`);
          continue;
        }
        documented.add(op.spreadInput);
        try {
          validateInput(op, {
            ...requiredSample(properties, required),
            [op.spreadInput]: { [row.param]: sampleOf(row.type) },
          });
        } catch (error) {
          problems.push(`${row.param}: the settings object refuses it: ${(error as Error).message}`);
        }
        continue;
      }
      documented.add(row.param);
      if (!properties[row.param]) {
        problems.push(`${row.param}: documented by the spec, unknown to ${op.name}`);
        continue;
      }
      const { property, names } = onTheWire(properties[row.param]);
      for (const name of names) {
        const sent = (
          validateInput(op, { ...requiredSample(properties, required), [row.param]: name }) as Record<string, unknown>
        )[row.param];
        if (ACCESS_LEVEL_NAMES[String(sent)] !== name)
          problems.push(`${row.param}: the name ${name} is sent as ${String(sent)}`);
      }
      if (row.in === 'path' && !op.pathParams.includes(row.param))
        problems.push(`${row.param}: a path parameter the route lacks`);
      const type = typeOf(property);
      if (row.type !== 'file' && row.type !== 'any' && type !== row.type)
        problems.push(`${row.param}: type ${type}, spec says ${row.type}`);
      if ((row.required === 'yes') !== required.has(row.param)) {
        problems.push(
          `${row.param}: ${required.has(row.param) ? 'required' : 'optional'}, spec says ${row.required === 'yes' ? 'required' : 'optional'}`,
        );
      }
      const values = enumOf(property);
      const specValues = row.enum ? row.enum.split('|') : undefined;
      if (specValues && (!values || [...values].sort().join('|') !== [...specValues].sort().join('|'))) {
        problems.push(`${row.param}: accepts ${values ? values.join('|') : 'any value'}, spec says ${row.enum}`);
      }
      if (!specValues && values && row.type !== 'boolean')
        problems.push(`${row.param}: only ${values.join('|')}, the spec lists no values`);
      if (property.default !== undefined && String(property.default) !== row.default) {
        problems.push(`${row.param}: defaults to ${String(property.default)}, spec says ${row.default || 'nothing'}`);
      }
      const numeric = type === 'integer' || type === 'number' || type.includes('integer');
      const min = boundOf(property, 'minimum');
      const max = boundOf(property, 'maximum');
      if (row.min !== '') {
        if (min !== Number(row.min)) problems.push(`${row.param}: minimum ${min ?? 'none'}, spec says ${row.min}`);
      } else if (numeric && min !== undefined && min > 1) {
        problems.push(`${row.param}: minimum ${min}, the spec states none`);
      }
      if (row.max !== '') {
        if (max !== Number(row.max) && boundOf(property, 'maxLength') !== Number(row.max))
          problems.push(`${row.param}: maximum ${max ?? 'none'}, spec says ${row.max}`);
      } else {
        if (max !== undefined) problems.push(`${row.param}: maximum ${max}, the spec states none`);
        const maxLength = boundOf(property, 'maxLength');
        if (maxLength !== undefined && maxLength !== URL_VALUE_CAP)
          problems.push(`${row.param}: at most ${maxLength} characters, the spec states no limit`);
      }
    }
    for (const key of Object.keys(properties)) {
      if (!documented.has(key) && !FORGEOPS_CONTROLS.has(key))
        problems.push(`${key}: accepted by ${op.name}, not in the spec`);
    }
    expect(problems).toEqual([]);
  });
});

/**
 * A property as the service receives it. An access level's names (`developer`) are taken and sent as their numbers
 * (access-levels.ts): the branch of names is no parameter of the spec's, and each name is checked to leave as its number.
 */
function onTheWire(property: JsonSchema): { property: JsonSchema; names: string[] } {
  const options = property.anyOf as JsonSchema[] | undefined;
  const levelNames = new Set(Object.values(ACCESS_LEVEL_NAMES));
  const isNames = (o: JsonSchema) =>
    o.type === 'string' && Array.isArray(o.enum) && o.enum.every((v) => levelNames.has(v as string));
  const named = options?.find(isNames);
  if (!options || !named) return { property, names: [] };
  const rest = options.filter((o) => o !== named);
  const { anyOf: _union, ...outer } = property;
  return {
    property: rest.length === 1 ? { ...outer, ...rest[0] } : { ...outer, anyOf: rest },
    names: named.enum as string[],
  };
}

/** The smallest input the schema accepts for its required keys, so a spread parameter is checked on its own. */
function requiredSample(properties: Record<string, JsonSchema>, required: Set<string>): Record<string, unknown> {
  return Object.fromEntries(
    [...required]
      .filter((key) => properties[key].type !== 'object')
      .map((key) => {
        const values = enumOf(properties[key]);
        return [key, values ? values[0] : sampleOf(typeOf(properties[key]))];
      }),
  );
}

describe('spec audit: the prose rules', () => {
  const [header, ...ruleRows] = readTsv(new URL('spec-rules.tsv', DATA));
  const table = ruleRows.map((cells) => Object.fromEntries(header.map((c, j) => [c, (cells[j] ?? '').trim()])));

  it('every rule in the table is declared by its operation, and no operation declares one the table lacks', () => {
    const fromTable = table.map((r) => `${r.method} ${r.path} ${r.kind} ${r.keys}`).sort();
    const fromRegistry = operations
      .filter((op) => !op.composedOf && op.outsideSpec === undefined)
      .flatMap((op) => (op.rules ?? []).map((rule) => `${op.method} ${op.path} ${rule.kind} ${rule.keys.join(',')}`))
      .sort();
    expect(fromRegistry).toEqual(fromTable);
  });
});
