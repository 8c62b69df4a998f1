// Registry-wide rules every operation must follow: names, chat words, docs, routes of endpoints.tsv, safety flags, JSON Schema.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { operations } from '../../../src/operations/index.js';

interface Endpoint {
  area: string;
}

/** endpoints.tsv as "METHOD /path" → its line, so a route must be written exactly as listed. */
function readEndpoints(): Map<string, Endpoint> {
  const text = readFileSync(new URL('../../data/endpoints.tsv', import.meta.url), 'utf8');
  const [, ...lines] = text.trim().split('\n');
  return new Map(lines.map((line) => {
    const [method, path, area] = line.split('\t');
    return [`${method} ${path}`, { area }];
  }));
}

type JsonSchema = Record<string, unknown>;

/** Dotted paths of every property in a JSON Schema (nested objects, array items, unions) that has no description. */
function undescribedProperties(schema: JsonSchema, prefix = ''): string[] {
  const missing: string[] = [];
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  for (const [key, property] of Object.entries(properties)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof property.description !== 'string' || property.description.trim() === '') missing.push(path);
    missing.push(...undescribedProperties(property, path));
  }
  if (schema.items && typeof schema.items === 'object') missing.push(...undescribedProperties(schema.items as JsonSchema, `${prefix}[]`));
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    for (const branch of (schema[key] ?? []) as JsonSchema[]) missing.push(...undescribedProperties(branch, prefix));
  }
  return missing;
}

const endpoints = readEndpoints();

describe('operation registry', () => {
  it('has operations, with unique snake_case verb_noun names', () => {
    expect(operations.length).toBeGreaterThan(0);
    const names = operations.map((op) => op.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)+$/);
  });

  it('has unique, normalised chat words', () => {
    const chats = operations.map((op) => op.chat);
    expect(new Set(chats).size).toBe(chats.length);
    for (const chat of chats) expect(chat).toMatch(/^[a-z][a-z0-9-]*( [a-z][a-z0-9-]*)*$/);
  });

  it.each(operations.map((op) => [op.name, op] as const))('%s has a title, a description and an effect', (_name, op) => {
    expect(op.title.trim().length).toBeGreaterThan(2);
    expect(op.description.trim().length).toBeGreaterThan(30);
    expect(['read', 'write', 'destructive']).toContain(op.effect);
  });

  it.each(operations.map((op) => [op.name, op] as const))('%s routes to a line of endpoints.tsv, in its area', (_name, op) => {
    const endpoint = endpoints.get(`${op.method} ${op.path}`);
    expect(endpoint, `${op.route} is not in endpoints.tsv`).toBeDefined();
    expect(op.area).toBe(endpoint?.area);
  });

  it('routes no endpoint twice', () => {
    const routes = operations.map((op) => `${op.method} ${op.path}`);
    expect(new Set(routes).size).toBe(routes.length);
  });

  it.each(operations.map((op) => [op.name, op] as const))('%s takes every path parameter as input', (_name, op) => {
    const shape = op.input.shape as Record<string, unknown>;
    const routeParams = [...op.path.matchAll(/:([a-z_]+)/g)].map((m) => m[1]);
    const suffix = /\[\.([a-z_]+)\]$/.exec(op.path);
    if (suffix) routeParams.push(suffix[1]);
    expect(routeParams.length).toBe(op.pathParams.length);
    for (const param of routeParams) expect(Object.keys(shape)).toContain(param);
  });

  it.each(operations.map((op) => [op.name, op] as const))('%s has a JSON Schema with every field described', (_name, op) => {
    const schema = z.toJSONSchema(op.input, { io: 'input' }) as JsonSchema;
    expect(schema.type).toBe('object');
    expect(undescribedProperties(schema)).toEqual([]);
  });

  it('marks every delete destructive and every GET or HEAD a read', () => {
    for (const op of operations.filter((o) => o.method === 'DELETE')) expect(op.effect, op.name).toBe('destructive');
    for (const op of operations.filter((o) => o.method === 'GET' || o.method === 'HEAD')) expect(op.effect, op.name).toBe('read');
  });

  it('reads HEAD answers as headers', () => {
    for (const op of operations.filter((o) => o.method === 'HEAD')) expect(op.response, op.name).toBe('headers');
  });

  it('finds missing descriptions in nested fields too', () => {
    const schema = z.toJSONSchema(z.object({
      ok: z.string().describe('fine'),
      list: z.array(z.object({ bare: z.string() })).describe('items'),
    }), { io: 'input' }) as JsonSchema;
    expect(undescribedProperties(schema)).toEqual(['list[].bare']);
  });
});
