// Each API area's operations loaded on their own: `forgeops mcp` builds the zod schemas of the area a call needs,
// not every area's (the whole registry is most of a stdio server's first call). index.ts stays the whole registry;
// test/unit/operations/areas.test.ts holds the two to the same operations.
import type { Area, Operation } from './define.js';

type Loader = () => Promise<readonly Operation[]>;

export const AREA_LOADERS: Record<Area, Loader> = {
  repository_files: async () => (await import('./repository-files.js')).repositoryFilesOperations,
  repository: async () => (await import('./repository.js')).repositoryOperations,
  commits: async () => (await import('./commits.js')).commitsOperations,
  pipelines: async () => (await import('./pipelines.js')).pipelinesOperations,
  releases: async () => (await import('./releases.js')).releasesOperations,
  snippets: async () => (await import('./snippets.js')).snippetsOperations,
  packages: async () => (await import('./packages.js')).packagesOperations,
  integrations: async () => (await import('./integrations.js')).integrationsOperations,
  scim: async () => (await import('./scim.js')).scimOperations,
  groups: async () => (await import('./groups.js')).groupsOperations,
  projects: async () => {
    const projects = await import('./projects.js');
    return [...projects.projectsOperations, ...projects.projectReadOperations];
  },
  users: async () => (await import('./users.js')).usersOperations,
  members: async () => (await import('./members.js')).membersOperations,
  issues: async () => {
    const [issues, changes] = await Promise.all([import('./issues.js'), import('./work-item-changes.js')]);
    return [...issues.issuesOperations, ...changes.issueChangeOperations];
  },
  merge_requests: async () => {
    const [mergeRequests, changes] = await Promise.all([
      import('./merge-requests.js'),
      import('./work-item-changes.js'),
    ]);
    return [...mergeRequests.mergeRequestsOperations, ...changes.mergeRequestChangeOperations];
  },
  epics: async () => (await import('./epics.js')).epicsOperations,
  group_variables: async () => (await import('./group-variables.js')).groupVariablesOperations,
  notification_settings: async () => (await import('./notification-settings.js')).notificationSettingsOperations,
  label_events: async () => (await import('./label-events.js')).labelEventsOperations,
  audit_events: async () => (await import('./audit-events.js')).auditEventsOperations,
  broadcast_messages: async () => (await import('./broadcast-messages.js')).broadcastMessagesOperations,
  keys: async () => (await import('./keys.js')).keysOperations,
  group_import_export: async () => (await import('./group-import-export.js')).groupImportExportOperations,
  application_settings: async () => (await import('./application-settings.js')).applicationSettingsOperations,
  jobs: async () => (await import('./jobs.js')).jobsOperations,
  branches: async () => (await import('./branches.js')).branchesOperations,
  tags: async () => (await import('./branches.js')).tagsOperations,
};

/**
 * Operations no area module holds on its own: composed of the whole registry, they are made by index.ts
 * (triage_project looks up the reads it runs there, open_incident_issue triage and the issue writes, revert_as_merge_request triage and the branch, commit and merge request calls).
 */
export const WHOLE_REGISTRY_OPERATIONS: readonly string[] = [
  'triage_project',
  'open_incident_issue',
  'revert_as_merge_request',
];
