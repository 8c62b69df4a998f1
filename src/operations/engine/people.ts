// People by name: wherever an operation takes a user id (user_id, *_user_id, author_id, assignee_id, the users
// area's /users/:id), every front end also accepts `@erin` or `erin`, resolved through the service before
// validation; and the names a human reads (approval requests, outcomes) for the ids and projects a call names.
import type { z } from 'zod';
import { buildPath } from '../../http/route.js';
import type { Operation, RunContext } from './define.js';
import { readJob, readPipeline, type JobFacts, type PipelineFacts } from './effect-facts.js';
import { quoteExactly, showKey, shown, type ShownText } from '../../text/visible.js';
import { serviceGet as get } from './effect-facts.js';
import { asList, asRecord } from './present.js';

/** One account as the service describes it, reduced to what names it. */
export interface Person {
  id: number;
  username: string;
  name?: string;
}

/** What a call's ids stand for, by input key: people, and projects or groups by path. */
export interface Targets {
  people: Record<string, Person>;
  /** Input key (a project's or group's `id`) → its full path. */
  places: Record<string, string>;
  /** Lookups that failed, in words: said in the prompt rather than hidden. */
  unknown: Record<string, string>;
  /** Input key (a member's `user_id`) → the member's access level before the write (a removal says what it took). */
  levels: Record<string, number>;
  /** Input key (`job_id`) → the job it numbers: name, stage, pipeline, ref, status. */
  jobs: Record<string, JobFacts>;
  /** Input key (`pipeline_id`) → the pipeline it numbers: ref, status, commit. */
  pipelines: Record<string, PipelineFacts>;
}

export function emptyTargets(): Targets {
  return { people: {}, places: {}, unknown: {}, levels: {}, jobs: {}, pipelines: {} };
}

/** A username as people type it: `@erin`, `erin`, `erin.walsh`; never a number. */
const USERNAME = /^@?([A-Za-z0-9_][A-Za-z0-9_.-]*)$/;

/** The input keys of `op` that hold one user's id. */
export function personKeys(op: Operation): string[] {
  const shape = op.input.shape as Record<string, z.ZodType>;
  return Object.keys(shape).filter(
    (key) =>
      key === 'user_id' ||
      key.endsWith('_user_id') ||
      key === 'author_id' ||
      key === 'assignee_id' ||
      (key === 'id' && op.area === 'users' && op.path.startsWith('/users/:id')),
  );
}

/** Whether the field itself takes `value` as it stands (a number, or `None` for an assignee, or a username the service reads). */
function fieldAccepts(op: Operation, key: string, value: unknown): boolean {
  const schema = (op.input.shape as Record<string, z.ZodType>)[key];
  return schema?.safeParse(value).success === true;
}

/** `@erin` → `erin`; undefined when the text is no username (or is all digits, an id). */
export function usernameOf(text: string): string | undefined {
  const match = USERNAME.exec(text.trim());
  if (!match || /^\d+$/.test(match[1])) return undefined;
  return match[1];
}

/** The person keys whose value is a username still to resolve. */
export function unresolvedPeople(op: Operation, input: Record<string, unknown>): string[] {
  return personKeys(op).filter((key) => {
    const value = input[key];
    return (
      typeof value === 'string' &&
      usernameOf(value) !== undefined &&
      !(fieldAccepts(op, key, value) && !value.startsWith('@'))
    );
  });
}

function personFromRecord(data: unknown): Person | undefined {
  const record = asRecord(data);
  if (typeof record.id !== 'number' || typeof record.username !== 'string') return undefined;
  return {
    id: record.id,
    username: record.username,
    ...(typeof record.name === 'string' ? { name: record.name } : {}),
  };
}

/**
 * `"Erin Walsh" (@erin, id 6)`: how a person reads wherever a human must know who is meant. Both names are the
 * person's own words: the display name quoted, a username other than plain ASCII quoted and spelled out.
 */
export function describePerson(person: Person): ShownText {
  const handle = shown`(@${showKey(person.username)}, id ${person.id})`;
  return person.name ? shown`${quoteExactly(person.name)} ${handle}` : handle;
}

type Resolution = { ok: true; input: Record<string, unknown>; targets: Targets } | { ok: false; message: string };

/**
 * Replaces each username in a person field by the id the service knows it by (GET /users?username=, exact and any
 * case). An unknown or ambiguous name is an error naming the field and the candidates; nothing else is sent.
 */
export async function resolvePeople(op: Operation, args: unknown, ctx: RunContext): Promise<Resolution> {
  const targets = emptyTargets();
  if (!args || typeof args !== 'object' || Array.isArray(args))
    return { ok: true, input: args as Record<string, unknown>, targets };
  const input = { ...(args as Record<string, unknown>) };
  for (const key of unresolvedPeople(op, input)) {
    const name = usernameOf(input[key] as string)!;
    let found: Person[];
    try {
      found = asList(await get(ctx, '/users', { username: name }))
        .map(personFromRecord)
        .filter((p): p is Person => p !== undefined);
    } catch (error) {
      return {
        ok: false,
        message: `${key}: could not look up the user @${name} (${(error as Error).message}); nothing was sent.`,
      };
    }
    const exact = found.filter((p) => p.username.toLowerCase() === name.toLowerCase());
    if (exact.length === 1) {
      input[key] = exact[0].id;
      targets.people[key] = exact[0];
      continue;
    }
    const candidates = (exact.length > 1 ? exact : found).map(describePerson);
    const why = exact.length > 1 ? `matches ${exact.length} users` : 'matches no user';
    return {
      ok: false,
      message:
        `${key}: @${name} ${why}${candidates.length > 0 ? ` (${candidates.join('; ')})` : ''}. ` +
        `Give the user's id or exact username (user list search=${name} finds them); nothing was sent.`,
    };
  }
  return { ok: true, input, targets };
}

