// SCIM 2.0 provisioning of a group with single sign-on (RFC 7644, the spec's subset): list with an `eq` filter and
// SCIM paging, read, create, PATCH (Replace/Add on the listed paths) and delete.
//
// The bearer token provisions one group; any other group path, or a group without single sign-on, is 404, so a
// token learns nothing about other groups. Errors are SCIM error bodies ({"detail": …, "status": "404"}), and
// responses application/scim+json. Deactivation (active=false) removes the user's SAML identity; delete removes the
// identity and the group membership. The user account itself stays: it may belong to other groups.
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { scimError } from '../../core/errors.js';
import { param } from '../../core/params.js';
import { registerAll, type Reply, type Router, type SandboxRequest } from '../../core/router.js';
import { provisioned, SAML_PROVIDER, SCIM_LIST_SCHEMA, scimUserView } from './state.js';
import { ACCESS, type Group, type Identity, type User } from '../../core/store.js';
import { samlProvidersOf } from './state.js';

const BASE = '/api/scim/v2/groups/:group_path/Users';
const DEFAULT_COUNT = 20;
const MAX_COUNT = 100;

// Required members are checked by the handlers, so that a missing one is a SCIM error body too.
const createParams = z.object({
  externalId: z.string().optional(),
  userName: z.string().optional(),
  emails: z
    .array(z.strictObject({ type: z.string().optional(), value: z.string(), primary: param.boolean().optional() }))
    .optional(),
  name: z
    .strictObject({
      formatted: z.string().optional(),
      familyName: z.string().optional(),
      givenName: z.string().optional(),
    })
    .optional(),
  meta: z.strictObject({ resourceType: z.literal('User') }).optional(),
  active: param.boolean().optional(),
  schemas: z.array(z.string()).optional(),
});

const patchParams = z.object({
  Operations: z.array(z.strictObject({ op: z.string(), path: z.string().optional(), value: z.unknown() })).optional(),
  schemas: z.array(z.string()).optional(),
});

/** `attribute eq "value"` (quotes optional); the spec supports `eq` only. */
const FILTER = /^\s*(\w+)\s+eq\s+(?:"([^"]*)"|(\S+))\s*$/i;
const FILTERABLE: Record<string, (user: User, identity: Identity) => string> = {
  id: (_user, identity) => identity.extern_uid,
  externalid: (_user, identity) => identity.extern_uid,
  username: (user) => user.username,
};

const WORK_EMAIL_PATH = /^emails\[type eq "?work"?\]\.value$/i;

function sendScim(reply: Reply, body: unknown, status = 200): void {
  reply.send(status, Buffer.from(JSON.stringify(body)), 'application/scim+json');
}

/** The token's own group, with single sign-on; 404 for any other path. */
function scimGroup(ctx: SandboxContext, req: SandboxRequest<unknown>): Group {
  const { store } = ctx;
  const group = store.findGroup(req.pathParams.group_path);
  if (!group || group.id !== req.scimGroupId || !samlProvidersOf(store).has(group.id))
    throw scimError(404, 'Group Not Found');
  return group;
}

function findProvisioned(
  ctx: SandboxContext,
  req: SandboxRequest<unknown>,
  group: Group,
): { user: User; identity: Identity } {
  const { store } = ctx;
  const found = provisioned(store, group).find(({ identity }) => identity.extern_uid === req.pathParams.id);
  if (!found) throw scimError(404, 'Resource not found');
  return found;
}

function removeIdentity(user: User, identity: Identity): void {
  user.identities.splice(user.identities.indexOf(identity), 1);
}

export const register = registerAll(registerScimReads, registerScimChanges);

