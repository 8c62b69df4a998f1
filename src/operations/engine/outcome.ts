// What a write did, in words, for every front end alike: derived from the registry (operation + input + answer),
// naming the target (the person, the project by path, the file) and the result (a release's commit, a new SHA).
import { buildPath } from '../../http/route.js';
import type { Operation, RunContext } from './define.js';
import { describeTargets, emptyTargets, type Person, type Targets } from './people.js';
import { ACCESS_LEVEL_NAMES, asRecord, shortSha, show, type Fields } from './present.js';

export interface WriteOutcome {
  /** One sentence: "Removed @erin from acme/web", "Released v1.3 of acme/web from 54b5d197". */
  text: string;
  /** The page of what was made or changed, when the service gave one. */
  link?: string;
}

/** Past tense of the verb an operation's name starts with; unknown verbs fall back to "<Title>: done". */
const PAST: Record<string, string> = {
  create: 'Created',
  update: 'Updated',
  delete: 'Deleted',
  remove: 'Removed',
  add: 'Added',
  retry: 'Retried',
  cancel: 'Canceled',
  revert: 'Reverted',
  set: 'Set',
  export: 'Started the export of',
  import: 'Started an import of',
  open: 'Opened',
};

function personLabel(person: Person | undefined, value: unknown): string {
  if (person) return `@${person.username}`;
  return `user ${show(value)}`;
}

/** The project or group a call acts on, by path where known. */
function placeLabel(op: Operation, input: Fields, targets: Targets): string | undefined {
  if (!op.pathParams.includes('id') || input.id === undefined) return undefined;
  if (targets.places.id !== undefined) return targets.places.id;
  if (typeof input.id === 'string') return input.id;
  if (op.path.startsWith('/projects/')) return `project ${show(input.id)}`;
  if (op.path.startsWith('/groups/')) return `group ${show(input.id)}`;
  return undefined;
}

/** A path parameter other than the project or group: "#42" of a pipeline, "\"README.md\"", "@erin", "key FOO". */
function paramLabel(key: string, value: unknown, targets: Targets, noun: string): string {
  if (targets.people[key] || key === 'user_id') return personLabel(targets.people[key], value);
  if (key === 'file_path') return `"${show(value)}"`;
  if (key === 'sha') return shortSha(value);
  const own = key.replace(/_(id|iid)$/, '').replace(/_/g, ' ');
  const numbered = /_(id|iid)$/.test(key) && (noun.endsWith(own) || key === 'id');
  // A merge request is !6 wherever it is named, as the service writes its references; an issue (and all else) #6.
  const sigil = key === 'merge_request_iid' ? '!' : '#';
  if (numbered) return `${sigil}${show(value)}`;
  return `${own} ${sigil === '!' ? '!' : ''}${show(value)}`;
}

/** A merge request's answer: the only work item with a source branch. */
function isMergeRequest(data: Fields): boolean {
  return data.iid !== undefined && typeof data.source_branch === 'string';
}

/** What a created thing calls itself in the answer: its name or title, and its #iid or id (!iid of a merge request). */
function madeLabel(data: Fields): string | undefined {
  const name = ['tag_name', 'title', 'name', 'username', 'key', 'file_path', 'path']
    .map((k) => data[k])
    .find((v) => typeof v === 'string' && v !== '');
  const number = data.iid ?? data.id;
  const parts = [
    typeof number === 'number' || (typeof number === 'string' && /^\d+$/.test(number))
      ? `${isMergeRequest(data) ? '!' : '#'}${show(number)}`
      : undefined,
    typeof name === 'string' ? `"${name}"` : undefined,
  ].filter((p): p is string => p !== undefined);
  return parts.length > 0 ? parts.join(' ') : undefined;
}

function linkOf(data: Fields): string | undefined {
  if (typeof data.web_url === 'string') return data.web_url;
  const self = asRecord(data._links).self;
  return typeof self === 'string' ? self : undefined;
}

function withLink(text: string, link: string | undefined): WriteOutcome {
  return link ? { text, link } : { text };
}

/** The outcome as one line: "Released v1.3 of acme/web from 54b5d197 — https://…". */
export function outcomeLine(outcome: WriteOutcome): string {
  return outcome.link ? `${outcome.text} — ${outcome.link}` : outcome.text;
}

