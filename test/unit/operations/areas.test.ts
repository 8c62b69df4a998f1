// The area loaders `forgeops mcp` uses for a first call (operations/area-loaders.ts) hold exactly the registry's operations
// (operations/index.ts): each area's, as the same objects; only the composed ones are left to the whole registry.
import { describe, expect, it } from 'vitest';
import { AREA_LOADERS, WHOLE_REGISTRY_OPERATIONS } from '../../../src/operations/area-loaders.js';
import { AREAS } from '../../../src/operations/engine/define.js';
import { operations } from '../../../src/operations/index.js';
import { catalogData, prebuiltCatalog } from '../../../src/mcp/catalog.js';

describe('AREA_LOADERS', () => {
  it.each(AREAS)("%s: the registry's operations of the area, the same objects, none missing", async (area) => {
    const loaded = await AREA_LOADERS[area]();
    const registered = operations.filter((op) => op.area === area && !WHOLE_REGISTRY_OPERATIONS.includes(op.name));
    expect(loaded.map((op) => op.name)).toEqual(registered.map((op) => op.name));
    for (const op of loaded) expect(operations).toContain(op);
  });

  it('leaves to the whole registry only operations that are in it', () => {
    for (const name of WHOLE_REGISTRY_OPERATIONS) expect(operations.map((op) => op.name)).toContain(name);
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

  it('relates operations from its routes alone, as the registry does', () => {
    const routes = catalog.tools;
    expect(
      routes.map(({ name, method, path, pathParams, response }) => ({ name, method, path, pathParams, response })),
    ).toEqual(
      operations.map(({ name, method, path, pathParams, response }) => ({ name, method, path, pathParams, response })),
    );
  });
});
