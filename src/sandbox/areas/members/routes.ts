// Members of groups and projects: direct lists, inherited lists (each user once, at the highest level they hold
// there, directly or from an ancestor group), single reads, and adding, changing and removing members (owner exists
// on groups only). As the service does, a membership below the level a user inherits from an ancestor group is
// refused (400, naming the level and the group): a direct membership only ever raises access.
import { z } from 'zod';
import type { SandboxContext } from '../../core/context.js';
import { forbidden, messageError, notFound, validationError } from '../../core/errors.js';
import { paginate } from '../../core/paginate.js';
import { param } from '../../core/params.js';
import type { Router, SandboxRequest } from '../../core/router.js';
import {
  ACCESS,
  ACCESS_LEVELS,
  type AccessLevel,
  type Group,
  type Membership,
  type Project,
  type User,
} from '../../core/store.js';
import { userBasic } from '../../core/views.js';

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

/** A group or a project, as the member routes see it. */
interface Target {
  kind: 'group' | 'project';
  members: Map<number, Membership>;
  /** Where inherited memberships come from, nearest first (a personal project's owner counts as an owner). */
  inherited(): Array<{ members: Map<number, Membership>; group?: Group }>;
  /** Access of the caller to this target, administrators counting as owners. */
  access: number;
}

type Member = { user: User; membership: Membership };

/** The service's names of the levels, as its messages write them. */
const LEVEL_NAMES: Record<number, string> = {
  10: 'Guest',
  20: 'Reporter',
  30: 'Developer',
  40: 'Maintainer',
  50: 'Owner',
};

function groupTarget(ctx: SandboxContext, group: Group, user: User | null): Target {
  const { store } = ctx;
  return {
    kind: 'group',
    members: group.members,
    inherited: () =>
      store
        .groupChain(group)
        .slice(1)
        .map((g) => ({ members: g.members, group: g })),
    access: ctx.groupAccess(user, group),
  };
}

function projectTarget(ctx: SandboxContext, project: Project, user: User | null): Target {
  const { store } = ctx;
  const ns = project.namespace;
  return {
    kind: 'project',
    members: project.members,
    inherited: () =>
      ns.kind === 'group'
        ? store.groupChain(ns.group).map((g) => ({ members: g.members, group: g }))
        : [
            {
              members: new Map([
                [ns.user.id, { access_level: ACCESS.owner, expires_at: null, created_at: ns.user.created_at }],
              ]),
            },
          ],
    access: ctx.projectAccess(user, project),
  };
}

function targetOf(ctx: SandboxContext, kind: 'group' | 'project', req: SandboxRequest<unknown>, write = false): Target {
  // Writes need a maintainer; the same 404 as for reads first, for whatever the caller may not see.
  const minAccess = write ? ACCESS.maintainer : 0;
  if (kind === 'group') return groupTarget(ctx, ctx.findGroupFor(req, req.pathParams.id, { minAccess }), req.user);
  return projectTarget(ctx, ctx.findProjectFor(req, req.pathParams.id, { minAccess }), req.user);
}

function direct(ctx: SandboxContext, target: Target): Member[] {
  const { store } = ctx;
  return [...target.members].flatMap(([id, membership]) => {
    const user = store.findUser(String(id));
    return user ? [{ user, membership }] : [];
  });
}

/** Direct members first, then each ancestor's; each user once, with the highest level found (the first of equals). */
function all(ctx: SandboxContext, target: Target): Member[] {
  const { store } = ctx;
  const seen = new Map<number, Member>();
  for (const members of [target.members, ...target.inherited().map((source) => source.members)]) {
    for (const [id, membership] of members) {
      const user = store.findUser(String(id));
      const known = seen.get(id);
      if (!user) continue;
      if (!known) seen.set(id, { user, membership });
      else if (membership.access_level > known.membership.access_level) known.membership = membership;
    }
  }
  return [...seen.values()];
}

/** The service's rule: a direct level at least the one the user inherits from any ancestor group. */
function checkInherited(target: Target, userId: number, level: number): void {
  let highest: { level: number; group: Group } | undefined;
  for (const { members, group } of target.inherited()) {
    const inherited = members.get(userId);
    if (group && inherited && (!highest || inherited.access_level > highest.level))
      highest = { level: inherited.access_level, group };
  }
  if (highest && level < highest.level) {
    const name = LEVEL_NAMES[highest.level] ?? String(highest.level);
    throw validationError({
      access_level: [
        `should be greater than or equal to ${name} inherited membership from group ${highest.group.name}`,
      ],
    });
  }
}

function view(ctx: SandboxContext, { user, membership }: Member) {
  const { store } = ctx;
  return {
    ...userBasic(store, user),
    access_level: membership.access_level,
    expires_at: membership.expires_at,
    created_at: membership.created_at.toISOString(),
  };
}

function filtered(members: Member[], params: z.output<typeof listParams>): Member[] {
  const query = params.query?.toLowerCase();
  const ids = params.user_ids ? new Set(params.user_ids) : undefined;
  return members.filter(
    ({ user }) =>
      (query === undefined || [user.name, user.username].some((text) => text.toLowerCase().includes(query))) &&
      (ids === undefined || ids.has(user.id)),
  );
}

function found(members: Member[], req: SandboxRequest<unknown>): Member {
  const member = members.find(({ user }) => String(user.id) === req.pathParams.user_id);
  if (!member) throw notFound('Member');
  return member;
}

/** The checks of a new level and expiry: owner on groups only, and only an owner makes or changes an owner. */
function checkChange(target: Target, level: number, expires: string | null | undefined, current?: Membership): void {
  if (target.kind === 'project' && level === ACCESS.owner)
    throw validationError({ access_level: ['is not included in the list'] });
  if ((level === ACCESS.owner || current?.access_level === ACCESS.owner) && target.access < ACCESS.owner)
    throw forbidden();
  if (expires && expires < new Date().toISOString().slice(0, 10))
    throw validationError({ expires_at: ['cannot be a date in the past'] });
}

/** A group keeps at least one direct owner: the last one can be neither removed nor demoted. */
function checkLastOwner(target: Target, userId: number): void {
  const owners = [...target.members].filter(([, m]) => m.access_level === ACCESS.owner).map(([id]) => id);
  if (target.kind === 'group' && owners.length === 1 && owners[0] === userId)
    throw forbidden('the last owner cannot be removed or demoted');
}

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
