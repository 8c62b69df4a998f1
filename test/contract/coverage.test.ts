// Every API area of the registry has a contract suite: test/contract/<area>.test.ts, whose own last case fails
// when one of that area's operations was never called against the sandbox.
import { existsSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { operations } from '../../src/operations/index.js';

const areas = [...new Set(operations.map((op) => op.area))];

it.each(areas)('area %s has a contract suite that checks its coverage', (area) => {
  const file = new URL(`./${area.replace(/_/g, '-')}.test.ts`, import.meta.url);
  expect(existsSync(file), `missing ${file.pathname}`).toBe(true);
  const source = readFileSync(file, 'utf8');
  expect(source).toMatch(new RegExp(`contractSuite\\([^)]*'${area}'`));
  expect(source).toContain('suite.coverageCase();');
});
