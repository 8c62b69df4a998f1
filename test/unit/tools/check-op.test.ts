// `npm run check:op <name>` (tools/check-op.mjs) runs the tests an operation touches, and names near ones for a typo.
import { describe, expect, it } from 'vitest';
import { nearNames, planFor } from '../../../tools/check-op.mjs';
import { findOperation, operations } from '../../../src/operations/index.js';

describe('check:op', () => {
  it('runs a read beyond the spec in its contract suite, its rows, both interop suites and the architecture', () => {
    expect(planFor(findOperation('get_tag')!)).toEqual([
      ['test/contract/tags.test.ts'],
      [
        'test/unit/operations/registry.test.ts',
        'test/unit/operations/schemas.test.ts',
        'test/contract/readable-answers.test.ts',
        '-t',
        '(^|[^a-z_])get_tag([^a-z_]|$)',
      ],
      ['test/interop/python-gitlab.test.ts', 'test/interop/gitbeaker.test.ts'],
      ['test/unit/operations/areas.test.ts', 'test/unit/architecture.test.ts'],
    ]);
  });

  it("runs a change of the spec's with its safety decision, a composed one with its own contract suite too", () => {
    const [, rows, rest] = planFor(findOperation('create_commit')!);
    expect(rows).toContain('test/safety/change-decisions.test.ts');
    expect(rest).toEqual(['test/unit/operations/areas.test.ts', 'test/unit/architecture.test.ts']);
    expect(planFor(findOperation('wait_until_settled')!)[0]).toEqual([
      'test/contract/pipelines.test.ts',
      'test/contract/wait-until-settled.test.ts',
    ]);
  });

  it('names the operations nearest a mistyped name', () => {
    expect(
      nearNames(
        'get_tga',
        operations.map((op) => op.name),
      )[0],
    ).toBe('get_tag');
    expect(
      nearNames(
        'retry_pipelin',
        operations.map((op) => op.name),
      )[0],
    ).toBe('retry_pipeline');
  });
});