/** Listing and reading provisioned users. */
function registerScimReads(router: Router, ctx: SandboxContext): void {
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

/** Provisioning, patching and deprovisioning a user. */
function registerScimChanges(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;
  router.route('POST', BASE, { params: createParams }, (req, reply) => {
    const group = scimGroup(ctx, req);
    const p = req.params;
    const email = p.emails?.find((e) => e.type === 'work')?.value;
    const missing = [
      ['externalId', p.externalId],
      ['userName', p.userName],
      ['emails (work)', email],
      ['name.formatted', p.name?.formatted],
      ['name.familyName', p.name?.familyName],
      ['name.givenName', p.name?.givenName],
    ]
      .filter(([, value]) => value === undefined || value.trim() === '')
      .map(([key]) => key);
    if (missing.length > 0) throw scimError(400, `Missing required attributes: ${missing.join(', ')}`);
    if (provisioned(store, group).some(({ identity }) => identity.extern_uid === p.externalId)) {
      throw scimError(409, 'User with this externalId already exists in the group');
    }
    const clash = store.users.find(
      (u) => u.username.toLowerCase() === p.userName!.toLowerCase() || u.email.toLowerCase() === email!.toLowerCase(),
    );
    if (clash) throw scimError(409, 'Username or email has already been taken');
    const identity: Identity = {
      provider: SAML_PROVIDER,
      extern_uid: p.externalId!,
      saml_provider_id: samlProvidersOf(store).get(group.id)!,
    };
    const user = store.addUser({
      username: p.userName!,
      name: p.name!.formatted!,
      email: email!,
      identities: [identity],
      confirmed_at: new Date(),
    });
    // Provisioned users join as guests; the group's owners raise them as needed. active=false creates nothing
    // active: the identity is not kept.
    group.members.set(user.id, { access_level: ACCESS.guest, expires_at: null, created_at: new Date() });
    const view = scimUserView(user, identity);
    if (p.active === false) removeIdentity(user, identity);
    sendScim(reply, { ...view, active: p.active ?? true }, 201);
  });

  router.route('PATCH', `${BASE}/:id`, { params: patchParams }, (req, reply) => {
    const group = scimGroup(ctx, req);
    const { user, identity } = findProvisioned(ctx, req, group);
    const operations = req.params.Operations;
    if (!operations || operations.length === 0) throw scimError(400, 'Operations is missing');
    // Checked in full before anything changes: a PATCH applies all of its operations or none.
    const changes: Array<() => void> = [];
    for (const { op, path, value } of operations) {
      if (!['replace', 'add'].includes(op.toLowerCase())) throw scimError(400, `Unsupported op: ${op}`);
      const asText = () => {
        if (typeof value !== 'string' || value.trim() === '') throw scimError(400, `Invalid value for ${path}`);
        return value;
      };
      const lower = path?.toLowerCase();
      if (lower === 'id' || lower === 'externalid') {
        const uid = asText();
        changes.push(() => (identity.extern_uid = uid));
      } else if (lower === 'name.formatted') {
        const name = asText();
        changes.push(() => (user.name = name));
      } else if (path !== undefined && WORK_EMAIL_PATH.test(path)) {
        const email = asText();
        changes.push(() => (user.email = email));
      } else if (lower === 'username') {
        const username = asText();
        changes.push(() => (user.username = username));
      } else if (lower === 'active') {
        const active =
          value === true || value === 'true' || value === 'True'
            ? true
            : value === false || value === 'false' || value === 'False'
              ? false
              : undefined;
        if (active === undefined) throw scimError(400, 'Invalid value for active');
        // Deactivation removes the SAML identity; the account and its group membership stay.
        if (!active) changes.push(() => removeIdentity(user, identity));
      } else {
        throw scimError(400, `Unsupported path: ${path ?? '(none)'}`);
      }
    }
    const newValue = (matches: (path: string) => boolean) => {
      const value = operations.find((o) => o.path !== undefined && matches(o.path))?.value;
      return typeof value === 'string' ? value.toLowerCase() : undefined;
    };
    const username = newValue((path) => path.toLowerCase() === 'username');
    const email = newValue((path) => WORK_EMAIL_PATH.test(path));
    if (
      store.users.some((u) => u !== user && (u.username.toLowerCase() === username || u.email.toLowerCase() === email))
    ) {
      throw scimError(409, 'Username or email has already been taken');
    }
    for (const change of changes) change();
    user.updated_at = new Date();
    reply.empty(204);
  });

  router.route('DELETE', `${BASE}/:id`, {}, (req, reply) => {
    const group = scimGroup(ctx, req);
    const { user, identity } = findProvisioned(ctx, req, group);
    removeIdentity(user, identity);
    group.members.delete(user.id);
    reply.empty(204);
  });
}
