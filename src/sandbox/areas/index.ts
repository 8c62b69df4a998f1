// The list of the sandbox's areas: the only place, besides the area's own folder, that a new area is added.
//
// How to add an area (see ../core/area.ts for SandboxArea and areaState):
//   1. make a folder areas/<area>/ with state.ts (its records, its per-store state declared with
//      areaState('<key>', init), its demo data), routes.ts and index.ts exporting `area: SandboxArea`
//      ({ name, routes, webRoutes?, seed?, forgetUser? }; webRoutes declares paths outside /api, like /oauth/token);
//   2. import it below and add it to AREAS.
//   An area imports the core (../../core/*, ../../git/*) and its own folder; another area only through that area's
//   index.ts, and such an edge is listed in test/unit/architecture.test.ts.
//
// How to write routes: routes.ts exports
//     export function register(router: Router, ctx: SandboxContext): void
//   and declares its routes with router.route(method, pattern, options, handler):
//     - pattern is the spec's path relative to /api/v4 ('/projects/:id/pipelines/:pipeline_id'); SCIM routes
//       are written in full ('/api/scim/v2/groups/:group_path/Users'). A segment like 'archive[.format]' matches
//       'archive' and 'archive.<anything>', giving pathParams.format ('' when absent).
//     - path parameters arrive decoded in req.pathParams (':id' 'group%2Fapp' → 'group/app';
//       ':file_path' 'src%2Fa%20b.ts' → 'src/a b.ts'); integerPathParam(req, name) reads numeric ones.
//     - options.params is a zod object of the query and body parameters (merged); unknown names are
//       ignored as the service ignores them but named in the request log (400 {"error": "<name> is not a known
//       parameter"} with startSandbox({ strictParams: true })), null counts as absent, missing required ones get
//       {"error": "<name> is missing"}, wrong types/enum values {"error": "<name> does not have a valid value"}.
//       Use the `param` helpers of ../../core/params.js (param.boolean(), param.integer(), param.datetime(), …) so that
//       query-string and form values ('True', '12') are coerced; nested objects use z.strictObject.
//     - options.pagination: 'offset' accepts page/per_page; reply with paginate(req, reply, items) from
//       ../../core/paginate.js. options.auth: 'user' (401 without token), 'admin' (401, then 403 for a non-administrator)
//       or 'scim'. HEAD is never implied by GET: declare it (a HEAD reply's body is dropped by node, so
//       reply.empty(200) after setting headers).
//     - the handler gets (req, reply): req.user is the caller or null; reply.json(body, status?),
//       reply.send(status, bytes, contentType), reply.empty(status?) and reply.header(name, value).
//       Throw the helpers of ../../core/errors.js (notFound('Commit'), forbidden(), validationError({...}),
//       messageError(status, text), codedError(status, text, 'conflict')); anything else thrown is a 500.
//     - ctx (../../core/context.js) has the store (projects carry their GitRepo as project.repo, plus pipelines,
//       releases, milestones and commitComments), requireUser(req), findProjectFor(req, id, { minAccess }),
//       findGroupFor(req, id, { minAccess }), projectAccess(user, project) and log(line).
//       Shared response shapes (users, projects, milestones, pipelines) are in ../../core/views.js.
//
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

/**
 * Every area. Seeds run in this order after the core seed (the order of the first ten keeps the demo ids they
 * have always had); routes are matched by specificity, so their order does not matter.
 */
export const AREAS: readonly SandboxArea[] = [
  workItems,
  integrations,
  snippets,
  packages,
  users,
  sshKeys,
  scim,
  broadcastMessages,
  groupVariables,
  auditEvents,
  projects,
  pipelines,
  releases,
  repository,
  notificationSettings,
  groups,
  members,
  applicationSettings,
  groupImportExport,
  jobs,
  branches,
  tags,
  projectHooks,
  oauth,
];
