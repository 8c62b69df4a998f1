// Every API area (AREAS in operations/engine/define.ts) has operations and a contract suite:
// test/contract/<area>.test.ts, whose coverage check (after its last test) fails when one of that area's operations
// was never called against the sandbox, so an area is not done until the sandbox answers each of its operations.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { AREAS } from '../../src/operations/engine/define.js';
import { operations } from '../../src/operations/index.js';

it('names in AREAS every area an operation belongs to', () => {
  expect(AREAS).toEqual(expect.arrayContaining([...new Set(operations.map((op) => op.area))]));
});

it.each(AREAS)('area %s has operations and a contract suite that checks its coverage', (area) => {
  expect(
    operations.some((op) => op.area === area),
    `no operation in area ${area}`,
  ).toBe(true);
  const file = new URL(`./${area.replace(/_/g, '-')}.test.ts`, import.meta.url);
  expect(existsSync(file), `missing ${file.pathname}`).toBe(true);
  const source = readFileSync(file, 'utf8');
  expect(source).toMatch(new RegExp(`contractSuite\\([^)]*'${area}'`));
  expect(source).toContain('suite.coverageCase();');
});

// Each contract file runs its tests shuffled, so that a test leaning on what another left fails on every run; a
// deliberate story says so with shuffle: false and a comment why.
it('runs every contract suite shuffled, or in order on purpose', () => {
  const dir = new URL('./', import.meta.url);
  const suites = readdirSync(dir)
    .filter((name) => name.endsWith('.test.ts'))
    .filter((name) => readFileSync(new URL(name, dir), 'utf8').includes('contractSuite('));
  expect(suites.length).toBeGreaterThan(AREAS.length);
  const unshuffled = suites.filter((name) => {
    const source = readFileSync(new URL(name, dir), 'utf8');
    return !source.includes('describe.shuffle(') && !source.includes('{ shuffle: false }');
  });
  expect(unshuffled).toEqual([]);
});
