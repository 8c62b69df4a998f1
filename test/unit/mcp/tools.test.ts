// Published tool schemas and hints: only what repeats a default is left out; every real bound stays.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compactSchema, toolAnnotations, toolDescriptor } from '../../../src/mcp/tools.js';
import { fields } from '../../../src/operations/engine/define.js';
import { testOperation } from '../../helpers/test-operation.js';

describe('compactSchema', () => {
  it('drops the ±2^53 integer bounds, the URL value cap, minLength 1 and nested additionalProperties', () => {
    expect(
      compactSchema({
        type: 'object',
        additionalProperties: false,
        properties: {
          n: { type: 'integer', exclusiveMinimum: 0, maximum: 9007199254740991 },
          s: { type: 'string', minLength: 1, maxLength: 2048 },
          o: { type: 'object', additionalProperties: false, properties: { maxLength: { type: 'string' } } },
        },
      }),
    ).toEqual({
      type: 'object',
      additionalProperties: false,
      properties: {
        n: { type: 'integer', minimum: 1 },
        s: { type: 'string' },
        o: { type: 'object', properties: { maxLength: { type: 'string' } } },
      },
    });
  });

  it('keeps every bound that says something: a page size of 100, a length of 255, a minimum of 2 items', () => {
    const kept = {
      type: 'object',
      properties: {
        p: { type: 'integer', minimum: 1, maximum: 100 },
        k: { type: 'string', minLength: 2, maxLength: 255 },
        a: { type: 'array', minItems: 2 },
      },
    };
    expect(compactSchema(kept)).toEqual(kept);
  });

  it('still refuses what the published schema no longer spells out: the zod schema enforces it', () => {
    const op = testOperation({
      name: 'get_thing',
      route: 'GET /projects/:id/pipelines',
      input: z.object({ id: fields.projectId() }),
      effect: 'read',
    });
    expect(JSON.stringify(toolDescriptor(op).inputSchema)).not.toContain('2048');
    expect(op.input.safeParse({ id: 'a'.repeat(2049) }).success).toBe(false);
  });
});

describe('toolAnnotations', () => {
  const base = {
    route: 'POST /projects/:id/pipeline',
    input: z.object({ id: fields.projectId() }),
  };

  it('sends only the hints that differ from the protocol defaults', () => {
    expect(
      toolAnnotations(
        testOperation({ ...base, name: 'read_thing', route: 'GET /projects/:id/pipelines', effect: 'read' }),
      ),
    ).toEqual({ readOnlyHint: true });
    expect(toolAnnotations(testOperation({ ...base, name: 'make_thing', effect: 'write', undo: 'Adds one.' }))).toEqual(
      { destructiveHint: false },
    );
    expect(
      toolAnnotations(
        testOperation({ ...base, name: 'put_thing', effect: 'write', undo: 'Sets it.', idempotent: true }),
      ),
    ).toEqual({ destructiveHint: false, idempotentHint: true });
    expect(
      toolAnnotations(
        testOperation({
          ...base,
          name: 'risky_thing',
          effect: 'write',
          undo: 'Sets it.',
          needsApproval: () => 'why',
        }),
      ),
    ).toEqual({});
    expect(
      toolAnnotations(
        testOperation({
          ...base,
          name: 'drop_thing',
          route: 'DELETE /projects/:id/pipelines/:pipeline_id',
          input: z.object({ id: fields.projectId(), pipeline_id: z.number() }),
          effect: 'destructive',
          undo: 'Gone.',
        }),
      ),
    ).toEqual({});
  });
});
