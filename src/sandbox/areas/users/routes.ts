// Users: the list and one user (public form, or the administrator form for administrators); the administrator-only
// writes and the caller's own status are in ./user-write-routes.ts.
//
// The list's order_by, sort and two_factor, and custom attributes (filter and with_custom_attributes), are for
// administrators; other callers' values are ignored, as the service ignores them.
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { notFound } from '../../core/errors.js';
import { paginate } from '../../core/paginate.js';
import { param } from '../../core/params.js';
import { integerPathParam, type Router, type SandboxRequest } from '../../core/router.js';
import type { TokenScope } from '../../core/scopes.js';
import type { User } from '../../core/store.js';
import { userAdmin, userBasic, userDetailed } from '../../core/views.js';
import { ownEntry } from '../../core/own-key.js';
import { checkIdentityPair } from './accounts.js';

/** A token with read_user may read the users API, as on the service (not /users/:id/projects: that is the projects API). */
export const USERS_API: readonly TokenScope[] = ['read_user'];
const text = () => z.string();
export const flag = () => param.boolean().optional();

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

export function findTarget(ctx: SandboxContext, req: SandboxRequest<unknown>): User {
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

/** Listing users and reading one. */
export function registerUserReads(router: Router, ctx: SandboxContext): void {
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