/** Members: who, where, at which level. */
function memberOutcome(op: Operation, input: Fields, data: Fields, targets: Targets): WriteOutcome | undefined {
  if (op.area !== 'members') return undefined;
  const place = placeLabel(op, input, targets) ?? `the ${op.path.startsWith('/groups/') ? 'group' : 'project'}`;
  const who =
    input.user_id !== undefined
      ? personLabel(targets.people.user_id, input.user_id)
      : personLabel(undefined, undefined);
  const level =
    ACCESS_LEVEL_NAMES[String(data.access_level ?? input.access_level)] ??
    (input.access_level !== undefined ? `level ${show(input.access_level)}` : undefined);
  // The level before the write, read with the names (describeTargets): what a removal took away.
  const before = targets.levels.user_id;
  const was = before === undefined ? undefined : (ACCESS_LEVEL_NAMES[String(before)] ?? `level ${before}`);
  if (op.name.startsWith('remove_')) return { text: `Removed ${who} from ${place}${was ? ` (was ${was})` : ''}` };
  if (op.name.startsWith('add_')) return { text: `Added ${who} to ${place}${level ? ` as ${level}` : ''}` };
  if (op.name.startsWith('update_'))
    return {
      text: `Changed ${who} in ${place}${was && level ? ` from ${was} to ${level}` : level ? ` to ${level}` : ''}`,
    };
  return undefined;
}

/** Releases: the tag, the project, the commit it points at. */
function releaseOutcome(op: Operation, input: Fields, data: Fields, targets: Targets): WriteOutcome | undefined {
  if (op.area !== 'releases') return undefined;
  const place = placeLabel(op, input, targets) ?? 'the project';
  const tag = show(data.tag_name ?? input.tag_name);
  const commit = asRecord(data.commit).id;
  const from = typeof commit === 'string' ? ` from ${shortSha(commit)}` : '';
  if (op.name === 'create_release') return withLink(`Released ${tag} of ${place}${from}`, linkOf(data));
  if (op.name === 'update_release') return withLink(`Updated release ${tag} of ${place}`, linkOf(data));
  return undefined;
}

/** A commit made by a write (a commit, a cherry-pick, a revert, a file write once its commit is known). */
function commitOutcome(op: Operation, input: Fields, data: Fields, targets: Targets): WriteOutcome | undefined {
  const place = placeLabel(op, input, targets) ?? 'the project';
  const branch = show(data.branch ?? input.branch);
  if (op.area === 'repository_files' && typeof data.file_path === 'string') {
    const verb = op.name.startsWith('create_') ? 'Created' : op.name.startsWith('delete_') ? 'Deleted' : 'Updated';
    const commit = asRecord(data.commit);
    const sha =
      typeof commit.short_id === 'string'
        ? commit.short_id
        : typeof commit.id === 'string'
          ? shortSha(commit.id)
          : undefined;
    return withLink(
      `${verb} ${data.file_path} on ${branch} of ${place}${sha ? ` in commit ${sha}` : ''}`,
      linkOf(commit),
    );
  }
  if (op.area === 'repository_files' && op.name.startsWith('delete_')) {
    return { text: `Deleted ${show(input.file_path)} on ${branch} of ${place}` };
  }
  if (op.area !== 'commits' || typeof data.id !== 'string' || op.name === 'create_commit_comment') return undefined;
  const sha = typeof data.short_id === 'string' ? data.short_id : shortSha(data.id);
  const title = typeof data.title === 'string' ? `: "${data.title}"` : '';
  const verb =
    op.name === 'cherry_pick_commit'
      ? `Cherry-picked ${shortSha(input.sha)} onto`
      : op.name === 'revert_commit'
        ? `Reverted ${shortSha(input.sha)} on`
        : 'Committed to';
  // A direct revert on a branch starts its pipeline there: said, with its id, when the service started one.
  const pipeline = asRecord(data.started_pipeline);
  const started = pipeline.id !== undefined ? `; pipeline #${show(pipeline.id)} started on ${branch}` : '';
  return withLink(`${verb} ${branch} of ${place} as ${sha}${title}${started}`, linkOf(data));
}

/** A revert made as a merge request: the merge request, its branch and target, and what it reverts. */
function revertMergeRequestOutcome(
  op: Operation,
  input: Fields,
  data: Fields,
  targets: Targets,
): WriteOutcome | undefined {
  const mr = asRecord(data.merge_request);
  if (op.name !== 'revert_as_merge_request' || mr.iid === undefined) return undefined;
  const place = placeLabel(op, input, targets) ?? 'the project';
  return withLink(
    `Opened merge request !${show(mr.iid)} "${show(mr.title)}" from ${show(data.branch)} into ${show(data.target_branch)} of ${place}, ` +
      `reverting ${shortSha(asRecord(data.reverted).id)} in ${shortSha(asRecord(data.revert_commit).id)}`,
    linkOf(mr),
  );
}

/**
 * A merge: merged now (into which branch, as which commit), or set to merge when its pipeline passes ("!6 will merge
 * when pipeline #23 passes") — the service answers the merge request, still opened, for the latter.
 */
