// The names of the API areas alone, with no schema library, for what lists or chooses tools before any operation loads.
import { AREA_NAMES } from './area-names.generated.js';

/**
 * API areas, one per module in src/operations/areas/ (its defineArea's name), derived by tools/gen-areas.mjs; each
 * is also an MCP toolset. Areas beyond the spec (jobs, branches, tags, environments, deployments) follow the service's
 * public REST docs, v4. test/contract/coverage.test.ts wants each to have a contract suite that calls all its
 * operations against the sandbox.
 */
export const AREAS = AREA_NAMES;
export type Area = (typeof AREAS)[number];
