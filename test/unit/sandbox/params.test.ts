// Bracket decoding of query strings and forms, and the framework error texts of strict parameters.
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { decodeQueryString, param, parseParams } from '../../../src/sandbox/params.js';

describe('decodeQueryString', () => {
  test('plain keys, arrays, hashes and arrays of objects', () => {
    expect(decodeQueryString('a=1&b[]=x&b[]=y&c[team]=pay&c[tier]=1')).toEqual({
      a: '1',
      b: ['x', 'y'],
      c: { team: 'pay', tier: '1' },
    });
  });

  test('a repeated sub-key starts a new array element', () => {
    expect(decodeQueryString('actions[][action]=create&actions[][file_path]=a&actions[][action]=delete&actions[][file_path]=b')).toEqual({
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

  test('prototype keys are refused', () => {
    expect(() => decodeQueryString('__proto__[x]=1')).toThrow(/is not a known parameter/);
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
  const errorOf = (input: unknown) => {
    try {
      parseParams(schema, input);
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
    expect(errorOf({ ref: 'x', reff: 'y' })).toEqual({ error: 'reff is not a known parameter' });
    expect(errorOf({ ref: 'x', mode: 'c' })).toEqual({ error: 'mode does not have a valid value' });
    expect(errorOf({ ref: 'x', flag: 'yes' })).toEqual({ error: 'flag does not have a valid value' });
    expect(errorOf({ ref: 'x', count: '1.5' })).toEqual({ error: 'count does not have a valid value' });
    expect(errorOf({ ref: 'x', when: 'yesterday' })).toEqual({ error: 'when does not have a valid value' });
  });

  test('nested names are written with brackets; several errors are joined', () => {
    expect(errorOf({ links: [{ name: 'a', url: 'u', typo: 1 }, { url: 'v' }] })).toEqual({
      error: 'ref is missing, links[0][typo] is not a known parameter, links[1][name] is missing',
    });
  });
});
