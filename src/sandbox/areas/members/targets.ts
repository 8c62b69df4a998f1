// Who is a member of a group or project, as the member routes see it: direct members, everyone with access there
// (each user once, at the highest level held directly or from an ancestor group), the member view, and the rules a
// change must keep (no level below an inherited one, expiry in the future, never the last owner of a group).
import type { SandboxContext } from '../../core/context.js';
import { forbidden, notFound, validationError } from '../../core/errors.js';
import type { SandboxRequest } from '../../core/router.js';
import { ACCESS, type Group, type Membership, type Project, type User } from '../../core/store.js';
import { userBasic } from '../../core/views.js';

/** A group or a project, as the member routes see it. */
export interface Target {
  kind: 'group' | 'project';
  members: Map<number, Membership>;
  /** Where inherited memberships come from, nearest first (a personal project's owner counts as an owner). */
  inherited(): Array<{ members: Map<number, Membership>; group?: Group }>;
  /** Access of the caller to this target, administrators counting as owners. */
  access: number;
}

export type Member = { user: User; membership: Membership };

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

export function targetOf(
  ctx: SandboxContext,
  kind: 'group' | 'project',
  req: SandboxRequest<unknown>,
  write = false,
): Target {
  // Writes need a maintainer; the same 404 as for reads first, for whatever the caller may not see.
  const minAccess = write ? ACCESS.maintainer : 0;
  if (kind === 'group') return groupTarget(ctx, ctx.findGroupFor(req, req.pathParams.id, { minAccess }), req.user);
  return projectTarget(ctx, ctx.findProjectFor(req, req.pathParams.id, { minAccess }), req.user);
}

export function direct(ctx: SandboxContext, target: Target): Member[] {
  const { store } = ctx;
  return [...target.members].flatMap(([id, membership]) => {
    const user = store.findUser(String(id));
    return user ? [{ user, membership }] : [];
  });
}

/** Direct members first, then each ancestor's; each user once, with the highest level found (the first of equals). */
export function all(ctx: SandboxContext, target: Target): Member[] {
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
export function checkInherited(target: Target, userId: number, level: number): void {
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

export function view(ctx: SandboxContext, { user, membership }: Member) {
  const { store } = ctx;
  return {
    ...userBasic(store, user),
    access_level: membership.access_level,
    expires_at: membership.expires_at,
    created_at: membership.created_at.toISOString(),
  };
}

export function filtered(members: Member[], params: { query?: string; user_ids?: number[] }): Member[] {
  const query = params.query?.toLowerCase();
  const ids = params.user_ids ? new Set(params.user_ids) : undefined;
  return members.filter(
    ({ user }) =>
      (query === undefined || [user.name, user.username].some((text) => text.toLowerCase().includes(query))) &&
      (ids === undefined || ids.has(user.id)),
  );
}

export function found(members: Member[], req: SandboxRequest<unknown>): Member {
  const member = members.find(({ user }) => String(user.id) === req.pathParams.user_id);
  if (!member) throw notFound('Member');
  return member;
}

/** The checks of a new level and expiry: owner on groups only, and only an owner makes or changes an owner. */
export function checkChange(
  target: Target,
  level: number,
  expires: string | null | undefined,
  current?: Membership,
): void {
  if (target.kind === 'project' && level === ACCESS.owner)
    throw validationError({ access_level: ['is not included in the list'] });
  if ((level === ACCESS.owner || current?.access_level === ACCESS.owner) && target.access < ACCESS.owner)
    throw forbidden();
  if (expires && expires < new Date().toISOString().slice(0, 10))
    throw validationError({ expires_at: ['cannot be a date in the past'] });
}

/** A group keeps at least one direct owner: the last one can be neither removed nor demoted. */
export function checkLastOwner(target: Target, userId: number): void {
  const owners = [...target.members].filter(([, m]) => m.access_level === ACCESS.owner).map(([id]) => id);
  if (target.kind === 'group' && owners.length === 1 && owners[0] === userId)
    throw forbidden('the last owner cannot be removed or demoted');
}
