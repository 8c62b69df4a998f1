// The names of the API areas alone, with no schema library, for what lists or chooses tools before any operation loads.
/**
 * API areas, as named in endpoints.tsv, then the areas beyond the spec (jobs, branches, tags, environments,
 * deployments: the service's public REST docs, v4); each is also an MCP toolset. The one list of them: the registry (index.ts) and the area loaders
 * (areas.ts) are keyed by it and fail to compile without an area of it, and test/contract/coverage.test.ts wants
 * each to have a contract suite that calls all its operations against the sandbox.
 */
export const AREAS = [
  'repository_files',
  'repository',
  'commits',
  'pipelines',
  'releases',
  'snippets',
  'packages',
  'integrations',
  'scim',
  'groups',
  'projects',
  'users',
  'members',
  'issues',
  'merge_requests',
  'epics',
  'group_variables',
  'notification_settings',
  'label_events',
  'audit_events',
  'broadcast_messages',
  'keys',
  'group_import_export',
  'application_settings',
  'jobs',
  'branches',
  'tags',
  'environments',
  'deployments',
] as const;
export type Area = (typeof AREAS)[number];
