// The sandbox's areas: AREAS is generated from the area folders (./areas.generated.ts), so a new area is only its folder.
//
// How to add an area (see ../core/area.ts for SandboxArea and areaState):
//   1. make a folder areas/<area>/ with state.ts (its records, its per-store state declared with
//      areaState('<key>', init), its demo data), routes.ts and index.ts exporting `area: SandboxArea`
//      ({ name, routes, webRoutes?, seed?, forgetUser? }; webRoutes declares paths outside /api, like /oauth/token);
//   2. run `node tools/gen-sandbox-areas.mjs` (npm run build runs it) to regenerate ./areas.generated.ts, which imports
//      every folder's index.ts in folder-name order; edit no list. Areas seed in that order, after the core seed; an
//      area's seed takes ids (store.nextId) only of kinds that no other area seeds, so that no demo id depends on
//      the order (test/unit/sandbox/seed-order.test.ts seeds in shuffled orders and compares every id).
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
export { AREAS } from './areas.generated.js';
