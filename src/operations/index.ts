// The operation registry: every API action forgeops knows, and the lookups the front ends use.
import type { Area, Operation } from './define.js';
import { repositoryFilesOperations } from './repository-files.js';
import { repositoryOperations } from './repository.js';
import { commitsOperations } from './commits.js';
import { pipelinesOperations } from './pipelines.js';
import { releasesOperations } from './releases.js';
import { projectReadOperations, projectsOperations } from './projects.js';
import { usersOperations } from './users.js';
import { issuesOperations } from './issues.js';
import { mergeRequestsOperations } from './merge-requests.js';
import { labelEventsOperations } from './label-events.js';
import { notificationSettingsOperations } from './notification-settings.js';
import { epicsOperations } from './epics.js';
import { integrationsOperations } from './integrations.js';
import { snippetsOperations } from './snippets.js';
import { packagesOperations } from './packages.js';
import { keysOperations } from './keys.js';
import { scimOperations } from './scim.js';
import { groupsOperations } from './groups.js';
import { membersOperations } from './members.js';
import { broadcastMessagesOperations } from './broadcast-messages.js';
import { groupVariablesOperations } from './group-variables.js';
import { auditEventsOperations } from './audit-events.js';
import { applicationSettingsOperations } from './application-settings.js';
import { groupImportExportOperations } from './group-import-export.js';
import { jobsOperations } from './jobs.js';
import { incidentIssueOperation, triageOperation } from './triage.js';
import { revertAsMergeRequestOperation } from './revert-as-merge-request.js';
import { branchesOperations, tagsOperations } from './branches.js';
import { issueChangeOperations, mergeRequestChangeOperations } from './work-item-changes.js';

/**
 * Each area's operations, in the order tools, help and docs list them. The compiler holds the keys to AREAS
 * (define.ts): an area added there fails to build until it has an entry here, as it must in areas.ts.
 */
const AREA_OPERATIONS = {
  repository_files: repositoryFilesOperations,
  repository: repositoryOperations,
  commits: commitsOperations,
  pipelines: pipelinesOperations,
  releases: releasesOperations,
  projects: projectsOperations,
  users: usersOperations,
  issues: issuesOperations,
  merge_requests: mergeRequestsOperations,
  label_events: labelEventsOperations,
  notification_settings: notificationSettingsOperations,
  epics: epicsOperations,
  integrations: integrationsOperations,
  snippets: snippetsOperations,
  packages: packagesOperations,
  keys: keysOperations,
  scim: scimOperations,
  groups: groupsOperations,
  members: membersOperations,
  broadcast_messages: broadcastMessagesOperations,
  group_variables: groupVariablesOperations,
  audit_events: auditEventsOperations,
  application_settings: applicationSettingsOperations,
  group_import_export: groupImportExportOperations,
  // Beyond the spec (outsideSpec): the service's public REST docs, v4.
  jobs: jobsOperations,
  branches: branchesOperations,
  tags: tagsOperations,
} satisfies Record<Area, readonly Operation[]>;

export const operations: readonly Operation[] = [
  ...Object.values(AREA_OPERATIONS).flat(),
  // Beyond the spec, of the projects, merge requests and issues areas: listed after every area's own operations,
  // in the order tools, help and docs show them.
  ...projectReadOperations,
  ...mergeRequestChangeOperations,
  ...issueChangeOperations,
  // Composed of the reads above; it looks them up when it runs (this list is not built yet when it is defined).
  triageOperation(() => operations),
  incidentIssueOperation(() => operations),
  revertAsMergeRequestOperation(() => operations),
];

const byName = new Map(operations.map((op) => [op.name, op]));

export function findOperation(name: string): Operation | undefined {
  return byName.get(name);
}

export function operationsInArea(area: Area): Operation[] {
  return operations.filter((op) => op.area === area);
}
