// Users: the list and one user (public form, or the administrator form for administrators), and the
// administrator-only writes — create, update, remove an identity, delete — plus the caller's own status.
//
// The spec's rules: creation needs one of password, reset_password, force_random_password (when both flags are
// false, password is required; the flags win over a password); an update answers 404 even where 409 would fit (an
// email or username already taken: "404 Email has already been taken Not Found", as the service words it); a new
// password set by an administrator must be changed at next sign-in; delete is 204, 404 for an unknown user, 409 for
// a soft delete of the sole owner of a group (hard_delete removes those groups too). A sign-in identity (extern_uid
// at a provider) already linked to another account is refused, 409 on create and (the spec's 404 rule) 404 on
// update; an avatar is an image file part of a multipart form, kept and shown as avatar_url. Writes: 401 anonymous, 403
// non-administrators, before anything is looked up. The list's order_by, sort and two_factor, and custom attributes
// (filter and with_custom_attributes), are for administrators; other callers' values are ignored, as the service
// ignores them.
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { forbidden, messageError, notFound, paramError, validationError } from '../../core/errors.js';
import { paginate } from '../../core/paginate.js';
import { param } from '../../core/params.js';
import { integerPathParam, type Router, type SandboxRequest, registerAll } from '../../core/router.js';
import type { TokenScope } from '../../core/scopes.js';
import type { User } from '../../core/store.js';
import { escapeHtml, userAdmin, userBasic, userDetailed } from '../../core/views.js';
import { passwordsOf } from './state.js';
import { samlProvidersOf } from '../scim/index.js';
import { ownEntry } from '../../core/own-key.js';
import {
  applyProfile,
  avatarOf,
  checkIdentityPair,
  createParams,
  identityOwner,
  taken,
  updateParams,
  validate,
} from './accounts.js';

/** A token with read_user may read the users API, as on the service (not /users/:id/projects: that is the projects API). */
export const USERS_API: readonly TokenScope[] = ['read_user'];
const text = () => z.string();
const flag = () => param.boolean().optional();

const listParams = z.object({
  search: text().optional(),
  username: text().optional(),
  active: flag(),
  blocked: flag(),
  extern_uid: text().optional(),
  provider: text().optional(),
  external: flag(),
  created_before: param.datetime().optional(),
  created_after: param.datetime().optional(),
  custom_attributes: param.hash().optional(),
  with_custom_attributes: flag(),
  order_by: param.enum(['id', 'name', 'username', 'created_at', 'updated_at']).optional(),
  sort: param.enum(['asc', 'desc']).optional(),
  two_factor: param.enum(['enabled', 'disabled']).optional(),
});

/** Administrator writes and reads: 401 anonymous, 403 anyone else, before anything is looked up. */
function requireAdmin(ctx: SandboxContext, req: SandboxRequest<unknown>): User {
  const user = ctx.requireUser(req);
  if (!user.is_admin) throw forbidden();
  return user;
}

function findTarget(ctx: SandboxContext, req: SandboxRequest<unknown>): User {
  const { store } = ctx;
  const user = store.findUser(String(integerPathParam(req, 'id')));
  if (!user) throw notFound('User');
  return user;
}

function withAttributes(user: User, view: object, wanted: boolean | undefined) {
  return wanted
    ? { ...view, custom_attributes: Object.entries(user.custom_attributes).map(([key, value]) => ({ key, value })) }
    : view;
}

export const register = registerAll(registerUserReads, registerUserChanges, registerUserRemovals);

/** Listing users and reading one. */
function registerUserReads(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;
  router.route('GET', '/users', { params: listParams, pagination: 'offset', readScopes: USERS_API }, (req, reply) => {
    const p = req.params;
    const admin = req.user?.is_admin === true;
    checkIdentityPair(p);
    const search = p.search?.toLowerCase();
    const users = store.users.filter(
      (u) =>
        (search === undefined ||
          u.name.toLowerCase().includes(search) ||
          u.username.toLowerCase().includes(search) ||
          u.email.toLowerCase() === search) &&
        (p.username === undefined || u.username.toLowerCase() === p.username.toLowerCase()) &&
        // The spec: false values of these filters are not supported (they filter nothing).
        (p.active !== true || u.state === 'active') &&
        (p.blocked !== true || u.state === 'blocked') &&
        (p.external !== true || u.external) &&
        (p.extern_uid === undefined ||
          u.identities.some((i) => i.provider === p.provider && i.extern_uid === p.extern_uid)) &&
        (p.created_before === undefined || u.created_at < p.created_before) &&
        (p.created_after === undefined || u.created_at > p.created_after) &&
        (!admin || p.two_factor === undefined || u.two_factor_enabled === (p.two_factor === 'enabled')) &&
        (!admin ||
          Object.entries(p.custom_attributes ?? {}).every(
            ([key, value]) => ownEntry(u.custom_attributes, key) === value,
          )),
    );
    const orderBy = admin ? (p.order_by ?? 'id') : 'id';
    const direction = admin && p.sort === 'asc' ? 1 : -1;
    const key = (u: User): string | number =>
      orderBy === 'id'
        ? u.id
        : orderBy === 'created_at'
          ? u.created_at.getTime()
          : orderBy === 'updated_at'
            ? (u.updated_at ?? u.created_at).getTime()
            : u[orderBy].toLowerCase();
    users.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.id - b.id) * direction);
    reply.json(
      paginate(req, reply, users).map((u) =>
        admin ? withAttributes(u, userAdmin(store, u), p.with_custom_attributes) : userBasic(store, u),
      ),
    );
  });

  const oneParams = { params: z.object({ with_custom_attributes: flag() }), readScopes: USERS_API };
  router.route('GET', '/users/:id', oneParams, (req, reply) => {
    const user = findTarget(ctx, req);
    const admin = req.user?.is_admin === true;
    reply.json(
      admin
        ? withAttributes(user, userAdmin(store, user), req.params.with_custom_attributes)
        : userDetailed(store, user),
    );
  });
}

