// Bracket decoding of query strings and forms, the framework error texts, and unknown and null parameters.
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { decodeQueryString, optionalParams, param, parseParams } from '../../../src/sandbox/core/params.js';

describe('decodeQueryString', () => {
  test('plain keys, arrays, hashes and arrays of objects', () => {
    expect(decodeQueryString('a=1&b[]=x&b[]=y&c[team]=pay&c[tier]=1')).toEqual({
      a: '1',
      b: ['x', 'y'],
      c: { team: 'pay', tier: '1' },
    });
  });

  test('a repeated sub-key starts a new array element', () => {
    expect(
      decodeQueryString(
        'actions[][action]=create&actions[][file_path]=a&actions[][action]=delete&actions[][file_path]=b',
      ),
    ).toEqual({
      actions: [
        { action: 'create', file_path: 'a' },
        { action: 'delete', file_path: 'b' },
      ],
    });
  });

  test('nested hash holding an array of objects', () => {
    expect(decodeQueryString('assets[links][][name]=n1&assets[links][][url]=u1&assets[links][][name]=n2')).toEqual({
      assets: { links: [{ name: 'n1', url: 'u1' }, { name: 'n2' }] },
    });
  });

  test('percent-encoding and + are decoded in keys and values', () => {
    expect(decodeQueryString('file%5Bpath%5D=src%2Fa+b.ts')).toEqual({ file: { path: 'src/a b.ts' } });
  });

  test('a key used both as a value and as an array is refused, naming it', () => {
    expect(() => decodeQueryString('a=1&a[]=2')).toThrow(/a\[\] does not have a valid value/);
  });

  test('prototype keys are own keys of a tree that inherits nothing', () => {
    // As on the service, a name is a name: ignored when unknown (see prototype-params.test.ts), never a prototype.
    expect(Object.hasOwn(decodeQueryString('__proto__[x]=1'), '__proto__')).toBe(true);
  });
});

describe('parseParams', () => {
  const schema = z
    .object({
      ref: z.string(),
      flag: param.boolean().optional(),
      count: param.integer().optional(),
      when: param.datetime().optional(),
      mode: param.enum(['a', 'b']).optional(),
      links: z.array(z.strictObject({ name: z.string(), url: z.string() })).optional(),
    })
    .strict();
  const errorOf = (input: unknown, strict = false) => {
    try {
      parseParams(schema, input, { strict });
    } catch (error) {
      return (error as { body: unknown }).body;
    }
    return undefined;
  };

  test('coerces query-string values', () => {
    expect(parseParams(schema, { ref: 'main', flag: 'false', count: '12', when: '2024-05-01' })).toEqual({
      ref: 'main',
      flag: false,
      count: 12,
      when: new Date('2024-05-01'),
    });
  });

  test('missing, unknown and invalid parameters get the service texts', () => {
    expect(errorOf({})).toEqual({ error: 'ref is missing' });
    // The service ignores an unknown parameter; only strict mode refuses it.
    expect(errorOf({ ref: 'x', reff: 'y' }, true)).toEqual({ error: 'reff is not a known parameter' });
    expect(errorOf({ ref: 'x', mode: 'c' })).toEqual({ error: 'mode does not have a valid value' });
    // 'yes' is one of the service's boolean words now; 'maybe' is none.
    expect(errorOf({ ref: 'x', flag: 'maybe' })).toEqual({ error: 'flag does not have a valid value' });
    expect(errorOf({ ref: 'x', count: '1.5' })).toEqual({ error: 'count does not have a valid value' });
    expect(errorOf({ ref: 'x', when: 'yesterday' })).toEqual({ error: 'when does not have a valid value' });
  });

  test('nested names are written with brackets; several errors are joined', () => {
    expect(errorOf({ links: [{ name: 'a', url: 'u', typo: 1 }, { url: 'v' }] }, true)).toEqual({
      error: 'ref is missing, links[0][typo] is not a known parameter, links[1][name] is missing',
    });
    // Without strict mode the unknown key drops out of the error, but is still reported.
    const unknown: string[] = [];
    expect(() => parseParams(schema, { links: [{ name: 'a', url: 'u', typo: 1 }, { url: 'v' }] }, { unknown })).toThrow(
      'ref is missing, links[1][name] is missing',
    );
    expect(unknown).toEqual(['links[0][typo]']);
  });

  test("unknown keys, top-level and nested, are ignored and reported; the caller's input is not changed", () => {
    const unknown: string[] = [];
    const input = { ref: 'main', reff: 'y', links: [{ name: 'a', url: 'u', typo: 1 }] };
    expect(parseParams(schema, input, { unknown })).toEqual({ ref: 'main', links: [{ name: 'a', url: 'u' }] });
    expect(unknown.sort()).toEqual(['links[0][typo]', 'reff']);
    expect(input.links[0]).toHaveProperty('typo', 1);
  });

  test('null is read as absent: an optional key drops out, a required one is missing, a nested one too', () => {
    expect(parseParams(schema, { ref: 'main', flag: null, count: null, mode: null })).toEqual({ ref: 'main' });
    expect(errorOf({ ref: null })).toEqual({ error: 'ref is missing' });
    expect(errorOf({ ref: 'main', links: [{ name: null, url: 'u' }] })).toEqual({ error: 'links[0][name] is missing' });
    // A schema that accepts null keeps it (null can mean "clear this field").
    expect(parseParams(z.object({ due: z.string().nullable() }).strict(), { due: null })).toEqual({ due: null });
  });

  test("booleans take the service's words", () => {
    const flagOf = (flag: unknown) => parseParams(schema, { ref: 'main', flag }).flag;
    for (const word of ['true', 'True', '1', 't', 'yes', 'on', true]) expect(flagOf(word), String(word)).toBe(true);
    for (const word of ['false', 'False', '0', 'f', 'no', 'off', false]) expect(flagOf(word), String(word)).toBe(false);
    for (const word of ['TRUE', 'y', '2', '', 1])
      expect(() => flagOf(word), String(word)).toThrow('flag does not have a valid value');
  });
});

describe('optionalParams', () => {
  test('each name is an optional parameter of the type, in the order named', () => {
    const shape = optionalParams(param.boolean, 'owned', 'starred');
    expect(Object.keys(shape)).toEqual(['owned', 'starred']);
    const schema = z.object(shape);
    expect(schema.parse({ owned: 'yes' })).toEqual({ owned: true });
    expect(schema.safeParse({ starred: 'maybe' }).success).toBe(false);
  });
});
