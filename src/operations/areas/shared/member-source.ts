// Where a member's access comes from, read before a change or removal is asked about: the service changes and removes
// only a membership of the project or group itself (a 404 otherwise), so access inherited from a parent group is
// refused in words before anyone is asked, naming the group it comes from and the command that acts there.
import { ApiError } from '../../../http/errors.js';
import { buildPath } from '../../../http/route.js';
import type { EffectFacts, RunContext } from '../../engine/define.js';
import { serviceGet } from '../../engine/effect-facts.js';
import { spellOutHidden } from '../../../text/visible.js';
import { ACCESS_LEVEL_NAMES, asRecord } from '../../engine/present.js';

export interface MembershipFacts {
  /** The user is a member of the project or group itself: the call can do what it asks. */
  direct: boolean;
  /** The user's username, where the service said it. */
  username?: string;
  /** The project's or group's full path. */
  place?: string;
  /** The user's access there, direct or inherited; undefined when they have none. */
  access?: number;
  /** The groups above it the user is a member of, nearest first: where inherited access comes from. */
  sources: Array<{ path: string; access_level?: number }>;
}

/** Ancestor groups read at most (the service nests groups 20 deep). */
const MAX_ANCESTORS = 20;

async function readOrMissing(ctx: RunContext, path: string): Promise<Record<string, unknown> | undefined> {
  try {
    return asRecord(await serviceGet(ctx, path));
  } catch (error) {
    if (error instanceof ApiError && error.kind === 'http' && error.status === 404) return undefined;
    throw error;
  }
}

/** The first group above a project (its namespace, when a group) or a group (its parent), and the place's path. */
async function startOf(
  ctx: RunContext,
  kind: 'group' | 'project',
  id: unknown,
): Promise<{ place?: string; group?: unknown }> {
  if (kind === 'project') {
    const project = asRecord(await serviceGet(ctx, buildPath('/projects/:id', { id })));
    const namespace = asRecord(project.namespace);
    const place = typeof project.path_with_namespace === 'string' ? project.path_with_namespace : undefined;
    return { place, group: namespace.kind === 'group' ? (namespace.id ?? namespace.full_path) : undefined };
  }
  const group = asRecord(await serviceGet(ctx, buildPath('/groups/:id', { id })));
  return {
    place: typeof group.full_path === 'string' ? group.full_path : undefined,
    group: group.parent_id ?? undefined,
  };
}

/** Where the user's access to a project or group comes from (reads only). */
async function readMembershipSource(
  ctx: RunContext,
  kind: 'group' | 'project',
  id: unknown,
  userId: unknown,
): Promise<MembershipFacts> {
  const base = `/${kind}s/:id/members`;
  if (await readOrMissing(ctx, buildPath(`${base}/:user_id`, { id, user_id: userId })))
    return { direct: true, sources: [] };
  const inherited = await readOrMissing(ctx, buildPath(`${base}/all/:user_id`, { id, user_id: userId }));
  const start = await startOf(ctx, kind, id);
  const facts: MembershipFacts = {
    direct: false,
    sources: [],
    ...(start.place !== undefined ? { place: start.place } : {}),
  };
  // Who it is, for the words: the inherited membership says it; for a non-member, the user's own record (if readable).
  const person =
    inherited ?? (await readOrMissing(ctx, buildPath('/users/:id', { id: userId })).catch(() => undefined));
  if (typeof person?.username === 'string') facts.username = person.username;
  if (!inherited) return facts;
  if (typeof inherited.access_level === 'number') facts.access = inherited.access_level;
  let group = start.group;
  for (let depth = 0; group !== undefined && group !== null && depth < MAX_ANCESTORS; depth++) {
    const [read, member] = await Promise.all([
      serviceGet(ctx, buildPath('/groups/:id', { id: group })).then(asRecord),
      readOrMissing(ctx, buildPath('/groups/:id/members/:user_id', { id: group, user_id: userId })),
    ]);
    const path = typeof read.full_path === 'string' ? read.full_path : String(group);
    if (member)
      facts.sources.push({
        path,
        ...(typeof member.access_level === 'number' ? { access_level: member.access_level } : {}),
      });
    group = read.parent_id ?? undefined;
  }
  return facts;
}

