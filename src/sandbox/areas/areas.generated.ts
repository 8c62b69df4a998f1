// Generated from the area folders by node tools/gen-sandbox-areas.mjs (npm run build runs it): do not edit.
import type { SandboxArea } from '../core/area.js';
import { area as applicationSettings } from './application-settings/index.js';
import { area as auditEvents } from './audit-events/index.js';
import { area as branches } from './branches/index.js';
import { area as broadcastMessages } from './broadcast-messages/index.js';
import { area as groupImportExport } from './group-import-export/index.js';
import { area as groupVariables } from './group-variables/index.js';
import { area as groups } from './groups/index.js';
import { area as integrations } from './integrations/index.js';
import { area as jobs } from './jobs/index.js';
import { area as members } from './members/index.js';
import { area as notificationSettings } from './notification-settings/index.js';
import { area as oauth } from './oauth/index.js';
import { area as packages } from './packages/index.js';
import { area as pipelines } from './pipelines/index.js';
import { area as projectHooks } from './project-hooks/index.js';
import { area as projects } from './projects/index.js';
import { area as releases } from './releases/index.js';
import { area as repository } from './repository/index.js';
import { area as scim } from './scim/index.js';
import { area as snippets } from './snippets/index.js';
import { area as sshKeys } from './ssh-keys/index.js';
import { area as tags } from './tags/index.js';
import { area as users } from './users/index.js';
import { area as workItems } from './work-items/index.js';

/** Every area, by folder name. */
export const AREAS: readonly SandboxArea[] = [
  applicationSettings,
  auditEvents,
  branches,
  broadcastMessages,
  groupImportExport,
  groupVariables,
  groups,
  integrations,
  jobs,
  members,
  notificationSettings,
  oauth,
  packages,
  pipelines,
  projectHooks,
  projects,
  releases,
  repository,
  scim,
  snippets,
  sshKeys,
  tags,
  users,
  workItems,
];