/** Creating and editing a user (administrators). */
function registerUserChanges(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;
  router.route('POST', '/users', { params: createParams, auth: 'user' }, (req, reply) => {
    requireAdmin(ctx, req);
    const p = req.params;
    const reset = p.reset_password === true;
    const random = p.force_random_password === true;
    if (!reset && !random && p.password === undefined) {
      throw paramError(
        p.reset_password === undefined && p.force_random_password === undefined
          ? 'password, reset_password, force_random_password are missing, at least one parameter must be provided'
          : 'password is missing',
      );
    }
    checkIdentityPair(p);
    // The flags take priority: a password sent with either is not used.
    validate(reset || random ? { ...p, password: undefined } : p);
    const conflict = taken(store, p);
    if (conflict) throw messageError(409, `${conflict} has already been taken`);
    avatarOf(p);
    // One identity signs in to one account: linking it to a second would hand that account to its owner.
    if (identityOwner(store, p)) throw messageError(409, 'Identity has already been taken');
    const now = new Date();
    const user = store.addUser({
      email: p.email,
      username: p.username,
      name: p.name,
      created_at: now,
      // Unconfirmed until the user follows the e-mailed link, unless the administrator skips that.
      confirmed_at: p.skip_confirmation === true ? now : null,
      identities: p.extern_uid !== undefined ? [{ provider: p.provider!, extern_uid: p.extern_uid }] : [],
    });
    applyProfile(user, p);
    if (reset || random) passwordsOf(store).setRandom(user);
    else passwordsOf(store).set(user, p.password!, false);
    reply.json(userAdmin(store, user), 201);
  });

  router.route('PUT', '/users/:id', { params: updateParams, auth: 'user' }, (req, reply) => {
    requireAdmin(ctx, req);
    const user = findTarget(ctx, req);
    const p = req.params;
    checkIdentityPair(p);
    validate(p);
    const conflict = taken(store, p, user);
    if (conflict) throw notFound(`${conflict} has already been taken`);
    avatarOf(p);
    // The spec: update answers 404 even where 409 would fit, an identity linked to another account included.
    if (identityOwner(store, p, user)) throw notFound('Identity has already been taken');
    let samlProvider: number | undefined;
    if (p.group_id_for_saml !== undefined) {
      samlProvider = samlProvidersOf(store).get(p.group_id_for_saml);
      if (samlProvider === undefined) throw validationError({ identities: ['group has no single sign-on'] });
    }
    applyProfile(user, p);
    if (p.name !== undefined) user.name = p.name;
    if (p.username !== undefined) user.username = p.username;
    if (p.note !== undefined) user.note = p.note;
    if (p.email !== undefined && p.email !== user.email) {
      user.email = p.email;
      // A changed address is confirmed again by its owner unless the administrator skips that.
      if (p.skip_reconfirmation !== true) user.confirmed_at = null;
    }
    if (p.extern_uid !== undefined) {
      const existing = user.identities.find(
        (i) => i.provider === p.provider && (samlProvider === undefined || i.saml_provider_id === samlProvider),
      );
      if (existing) existing.extern_uid = p.extern_uid;
      else
        user.identities.push({
          provider: p.provider!,
          extern_uid: p.extern_uid,
          ...(samlProvider !== undefined ? { saml_provider_id: samlProvider } : {}),
        });
    }
    if (p.password !== undefined) passwordsOf(store).set(user, p.password, true);
    user.updated_at = new Date();
    reply.json(userAdmin(store, user));
  });
}

/** Removing an identity or a user, and the caller's status. */
function registerUserRemovals(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;
  router.route('DELETE', '/users/:id/identities/:provider', { auth: 'user' }, (req, reply) => {
    requireAdmin(ctx, req);
    const user = findTarget(ctx, req);
    const index = user.identities.findIndex((i) => i.provider === req.pathParams.provider);
    if (index === -1) throw notFound('Identity');
    user.identities.splice(index, 1);
    user.updated_at = new Date();
    reply.empty(204);
  });

  router.route('DELETE', '/users/:id', { params: z.object({ hard_delete: flag() }), auth: 'user' }, (req, reply) => {
    requireAdmin(ctx, req);
    const user = findTarget(ctx, req);
    const hard = req.params.hard_delete === true;
    if (!hard && store.groupsSolelyOwned(user).length > 0) {
      throw messageError(409, 'User cannot be removed while is the sole owner of a group');
    }
    store.removeUser(user, hard);
    reply.empty(204);
  });

  router.route('GET', '/user/status', { auth: 'user', readScopes: USERS_API }, (req, reply) => {
    const { emoji, message } = ctx.requireUser(req).status;
    reply.json({ emoji, message, message_html: message === null ? null : escapeHtml(message) });
  });
}
