// The server's own check of elicitation answers (instead of the SDK's ajv): the form subset MCP allows, and a
// approval answered with the wrong shape runs nothing.
import { describe, expect, it } from 'vitest';
import type { JsonSchemaType } from '@modelcontextprotocol/sdk/validation/types.js';
import { elicitationFormValidator } from '../../../src/mcp/elicitation-validator.js';
import { connectInMemory, resultText, useSandbox } from '../../helpers/mcp.js';

const env = useSandbox();

function check(schema: Record<string, unknown>, answer: unknown) {
  return elicitationFormValidator.getValidator({ type: 'object', ...schema } as JsonSchemaType)(answer);
}

const CONFIRM = { properties: { confirm: { type: 'boolean' } }, required: ['confirm'] };

describe('elicitationFormValidator', () => {
  it('passes an answer that fits, and gives it back as the data', () => {
    expect(check(CONFIRM, { confirm: true })).toEqual({
      valid: true,
      data: { confirm: true },
      errorMessage: undefined,
    });
  });

  it.each([
    ['a missing required field', CONFIRM, {}, 'confirm is required'],
    ['a string for a boolean', CONFIRM, { confirm: 'yes' }, 'confirm must be true or false'],
    ['not an object', CONFIRM, ['confirm'], 'the answer must be an object'],
    [
      'a value outside the enum',
      { properties: { env: { type: 'string', enum: ['staging', 'prod'] } } },
      { env: 'dev' },
      'env must be one of "staging", "prod"',
    ],
    [
      'a titled choice outside oneOf',
      { properties: { env: { type: 'string', oneOf: [{ const: 'a', title: 'A' }] } } },
      { env: 'b' },
      'env must be one of "a"',
    ],
    [
      'a string too short',
      { properties: { why: { type: 'string', minLength: 3 } } },
      { why: 'no' },
      'why must have at least 3 characters',
    ],
    [
      'a bad email',
      { properties: { to: { type: 'string', format: 'email' } } },
      { to: 'nobody' },
      'to must be a valid email',
    ],
    [
      'a bad date',
      { properties: { on: { type: 'string', format: 'date' } } },
      { on: '2026-13-45' },
      'on must be a valid date',
    ],
    ['a fraction for an integer', { properties: { n: { type: 'integer' } } }, { n: 1.5 }, 'n must be an integer'],
    [
      'a number over the maximum',
      { properties: { n: { type: 'number', maximum: 10 } } },
      { n: 11 },
      'n must be at most 10',
    ],
    [
      'a multi-select item outside its choices',
      { properties: { tags: { type: 'array', items: { type: 'string', enum: ['x', 'y'] } } } },
      { tags: ['x', 'z'] },
      'tags has "z", not one of "x", "y"',
    ],
    [
      'too many multi-select items',
      { properties: { tags: { type: 'array', items: { anyOf: [{ const: 'x' }, { const: 'y' }] }, maxItems: 1 } } },
      { tags: ['x', 'y'] },
      'tags must have at most 1 items',
    ],
  ])('refuses %s, naming the field', (_, schema, answer, message) => {
    expect(check(schema, answer)).toEqual({ valid: false, data: undefined, errorMessage: message });
  });

  it('passes optional fields left out and well-formed values of every kind', () => {
    const schema = {
      properties: {
        confirm: { type: 'boolean' },
        to: { type: 'string', format: 'email' },
        at: { type: 'string', format: 'date-time' },
        site: { type: 'string', format: 'uri' },
        n: { type: 'integer', minimum: 1 },
        tags: { type: 'array', items: { enum: ['x'] } },
      },
      required: ['confirm'],
    };
    expect(check(schema, { confirm: false }).valid).toBe(true);
    expect(
      check(schema, {
        confirm: true,
        to: 'a@b.example',
        at: '2026-11-23T01:00:00Z',
        site: 'https://x.example/a',
        n: 2,
        tags: ['x'],
      }).valid,
    ).toBe(true);
  });

  it('throws on a schema outside what an elicitation form may be, rather than letting an answer through', () => {
    expect(() => check({ properties: { nested: { type: 'object' } } }, { nested: {} })).toThrow(
      /unsupported field type "object"/,
    );
    expect(() => check({ properties: { s: { type: 'string', format: 'ipv4' } } }, { s: '1.2.3.4' })).toThrow(
      /unsupported string format 'ipv4'/,
    );
    expect(() => elicitationFormValidator.getValidator({ type: 'array' } as JsonSchemaType)({})).toThrow(
      /must be of type object/,
    );
  });
});

describe('an approval answered with the wrong shape, through the SDK client', () => {
  it('runs nothing and says the answer did not match the form', async () => {
    const mcp = await connectInMemory({
      client: env.client,
      elicit: () => ({ action: 'accept', content: { confirm: 'yes' } }),
    });
    try {
      const created = await mcp.client.callTool({
        name: 'create_pipeline',
        arguments: { id: 'acme/web', ref: 'main' },
      });
      const id = (created.structuredContent as { id: number }).id;
      const result = await mcp.client.callTool({
        name: 'delete_pipeline',
        arguments: { id: 'acme/web', pipeline_id: id },
      });
      expect(result.isError).toBe(true);
      expect(resultText(result)).toMatch(
        /does not match requested schema: confirm must be true or false.*nothing was changed/s,
      );
      const deletes = env.sandbox.requests
        .all()
        .filter((r) => r.method === 'DELETE' && r.path.includes(`/pipelines/${id}`));
      expect(deletes).toHaveLength(0);
    } finally {
      await mcp.close();
    }
  });
});