/** A chat argument as typed: plain when it is one word, quoted otherwise. */
const arg = (text: string) => (/^[^\s"'`,=]+$/.test(text) ? text : JSON.stringify(text));
const levelName = (level: number | undefined) =>
  level === undefined ? undefined : (ACCESS_LEVEL_NAMES[String(level)] ?? `level ${level}`);

/**
 * The refusal of a change to a membership the place does not hold itself, or undefined when it does. `change` is the
 * call's own words: 'remove' or 'update' (with the level asked for). Said where the question would have been, with
 * the service's names in it: spelled out by the approval requests' rule, so a name cannot forge or reorder its lines.
 */
export function inheritedRefusal(
  kind: 'group' | 'project',
  input: { id: unknown; user_id: unknown; access_level?: number },
  facts: MembershipFacts,
  change: 'remove' | 'update',
): string | undefined {
  const words = refusalWords(kind, input, facts, change);
  return words === undefined ? undefined : spellOutHidden(words);
}

function refusalWords(
  kind: 'group' | 'project',
  input: { id: unknown; user_id: unknown; access_level?: number },
  facts: MembershipFacts,
  change: 'remove' | 'update',
): string | undefined {
  if (facts.direct) return undefined;
  const who = facts.username !== undefined ? `@${facts.username}` : `user ${String(input.user_id)}`;
  const place = facts.place ?? String(input.id);
  if (facts.access === undefined)
    return `${who} is not a member of ${kind} ${place}, directly or through a group; nothing was asked or sent.`;
  const user = facts.username !== undefined ? `@${facts.username}` : String(input.user_id);
  const level = input.access_level !== undefined ? ` access_level=${input.access_level}` : '';
  if (facts.sources.length === 0) {
    return (
      `${who}'s access to ${place} is not a membership of ${place} itself (it comes from a group above it or shared with it); ` +
      `nothing was asked or sent. list_all_${kind}_members shows it.`
    );
  }
  const groups = facts.sources
    .map((s) => `${s.path}${levelName(s.access_level) ? ` (${levelName(s.access_level)})` : ''}`)
    .join(', ');
  const commands = facts.sources.map((s) => `group member ${change} ${arg(s.path)} ${user}${level}`).join('; ');
  const tool = `${change}_group_member with id ${JSON.stringify(facts.sources[0].path)}, user_id ${String(input.user_id)}${level ? `, access_level ${input.access_level}` : ''}`;
  const verb = change === 'remove' ? 'To remove it there' : 'To change it there';
  // A direct membership may raise inherited access, never lower it: the other way to change it for this place alone.
  const raise =
    change === 'update' &&
    kind === 'project' &&
    input.access_level !== undefined &&
    input.access_level > (facts.access ?? 0)
      ? ` Or raise it for ${place} alone: project member add ${arg(place)} ${user}${level}.`
      : '';
  return (
    `${who}'s access to ${place} comes from the group${facts.sources.length > 1 ? 's' : ''} ${groups}; nothing was asked or sent. ` +
    `${verb}: ${commands} (the tool ${tool}).${raise}`
  );
}

/** The facts remove_ and update_ member calls read: where the membership is. */
export function membershipFacts<I extends { id: unknown; user_id: unknown; access_level?: number }>(
  kind: 'group' | 'project',
  change: 'remove' | 'update',
): EffectFacts<I, MembershipFacts> {
  return {
    what: `whether the user is a member of the ${kind} itself or through a group`,
    read: (ctx, input) => readMembershipSource(ctx, kind, input.id, input.user_id),
    refuse: (input, facts) => inheritedRefusal(kind, input, facts, change),
  };
}
