// Cross-field rules (InputRule): what validateInput refuses and accepts, and that a rule naming no input is refused.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineOperation } from '../../../src/operations/engine/define.js';
import { type InputError, validateInput } from '../../../src/operations/engine/validate.js';

const op = defineOperation({
  name: 'create_thing',
  chat: 'thing create',
  area: 'users',
  title: 'Create thing',
  description: 'A test operation.',
  route: 'POST /things',
  input: z.object({
    password: z.string().optional(),
    reset_password: z.boolean().optional(),
    extern_uid: z.string().optional(),
    provider: z.string().optional(),
    tag: z.string().optional(),
    ref: z.string().optional(),
  }),
  effect: 'write',
  undo: 'Nothing.',
  rules: [
    { kind: 'one_of', keys: ['password', 'reset_password'] },
    { kind: 'requires', keys: ['extern_uid', 'provider'] },
    { kind: 'at_most_one', keys: ['tag', 'ref'] },
  ],
});

function issues(raw: Record<string, unknown>): string[] {
  try {
    validateInput(op, raw);
    return [];
  } catch (error) {
    return (error as InputError).issues.map((i) => `${i.field}: ${i.message}`);
  }
}

describe('input rules', () => {
  it('one_of: needs one of the keys, and a false flag does not count', () => {
    expect(issues({})).toEqual(['password: one of password, reset_password is needed']);
    expect(issues({ reset_password: false })).toEqual(['password: one of password, reset_password is needed']);
    expect(issues({ reset_password: true })).toEqual([]);
    expect(issues({ password: 'hunter22' })).toEqual([]);
  });

  it('requires: the first key needs the others, and names the missing one', () => {
    expect(issues({ password: 'p', extern_uid: '42' })).toEqual(['provider: extern_uid needs provider as well']);
    expect(issues({ password: 'p', extern_uid: '42', provider: 'ldap' })).toEqual([]);
    expect(issues({ password: 'p', provider: 'ldap' })).toEqual([]);
  });

  it('at_most_one: refuses two together, naming both', () => {
    expect(issues({ password: 'p', tag: 'v1', ref: 'main' })).toEqual([
      'ref: tag and ref cannot be given together; choose one',
    ]);
  });

  it('reports every broken rule at once', () => {
    expect(issues({ extern_uid: '1', tag: 'a', ref: 'b' })).toHaveLength(3);
  });

  it("a rule must name two or more of the operation's own inputs", () => {
    expect(() =>
      defineOperation({
        name: 'get_thing',
        chat: 'thing get',
        area: 'users',
        title: 'Get thing',
        description: 'A test operation.',
        route: 'GET /things/1',
        input: z.object({ a: z.string() }),
        effect: 'read',
        rules: [{ kind: 'one_of', keys: ['a', 'b'] }],
      }),
    ).toThrow(/rule one_of .*unknown: b/);
  });
});
