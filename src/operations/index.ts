// The operation registry: every API action forgeops knows, and the lookups the front ends use.
import type { Area, Operation } from './define.js';
import { repositoryFilesOperations } from './repository-files.js';
import { repositoryOperations } from './repository.js';
import { commitsOperations } from './commits.js';
import { pipelinesOperations } from './pipelines.js';
import { releasesOperations } from './releases.js';
import { projectsOperations } from './projects.js';
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
import { issueChangeOperations, mergeRequestChangeOperations, projectReadOperations } from './work-item-changes.js';

export const operations: readonly Operation[] = [
  ...repositoryFilesOperations,
  ...repositoryOperations,
  ...commitsOperations,
  ...pipelinesOperations,
  ...releasesOperations,
  ...projectsOperations,
  ...usersOperations,
  ...issuesOperations,
  ...mergeRequestsOperations,
  ...labelEventsOperations,
  ...notificationSettingsOperations,
  ...epicsOperations,
  ...integrationsOperations,
  ...snippetsOperations,
  ...packagesOperations,
  ...keysOperations,
  ...scimOperations,
  ...groupsOperations,
  ...membersOperations,
  ...broadcastMessagesOperations,
  ...groupVariablesOperations,
  ...auditEventsOperations,
  ...applicationSettingsOperations,
  ...groupImportExportOperations,
  // Beyond the spec (outsideSpec): the service's public REST docs, v4.
  ...jobsOperations,
  ...branchesOperations,
  ...tagsOperations,
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
