// Each API area's operations loaded on their own: `forgeops mcp` builds the zod schemas of the area a call needs,
// not every area's (the whole registry is most of a stdio server's first call). index.ts stays the whole registry;
// test/unit/operations/areas.test.ts holds the two to the same operations.
import type { Area, Operation } from './engine/define.js';

type Loader = () => Promise<readonly Operation[]>;

export const AREA_LOADERS: Record<Area, Loader> = {
  repository_files: async () => (await import('./areas/repository-files.js')).repositoryFilesOperations,
  repository: async () => (await import('./areas/repository.js')).repositoryOperations,
  commits: async () => (await import('./areas/commits.js')).commitsOperations,
  pipelines: async () => (await import('./areas/pipelines.js')).pipelinesOperations,
  releases: async () => (await import('./areas/releases.js')).releasesOperations,
  snippets: async () => (await import('./areas/snippets.js')).snippetsOperations,
  packages: async () => (await import('./areas/packages.js')).packagesOperations,
  integrations: async () => (await import('./areas/integrations.js')).integrationsOperations,
  scim: async () => (await import('./areas/scim.js')).scimOperations,
  groups: async () => (await import('./areas/groups.js')).groupsOperations,
  projects: async () => {
    const projects = await import('./areas/projects.js');
    return [...projects.projectsOperations, ...projects.projectReadOperations];
  },
  users: async () => (await import('./areas/users.js')).usersOperations,
  members: async () => (await import('./areas/members.js')).membersOperations,
  issues: async () => {
    const issues = await import('./areas/issues.js');
    return [...issues.issuesOperations, ...issues.issueChangeOperations];
  },
  merge_requests: async () => {
    const mergeRequests = await import('./areas/merge-requests.js');
    return [...mergeRequests.mergeRequestsOperations, ...mergeRequests.mergeRequestChangeOperations];
  },
  epics: async () => (await import('./areas/epics.js')).epicsOperations,
  group_variables: async () => (await import('./areas/group-variables.js')).groupVariablesOperations,
  notification_settings: async () => (await import('./areas/notification-settings.js')).notificationSettingsOperations,
  label_events: async () => (await import('./areas/label-events.js')).labelEventsOperations,
  audit_events: async () => (await import('./areas/audit-events.js')).auditEventsOperations,
  broadcast_messages: async () => (await import('./areas/broadcast-messages.js')).broadcastMessagesOperations,
  keys: async () => (await import('./areas/keys.js')).keysOperations,
  group_import_export: async () => (await import('./areas/group-import-export.js')).groupImportExportOperations,
  application_settings: async () => (await import('./areas/application-settings.js')).applicationSettingsOperations,
  jobs: async () => (await import('./areas/jobs.js')).jobsOperations,
  branches: async () => (await import('./areas/branches.js')).branchesOperations,
  tags: async () => (await import('./areas/tags.js')).tagsOperations,
  environments: async () => (await import('./areas/environments.js')).environmentsOperations,
  deployments: async () => (await import('./areas/deployments.js')).deploymentsOperations,
};

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
