// Provisioning, patching (Replace/Add on the listed paths) and deprovisioning a group's user over SCIM, by the rules of
// ./routes.ts. Deactivation (active=false) removes the user's SAML identity; delete removes the identity and the group
// membership. The user account itself stays: it may belong to other groups.
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { scimError } from '../../core/errors.js';
import { param } from '../../core/params.js';
import type { Router } from '../../core/router.js';
import { provisioned, SAML_PROVIDER, samlProvidersOf, scimUserView } from './state.js';
import { ACCESS, type Identity, type User } from '../../core/store.js';
import { BASE, findProvisioned, scimGroup, sendScim } from './routes.js';

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

const WORK_EMAIL_PATH = /^emails\[type eq "?work"?\]\.value$/i;

function removeIdentity(user: User, identity: Identity): void {
  user.identities.splice(user.identities.indexOf(identity), 1);
}

/** Provisioning, patching and deprovisioning a user. */
export function registerScimChanges(router: Router, ctx: SandboxContext): void {
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