function mergeOutcome(op: Operation, input: Fields, data: Fields, targets: Targets): WriteOutcome | undefined {
  if (op.name !== 'merge_merge_request' || data.iid === undefined) return undefined;
  const place = placeLabel(op, input, targets) ?? 'the project';
  const mr = `!${show(data.iid)}`;
  const into = typeof data.target_branch === 'string' ? ` into ${data.target_branch}` : '';
  if (data.state === 'merged') {
    const sha = data.merge_commit_sha ?? data.squash_commit_sha;
    return withLink(
      `Merged ${mr}${into} of ${place}${typeof sha === 'string' ? ` as ${shortSha(sha)}` : ''}`,
      linkOf(data),
    );
  }
  if (data.state === 'opened' && data.merge_when_pipeline_succeeds === true) {
    const pipeline = asRecord(data.head_pipeline ?? data.pipeline).id;
    const when = pipeline === undefined ? 'when its pipeline passes' : `when pipeline #${show(pipeline)} passes`;
    return withLink(
      `Merge request ${mr} will merge ${when} (${into.trim() || 'into its target'} of ${place})`,
      linkOf(data),
    );
  }
  return withLink(`Merge request ${mr} of ${place} is ${show(data.state)}, not merged`, linkOf(data));
}

/** Any other write: the verb, what it acted on (path parameters), and what the answer names. */
function genericOutcome(op: Operation, input: Fields, data: Fields, targets: Targets): WriteOutcome {
  const place = placeLabel(op, input, targets);
  const verb = PAST[op.name.split('_')[0]];
  const noun = op.title.split(' ').slice(1).join(' ').toLowerCase();
  const others = op.pathParams
    .filter((p) => p !== 'id' || !place)
    .filter((p) => input[p] !== undefined)
    .map((p) => paramLabel(p, input[p], targets, noun));
  // What the answer names (a new snippet's #id and title) when the path does not already name the target.
  const made = others.length === 0 ? madeLabel(data) : undefined;
  const target = [...others, ...(made ? [made] : [])].join(' ');
  const where = place ? `${target ? ' in ' : ' for '}${place}` : '';
  if (verb && (target || where)) return withLink(`${verb} ${noun}${target ? ` ${target}` : ''}${where}`, linkOf(data));
  const parts = [...others, ...(made ? [made] : []), ...(place ? [place] : [])];
  return withLink(`${op.title}: done${parts.length > 0 ? ` — ${parts.join(', ')}` : ''}`, linkOf(data));
}

/** The sentence a write's outcome reads as; undefined for a read. */
export function outcomeSentence(
  op: Operation,
  input: Record<string, unknown>,
  data: unknown,
  targets: Targets = emptyTargets(),
): WriteOutcome | undefined {
  if (op.effect === 'read') return undefined;
  const record = asRecord(data);
  return (
    memberOutcome(op, input, record, targets) ??
    releaseOutcome(op, input, record, targets) ??
    revertMergeRequestOutcome(op, input, record, targets) ??
    mergeOutcome(op, input, record, targets) ??
    commitOutcome(op, input, record, targets) ??
    genericOutcome(op, input, record, targets)
  );
}

/** Names for the call's numbers, looked up before a write changes them (a removed member is still findable). */
export async function targetsBeforeWrite(
  op: Operation,
  input: Record<string, unknown>,
  ctx: RunContext,
  known?: Targets,
): Promise<Targets> {
  if (op.effect === 'read') return known ?? emptyTargets();
  return describeTargets(op, input, ctx, known);
}

/**
 * A file write answers only with the path and branch: the commit it made is the branch's head right after, read
 * once (a later commit by someone else could be read instead; the link then shows which).
 */
export async function commitAfterWrite(
  op: Operation,
  input: Record<string, unknown>,
  data: unknown,
  ctx: RunContext,
): Promise<unknown> {
  const record = asRecord(data);
  if (
    op.area !== 'repository_files' ||
    op.effect === 'read' ||
    typeof record.branch !== 'string' ||
    typeof record.file_path !== 'string'
  )
    return data;
  try {
    const res = await ctx.client.request({
      method: 'GET',
      path: buildPath('/projects/:id/repository/commits/:sha', { id: input.id, sha: record.branch }),
      idempotent: true,
      token: ctx.token,
      signal: ctx.signal,
      deadline: ctx.deadline,
    });
    const commit = asRecord(res.data);
    return typeof commit.id === 'string'
      ? {
          ...record,
          commit: { id: commit.id, short_id: commit.short_id, title: commit.title, web_url: commit.web_url },
        }
      : data;
  } catch {
    return data;
  }
}
