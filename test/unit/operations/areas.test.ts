// The area loaders `forgeops mcp` uses for a first call (operations/area-loaders.ts) hold exactly the registry's operations
// (operations/index.ts): each area's, as the same objects; only the composed ones are left to the whole registry.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanAreas, staleFiles } from '../../../tools/gen-areas.mjs';
import { AREA_LOADERS } from '../../../src/operations/area-loaders.js';
import { AREAS } from '../../../src/operations/engine/define.js';
import { areas, operations } from '../../../src/operations/index.js';
import { catalogData, prebuiltCatalog } from '../../../src/mcp/catalog.js';

describe('AREA_LOADERS', () => {
  /** Made by index.ts from the whole registry, in no area module. */
  const composed = new Set(operations.filter((op) => !areas.some((area) => area.operations.includes(op))));

  it.each(AREAS)("%s: the registry's operations of the area, the same objects, none missing", async (area) => {
    const loaded = await AREA_LOADERS[area]();
    const registered = operations.filter((op) => op.area === area && !composed.has(op));
    expect(loaded.map((op) => op.name)).toEqual(registered.map((op) => op.name));
    for (const op of loaded) expect(operations).toContain(op);
  });

  it('leaves to the whole registry only composed operations', () => {
    expect(composed.size).toBeGreaterThan(0);
    for (const op of composed) expect(op.composedOf?.length, `${op.name} is in no area module`).toBeGreaterThan(0);
  });
});

describe('the area lists derived from the area modules (tools/gen-areas.mjs)', () => {
  it('are up to date with src/operations/areas/*.ts', () => {
    expect(staleFiles(), 'run `node tools/gen-areas.mjs` (or `npm run build`) and commit what it writes').toEqual([]);
  });

  it('name one area per module, as its defineArea does, and hold its operations', () => {
    expect(areas.map((area) => area.name)).toEqual([...AREAS]);
    for (const area of areas) expect(area.operations.every((op) => op.area === area.name)).toBe(true);
  });

  it('refuse a module that declares no area, naming the file (the scan can fail)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gen-areas-'));
    try {
      writeFileSync(join(dir, 'jobs.ts'), "export const area = defineArea({ name: 'jobs', operations: [] });\n");
      expect(scanAreas(dir)).toEqual([{ file: 'jobs', name: 'jobs' }]);
      writeFileSync(join(dir, 'stray.ts'), 'export const strayOperations = [];\n');
      expect(() => scanAreas(dir)).toThrow(/stray\.ts: an area module exports `export const area = defineArea/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the built-in catalog', () => {
  const catalog = prebuiltCatalog(catalogData(operations), async () => operations);

  it('gives each operation by name, as the registry has it, and nothing for an unknown name', async () => {
    for (const name of ['list_pipelines', 'delete_branch', 'triage_project', 'update_scim_user']) {
      expect(await catalog.operation(name)).toBe(operations.find((op) => op.name === name));
    }
    expect(await catalog.operation('no_such_tool')).toBeUndefined();
  });

  it("carries no operation's demo inputs or decisions: the bundle embeds it, and they are the tests' alone", () => {
    expect(JSON.stringify(catalogData(operations))).not.toMatch(/demoLookup|"examples"|"decisions"/);
  });

  it('relates operations from its routes alone, as the registry does', () => {
    const routes = catalog.tools;
    expect(
      routes.map(({ name, method, path, pathParams, response }) => ({ name, method, path, pathParams, response })),
    ).toEqual(
      operations.map(({ name, method, path, pathParams, response }) => ({ name, method, path, pathParams, response })),
    );
  });
});
