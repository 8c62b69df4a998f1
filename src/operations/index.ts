// The operation registry: every API action forgeops knows, and the lookups the front ends use.
import type { Area, Operation } from './engine/define.js';
import { repositoryFilesOperations } from './areas/repository-files.js';
import { repositoryOperations } from './areas/repository.js';
import { commitsOperations } from './areas/commits.js';
import { pipelinesOperations } from './areas/pipelines.js';
import { releasesOperations } from './areas/releases.js';
import { projectReadOperations, projectsOperations } from './areas/projects.js';
import { usersOperations } from './areas/users.js';
import { issueChangeOperations, issuesOperations } from './areas/issues.js';
import { mergeRequestChangeOperations, mergeRequestsOperations } from './areas/merge-requests.js';
import { labelEventsOperations } from './areas/label-events.js';
import { notificationSettingsOperations } from './areas/notification-settings.js';
import { epicsOperations } from './areas/epics.js';
import { integrationsOperations } from './areas/integrations.js';
import { snippetsOperations } from './areas/snippets.js';
import { packagesOperations } from './areas/packages.js';
import { keysOperations } from './areas/keys.js';
import { scimOperations } from './areas/scim.js';
import { groupsOperations } from './areas/groups.js';
import { membersOperations } from './areas/members.js';
import { broadcastMessagesOperations } from './areas/broadcast-messages.js';
import { groupVariablesOperations } from './areas/group-variables.js';
import { auditEventsOperations } from './areas/audit-events.js';
import { applicationSettingsOperations } from './areas/application-settings.js';
import { groupImportExportOperations } from './areas/group-import-export.js';
import { jobsOperations } from './areas/jobs.js';
import { incidentIssueOperation, triageOperation } from './composed/triage.js';
import { revertAsMergeRequestOperation } from './composed/revert-as-merge-request.js';
import { buttonPremiseOperation } from './composed/button-premise.js';
import { branchesOperations } from './areas/branches.js';
import { tagsOperations } from './areas/tags.js';
import { environmentsOperations } from './areas/environments.js';
import { deploymentsOperations } from './areas/deployments.js';
import { rollbackEnvironmentOperation } from './composed/rollback-environment.js';
import { waitUntilSettledOperation } from './composed/wait-until-settled.js';

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
  environments: environmentsOperations,
  deployments: deploymentsOperations,
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
  buttonPremiseOperation(() => operations),
  rollbackEnvironmentOperation(() => operations),
  waitUntilSettledOperation(() => operations),
];

const byName = new Map(operations.map((op) => [op.name, op]));

export function findOperation(name: string): Operation | undefined {
  return byName.get(name);
}

export function operationsInArea(area: Area): Operation[] {
  return operations.filter((op) => op.area === area);
}
