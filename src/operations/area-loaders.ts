// Each API area's operations loaded on their own: `forgeops mcp` builds the zod schemas of the area a call needs,
// not every area's (the whole registry is most of a stdio server's first call). index.ts stays the whole registry;
// test/unit/operations/areas.test.ts holds the two to the same operations. The loaders are derived from the area
// modules by tools/gen-areas.mjs.
export { AREA_LOADERS } from './area-loaders.generated.js';

/**
 * Operations no area module holds on its own: composed of the whole registry, they are made by index.ts
 * (triage_project looks up the reads it runs there, open_incident_issue triage and the issue writes, revert_as_merge_request triage and the branch, commit and merge request calls, check_button_premise the pipeline, commit and merge request reads, rollback_environment the environment and deployment reads and retry_job, wait_until_settled the branch, pipeline, job and merge request reads).
 */
export const WHOLE_REGISTRY_OPERATIONS: readonly string[] = [
  'triage_project',
  'open_incident_issue',
  'revert_as_merge_request',
  'check_button_premise',
  'rollback_environment',
  'wait_until_settled',
];
