// Each API area's operations loaded on their own: `forgeops mcp` builds the zod schemas of the area a call needs,
// not every area's (the whole registry is most of a stdio server's first call). index.ts stays the whole registry;
// test/unit/operations/areas.test.ts holds the two to the same operations; a composed one (operations/composed/) is
// in no area module, and catalog.ts finds it in the whole registry. The loaders are derived from the area
// modules by tools/gen-areas.mjs.
export { AREA_LOADERS } from './area-loaders.generated.js';
