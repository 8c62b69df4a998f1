// The administrator-only writes to users — create, update, remove an identity, delete — plus the caller's own status.
//
// The spec's rules: creation needs one of password, reset_password, force_random_password (when both flags are
// false, password is required; the flags win over a password); an update answers 404 even where 409 would fit (an
// email or username already taken: "404 Email has already been taken Not Found", as the service words it); a new
// password set by an administrator must be changed at next sign-in; delete is 204, 404 for an unknown user, 409 for
// a soft delete of the sole owner of a group (hard_delete removes those groups too). A sign-in identity (extern_uid
// at a provider) already linked to another account is refused, 409 on create and (the spec's 404 rule) 404 on
// update; an avatar is an image file part of a multipart form, kept and shown as avatar_url. Writes: 401 anonymous, 403
// non-administrators, before anything is looked up.
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { forbidden, messageError, notFound, paramError, validationError } from '../../core/errors.js';
import { type Router, type SandboxRequest, registerAll } from '../../core/router.js';
import type { User } from '../../core/store.js';
import { escapeHtml, userAdmin } from '../../core/views.js';
import { passwordsOf } from './state.js';
import { samlProvidersOf } from '../scim/index.js';
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
import { findTarget, flag, USERS_API } from './routes.js';

/** Administrator writes and reads: 401 anonymous, 403 anyone else, before anything is looked up. */
function requireAdmin(ctx: SandboxContext, req: SandboxRequest<unknown>): User {
  const user = ctx.requireUser(req);
  if (!user.is_admin) throw forbidden();
  return user;
}

export const registerUserWrites = registerAll(registerUserChanges, registerUserRemovals);

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
