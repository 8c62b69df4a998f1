// String numerals: read as numbers exactly where a schema wants a number, and nowhere else.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { coerceNumerals } from '../../../src/operations/engine/numerals.js';
import { findOperation } from '../../../src/operations/index.js';
import { InputError, validateInput } from '../../../src/operations/engine/validate.js';

describe('coerceNumerals', () => {
  it('reads whole-number strings as numbers where the schema wants an integer, inside wrappers', () => {
    const schema = z.object({
      a: z.number().int(),
      b: z.number().optional(),
      c: z.number().nullable().default(1),
      d: z.array(z.number()),
      e: z.object({ f: z.number() }).optional(),
      g: z.record(z.string(), z.number()),
    });
    expect(coerceNumerals(schema, { a: '2', b: '-7', c: '0', d: ['1', '22'], e: { f: '3' }, g: { x: '4' } })).toEqual({
      a: 2,
      b: -7,
      c: 0,
      d: [1, 22],
      e: { f: 3 },
      g: { x: 4 },
    });
  });

  it('leaves anything that is not an exact safe integer numeral as it was sent', () => {
    const schema = z.object({ n: z.number() });
    for (const sent of ['2x', '1.5', ' 2', '2 ', '', '+2', '0x10', '1e3', '9007199254740993']) {
      expect(coerceNumerals(schema, { n: sent })).toEqual({ n: sent });
    }
  });

  it('leaves strings where the schema wants a string, and a union that accepts the string as it is', () => {
    const schema = z.object({
      name: z.string(),
      project: z.union([z.number().int().positive(), z.string().min(1)]),
      assignee: z.union([z.number(), z.enum(['None', 'Any'])]),
    });
    expect(coerceNumerals(schema, { name: '12', project: '42', assignee: '7' })).toEqual({
      name: '12',
      project: '42',
      assignee: 7,
    });
    expect(coerceNumerals(schema, { name: '12', project: '42', assignee: 'None' })).toEqual({
      name: '12',
      project: '42',
      assignee: 'None',
    });
  });

  it('never changes the object it was given', () => {
    const schema = z.object({ d: z.array(z.number()) });
    const sent = { d: ['1'] };
    coerceNumerals(schema, sent);
    expect(sent).toEqual({ d: ['1'] });
  });

  it('finds a numeral however deep the schema wants it, and survives nesting far deeper than any schema', () => {
    // Forty levels down: deeper than the quick look for numerals goes, so the schema's own walk must still turn it.
    let schema: z.ZodType = z.object({ n: z.number() });
    let sent: unknown = { n: '5' };
    let wanted: unknown = { n: 5 };
    for (let i = 0; i < 40; i++) {
      schema = z.object({ in: schema });
      sent = { in: sent };
      wanted = { in: wanted };
    }
    expect(coerceNumerals(schema, sent)).toEqual(wanted);
    // A hostile argument nested 100,000 deep under a field no schema has: answered, not a stack overflow.
    let deep: unknown = ['7'];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const hostile = { extra: deep, n: '1' };
    expect(coerceNumerals(z.object({ n: z.number() }), hostile)).toEqual({ extra: deep, n: 1 });
  });
});

describe('validateInput with string numerals', () => {
  const getPipeline = findOperation('get_pipeline')!;
  const listPipelines = findOperation('list_pipelines')!;

  it('accepts "pipeline_id": "2" and page numbers sent as strings', () => {
    expect(validateInput(getPipeline, { id: 'acme/web', pipeline_id: '2' })).toEqual({
      id: 'acme/web',
      pipeline_id: 2,
    });
    expect(validateInput(listPipelines, { id: 5, page: '3', per_page: '10' })).toMatchObject({ page: 3, per_page: 10 });
  });

  it('still refuses "2x" and bounds, naming the field', () => {
    expect(() => validateInput(getPipeline, { id: 'acme/web', pipeline_id: '2x' })).toThrow(InputError);
    expect(() => validateInput(getPipeline, { id: 'acme/web', pipeline_id: '2x' })).toThrow(/pipeline_id/);
    expect(() => validateInput(listPipelines, { id: 5, per_page: '0' })).toThrow(/per_page/);
  });
});