/** The resource a path's `:id` names: projects, groups, or nothing we describe. */
function placeOf(op: Operation): 'projects' | 'groups' | undefined {
  if (!op.pathParams.includes('id')) return undefined;
  if (op.path.startsWith('/projects/:id')) return 'projects';
  if (op.path.startsWith('/groups/:id')) return 'groups';
  return undefined;
}

/**
 * Names for what a validated call points at by number: each person's name and username, the project's or group's
 * path. Reads only; a lookup that fails is recorded in `unknown`, never thrown. Known targets are not asked again.
 */
export async function describeTargets(
  op: Operation,
  input: Record<string, unknown>,
  ctx: RunContext,
  known: Targets = emptyTargets(),
  options: { forQuestion?: boolean } = {},
): Promise<Targets> {
  const targets: Targets = {
    people: { ...known.people },
    places: { ...known.places },
    unknown: {},
    levels: { ...known.levels },
    jobs: { ...known.jobs },
    pipelines: { ...known.pipelines },
  };
  const lookups: Array<Promise<void>> = [];
  // A job or pipeline by number, for a question only (an outcome says the number the answer gives back).
  if (options.forQuestion) lookups.push(...numberedCiTargets(op, input, ctx, targets));
  for (const key of personKeys(op)) {
    const value = input[key];
    if (typeof value !== 'number' || targets.people[key]?.id === value) continue;
    lookups.push(
      get(ctx, buildPath('/users/:id', { id: value })).then(
        (data) => {
          const person = personFromRecord(data);
          if (person) targets.people[key] = person;
          else targets.unknown[key] = 'the service did not say who this is';
        },
        (error: unknown) => {
          targets.unknown[key] = `could not look up who this is: ${(error as Error).message}`;
        },
      ),
    );
  }
  const place = placeOf(op);
  const id = input.id;
  if (place && typeof id === 'number' && targets.places.id === undefined) {
    const noun = place.slice(0, -1);
    // A project is read through the spec's own list (id_after/id_before bracket one id); a group by its own read.
    const read =
      place === 'projects'
        ? get(ctx, '/projects', { id_after: String(id - 1), id_before: String(id + 1), simple: 'true' }).then(
            (data) => asList(data)[0],
          )
        : get(ctx, buildPath('/groups/:id', { id }));
    lookups.push(
      read.then(
        (data) => {
          const record = asRecord(data);
          const path = place === 'projects' ? record.path_with_namespace : record.full_path;
          if (typeof path === 'string' && record.id === id) targets.places.id = path;
          else targets.unknown.id = `the service did not say which ${noun} this is`;
        },
        (error: unknown) => {
          targets.unknown.id = `could not look up which ${noun} this is: ${(error as Error).message}`;
        },
      ),
    );
  } else if (place && typeof id === 'string') {
    targets.places.id = id;
  }
  // A membership about to change or go: its level now, read at the member's own path.
  if (
    op.area === 'members' &&
    /^(remove|update)_/.test(op.name) &&
    typeof input.user_id === 'number' &&
    targets.levels.user_id === undefined
  ) {
    const params = Object.fromEntries(op.pathParams.map((p) => [p, input[p]]));
    lookups.push(
      get(ctx, buildPath(op.path, params)).then(
        (data) => {
          const level = asRecord(data).access_level;
          if (typeof level === 'number') targets.levels.user_id = level;
        },
        // Not a member (404) or not readable: the call itself will say so.
        () => undefined,
      ),
    );
  }
  await Promise.all(lookups);
  return targets;
}

/**
 * The job and pipeline a call names by number in a project (`job_id: 32`), read so the question says what they are:
 * a running production deploy is not any job 32. A failed lookup is said in the question, as for people.
 */
function numberedCiTargets(
  op: Operation,
  input: Record<string, unknown>,
  ctx: RunContext,
  targets: Targets,
): Array<Promise<void>> {
  const project = input.id;
  if (!op.path.startsWith('/projects/:id/') || project === undefined) return [];
  const lookups: Array<Promise<void>> = [];
  /** Reads the numbered thing `key` names into `slot`, unless the question already has it; a failure is said. */
  const lookUp = <T extends { id: unknown }>(
    key: 'job_id' | 'pipeline_id',
    noun: string,
    slot: Partial<Record<string, T>>,
    read: (ctx: RunContext, project: string | number, id: number) => Promise<T>,
  ) => {
    const id = input[key];
    if (!op.pathParams.includes(key) || typeof id !== 'number' || slot[key]?.id === id) return;
    lookups.push(
      read(ctx, project as string | number, id).then(
        (found) => {
          slot[key] = found;
        },
        (error: unknown) => {
          targets.unknown[key] = `could not look up which ${noun} this is: ${(error as Error).message}`;
        },
      ),
    );
  };
  lookUp('job_id', 'job', targets.jobs, readJob);
  lookUp('pipeline_id', 'pipeline', targets.pipelines, readPipeline);
  return lookups;
}
