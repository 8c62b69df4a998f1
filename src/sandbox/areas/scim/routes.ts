// SCIM 2.0 provisioning of a group with single sign-on (RFC 7644, the spec's subset): list with an `eq` filter and
// SCIM paging, and read; create, PATCH (Replace/Add on the listed paths) and delete are in ./scim-change-routes.ts.
//
// The bearer token provisions one group; any other group path, or a group without single sign-on, is 404, so a
// token learns nothing about other groups. Errors are SCIM error bodies ({"detail": …, "status": "404"}), and
// responses application/scim+json.
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { scimError } from '../../core/errors.js';
import { param } from '../../core/params.js';
import type { Reply, Router, SandboxRequest } from '../../core/router.js';
import { provisioned, SCIM_LIST_SCHEMA, scimUserView } from './state.js';
import type { Group, Identity, User } from '../../core/store.js';
import { samlProvidersOf } from './state.js';

export const BASE = '/api/scim/v2/groups/:group_path/Users';
const DEFAULT_COUNT = 20;
const MAX_COUNT = 100;

/** `attribute eq "value"` (quotes optional); the spec supports `eq` only. */
const FILTER = /^\s*(\w+)\s+eq\s+(?:"([^"]*)"|(\S+))\s*$/i;
const FILTERABLE: Record<string, (user: User, identity: Identity) => string> = {
  id: (_user, identity) => identity.extern_uid,
  externalid: (_user, identity) => identity.extern_uid,
  username: (user) => user.username,
};

export function sendScim(reply: Reply, body: unknown, status = 200): void {
  reply.send(status, Buffer.from(JSON.stringify(body)), 'application/scim+json');
}

/** The token's own group, with single sign-on; 404 for any other path. */
export function scimGroup(ctx: SandboxContext, req: SandboxRequest<unknown>): Group {
  const { store } = ctx;
  const group = store.findGroup(req.pathParams.group_path);
  if (!group || group.id !== req.scimGroupId || !samlProvidersOf(store).has(group.id))
    throw scimError(404, 'Group Not Found');
  return group;
}

export function findProvisioned(
  ctx: SandboxContext,
  req: SandboxRequest<unknown>,
  group: Group,
): { user: User; identity: Identity } {
  const { store } = ctx;
  const found = provisioned(store, group).find(({ identity }) => identity.extern_uid === req.pathParams.id);
  if (!found) throw scimError(404, 'Resource not found');
  return found;
}

/** Listing and reading provisioned users. */
export function registerScimReads(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;
  router.route(
    'GET',
    BASE,
    {
      params: z.object({
        filter: z.string().optional(),
        startIndex: param.integer().optional(),
        count: param.integer().optional(),
      }),
    },
    (req, reply) => {
      const group = scimGroup(ctx, req);
      let found = provisioned(store, group);
      if (req.params.filter !== undefined) {
        const match = FILTER.exec(req.params.filter);
        const read = match ? FILTERABLE[match[1].toLowerCase()] : undefined;
        if (!match || !read) throw scimError(400, `Unsupported filter: ${req.params.filter}`);
        const wanted = match[2] ?? match[3];
        // userName compares case-insensitively (RFC 7643 caseExact false); ids exactly.
        const same =
          match[1].toLowerCase() === 'username'
            ? (v: string) => v.toLowerCase() === wanted.toLowerCase()
            : (v: string) => v === wanted;
        found = found.filter(({ user, identity }) => same(read(user, identity)));
      }
      const startIndex = Math.max(1, req.params.startIndex ?? 1);
      const count = Math.min(MAX_COUNT, Math.max(0, req.params.count ?? DEFAULT_COUNT));
      const page = found.slice(startIndex - 1, startIndex - 1 + count);
      sendScim(reply, {
        schemas: [SCIM_LIST_SCHEMA],
        totalResults: found.length,
        itemsPerPage: page.length,
        startIndex,
        Resources: page.map(({ user, identity }) => scimUserView(user, identity)),
      });
    },
  );

  router.route('GET', `${BASE}/:id`, {}, (req, reply) => {
    const { user, identity } = findProvisioned(ctx, req, scimGroup(ctx, req));
    sendScim(reply, scimUserView(user, identity));
  });
}
