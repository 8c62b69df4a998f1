// Members of groups and projects: direct lists, inherited lists (each user once, at the highest level they hold
// there, directly or from an ancestor group), single reads, and adding, changing and removing members (owner exists
// on groups only). As the service does, a membership below the level a user inherits from an ancestor group is
// refused (400, naming the level and the group): a direct membership only ever raises access.
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { forbidden, messageError, notFound } from '../../core/errors.js';
import { paginate } from '../../core/paginate.js';
import { param } from '../../core/params.js';
import type { Router } from '../../core/router.js';
import { ACCESS, ACCESS_LEVELS, type AccessLevel, type Membership } from '../../core/store.js';
import {
  all,
  checkChange,
  checkInherited,
  checkLastOwner,
  direct,
  filtered,
  found,
  targetOf,
  view,
} from './targets.js';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const level = () => param.integer().refine((l) => (ACCESS_LEVELS as readonly number[]).includes(l));
const expiresAt = () =>
  z
    .string()
    .refine((s) => DATE.test(s) && !Number.isNaN(Date.parse(s)))
    .nullable()
    .optional();
const listParams = z.object({ query: z.string().optional(), user_ids: param.array(param.integer()).optional() });
const addParams = z.object({ user_id: param.integer(), access_level: level(), expires_at: expiresAt() });
const updateParams = z.object({ access_level: level(), expires_at: expiresAt() });

export function register(router: Router, ctx: SandboxContext): void {
  registerMembers(router, ctx);
}

/** The members of groups and of projects alike: list, read, add, change, remove. */
function registerMembers(router: Router, ctx: SandboxContext): void {
  const { store } = ctx;
  for (const kind of ['group', 'project'] as const) {
    const base = `/${kind}s/:id/members`;

    router.route('GET', base, { params: listParams, pagination: 'offset' }, (req, reply) => {
      reply.json(
        paginate(req, reply, filtered(direct(ctx, targetOf(ctx, kind, req)), req.params)).map((member) =>
          view(ctx, member),
        ),
      );
    });

    router.route('GET', `${base}/all`, { params: listParams, pagination: 'offset' }, (req, reply) => {
      reply.json(
        paginate(req, reply, filtered(all(ctx, targetOf(ctx, kind, req)), req.params)).map((member) =>
          view(ctx, member),
        ),
      );
    });

    router.route('GET', `${base}/:user_id`, {}, (req, reply) => {
      reply.json(view(ctx, found(direct(ctx, targetOf(ctx, kind, req)), req)));
    });

    router.route('GET', `${base}/all/:user_id`, {}, (req, reply) => {
      reply.json(view(ctx, found(all(ctx, targetOf(ctx, kind, req)), req)));
    });

    router.route('POST', base, { auth: 'user', params: addParams }, (req, reply) => {
      const target = targetOf(ctx, kind, req, true);
      const { user_id, access_level, expires_at } = req.params;
      const user = store.findUser(String(user_id));
      if (!user) throw notFound('User');
      checkChange(target, access_level, expires_at);
      if (target.members.has(user.id)) throw messageError(409, 'Member already exists');
      checkInherited(target, user.id, access_level);
      const membership: Membership = {
        access_level: access_level as AccessLevel,
        expires_at: expires_at ?? null,
        created_at: new Date(),
      };
      target.members.set(user.id, membership);
      reply.json(view(ctx, { user, membership }), 201);
    });

    router.route('PUT', `${base}/:user_id`, { auth: 'user', params: updateParams }, (req, reply) => {
      const target = targetOf(ctx, kind, req, true);
      const member = found(direct(ctx, target), req);
      const { access_level, expires_at } = req.params;
      checkChange(target, access_level, expires_at, member.membership);
      if (access_level !== ACCESS.owner) checkLastOwner(target, member.user.id);
      checkInherited(target, member.user.id, access_level);
      member.membership.access_level = access_level as AccessLevel;
      // Left out, the expiry stays; null clears it.
      if (expires_at !== undefined) member.membership.expires_at = expires_at;
      reply.json(view(ctx, member));
    });

    router.route('DELETE', `${base}/:user_id`, { auth: 'user' }, (req, reply) => {
      const target = targetOf(ctx, kind, req, true);
      const member = found(direct(ctx, target), req);
      if (member.membership.access_level === ACCESS.owner && target.access < ACCESS.owner) throw forbidden();
      checkLastOwner(target, member.user.id);
      target.members.delete(member.user.id);
      reply.empty(204);
    });
  }
}
