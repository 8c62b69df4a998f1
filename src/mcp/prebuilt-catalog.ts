// The tool catalog computed at build time: tools/bundle.mjs replaces this module in the bundle with the catalog data
// of the registry (catalogData in catalog.ts); here, run from source, there is none.
import type { CatalogTool } from './tools.js';

export const PREBUILT_TOOLS: readonly CatalogTool[] | undefined = undefined;
