// The list of route modules. How to add one:
//
//   A route module is a file in this folder that exports
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
//       Use the `param` helpers of ../params.js (param.boolean(), param.integer(), param.datetime(), …) so that
//       query-string and form values ('True', '12') are coerced; nested objects use z.strictObject.
//     - options.pagination: 'offset' accepts page/per_page; reply with paginate(req, reply, items) from
//       ../paginate.js. options.auth: 'user' (401 without token), 'admin' (401, then 403 for a non-administrator)
//       or 'scim'. HEAD is never implied by GET: declare it (a HEAD reply's body is dropped by node, so
//       reply.empty(200) after setting headers).
//     - the handler gets (req, reply): req.user is the caller or null; reply.json(body, status?),
//       reply.send(status, bytes, contentType), reply.empty(status?) and reply.header(name, value).
//       Throw the helpers of ../errors.js (notFound('Commit'), forbidden(), validationError({...}),
//       messageError(status, text), codedError(status, text, 'conflict')); anything else thrown is a 500.
//     - ctx (../context.js) has the store (projects carry their GitRepo as project.repo, plus pipelines,
//       releases, milestones and commitComments), requireUser(req), findProjectFor(req, id, { minAccess }),
//       findGroupFor(req, id, { minAccess }), projectAccess(user, project) and log(line).
//       Shared response shapes (users, projects, milestones, pipelines) are in ../views.js.
//
//   Then add one import and one entry to ROUTE_MODULES below.
import type { SandboxContext } from '../core/context.js';
import type { Router } from '../core/router.js';
import * as applicationSettings from './application-settings/routes.js';
import * as auditEvents from './audit-events/routes.js';
import * as broadcastMessages from './broadcast-messages/routes.js';
import * as commits from './repository/commits-routes.js';
import * as epics from './work-items/epics-routes.js';
import * as groupImportExport from './group-import-export/routes.js';
import * as groupVariables from './group-variables/routes.js';
import * as groups from './groups/routes.js';
import * as integrations from './integrations/routes.js';
import * as issues from './work-items/issues-routes.js';
import * as keys from './ssh-keys/routes.js';
import * as labelEvents from './work-items/label-events-routes.js';
import * as members from './members/routes.js';
import * as mergeRequests from './work-items/merge-requests-routes.js';
import * as notificationSettings from './notification-settings/routes.js';
import * as packages from './packages/routes.js';
import * as pipelines from './pipelines/routes.js';
import * as projects from './projects/routes.js';
import * as releases from './releases/routes.js';
import * as repositoryFiles from './repository/files-routes.js';
import * as repository from './repository/routes.js';
import * as scim from './scim/routes.js';
import * as snippets from './snippets/routes.js';
import * as user from './users/user-routes.js';
import * as users from './users/routes.js';

export interface RouteModule {
  register(router: Router, ctx: SandboxContext): void;
}

const ROUTE_MODULES: RouteModule[] = [
  user, projects, pipelines, releases, repositoryFiles, repository, commits, issues, mergeRequests, labelEvents,
  notificationSettings, snippets, packages, epics, integrations, users, keys, scim, groups, members, broadcastMessages,
  groupVariables, auditEvents, applicationSettings, groupImportExport,
];

export function registerRoutes(router: Router, ctx: SandboxContext): void {
  for (const module of ROUTE_MODULES) module.register(router, ctx);
}
