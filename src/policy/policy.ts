// The policy step every front end asks before running: allowed here and now? does a human need to approve, and what exactly do they see?
import { createHash } from 'node:crypto';
import type { Operation } from '../operations/engine/define.js';
import {
  factsNeeded,
  NOT_READ_HERE,
  type FactsReading,
  type JobFacts,
  type PipelineFacts,
} from '../operations/engine/effect-facts.js';
import { describePerson, type Targets } from '../operations/engine/people.js';
import { ACCESS_LEVEL_NAMES } from '../operations/engine/present.js';
import { isSecretName } from '../operations/engine/secrets.js';
import { serviceOrigin } from '../text/url-host.js';
import { joinShown, quoteExactly, showKey, shown, spellOutHidden, type ShownText } from '../text/visible.js';

export interface PolicyOptions {
  readOnly: boolean;
  /** Why writes are off, in the deny message (a Slack channel's own rule); default: FORGEOPS_READ_ONLY. */
  readOnlyReason?: string;
}

export type Decision =
  | { kind: 'run' }
  /**
   * `reason`: why a human must approve (shown atop `prompt`, which adds every argument); `answers`: the two buttons.
   * Both texts are ShownText: every front end shows them as they are, adding only its own markup's escaping.
   */
  | { kind: 'approve'; prompt: ShownText; reason: ShownText; answers: Answers }
  | { kind: 'deny'; reason: string };

/** Why a change is refused in read-only mode (undefined for a read, or outside read-only mode). */
export function readOnlyRefusal(op: Pick<Operation, 'name' | 'effect'>, options: PolicyOptions): string | undefined {
  if (!options.readOnly || op.effect === 'read') return undefined;
  return `${op.name} changes data, and ${options.readOnlyReason ?? 'forgeops runs in read-only mode (FORGEOPS_READ_ONLY)'}; nothing was sent.`;
}

/**
 * Decides what happens to a validated call. A destructive operation always needs a human; a write does when its
 * needsApproval() finds this input dangerous (a commit that deletes files, a forced commit, an overwrite without history).
 */
export function decide(
  op: Operation,
  input: Record<string, unknown>,
  options: PolicyOptions,
  targets?: Targets,
  facts?: FactsReading,
): Decision {
  const refusal = readOnlyRefusal(op, options);
  if (refusal) return { kind: 'deny', reason: refusal };
  // A call whose effect depends on what the service holds (op.facts) is judged on what was read; facts it needed and
  // did not get (a failed lookup, or a path that reads nothing) make it ask, saying so: it never runs unasked.
  const reading = factsNeeded(op, input) ? (facts ?? NOT_READ_HERE) : undefined;
  const known = reading?.read ? reading.facts : undefined;
  const refused = reading?.read ? op.facts?.refuse?.(input as never, known as never) : undefined;
  if (refused) return { kind: 'deny', reason: refused };
  const special = op.needsApproval?.(input as never, known as never);
  const unread =
    reading && !reading.read
      ? `Its effect depends on ${op.facts!.what}, which ${reading.why}; so a human decides.`
      : undefined;
  const reason = [special ?? (op.effect === 'destructive' ? op.undo : undefined), unread].filter(Boolean).join(' ');
  if (reason)
    return {
      kind: 'approve',
      prompt: approvalPrompt(op, input, reason, targets),
      reason: spellOutHidden(reason),
      answers: answersTo(op, input),
    };
  return { kind: 'run' };
}

/**
 * Free-text fields whose long values are summarised by size and hash so the prompt stays readable. Everything
 * else (paths, refs, projects, actions, ids) is always shown whole: it decides what the call touches.
 */
const SUMMARISED_FIELDS = new Set(['content', 'description', 'note', 'commit_message', 'message', 'body']);
const SUMMARY_THRESHOLD_CHARS = 300;

/** Long free text as a human reads it in an approval request or a dry run: its size and a digest, never the text. */
export function summarise(text: string): ShownText {
  const sha = createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 16);
  return shown`<${text.length} characters, ${Buffer.byteLength(text, 'utf8')} bytes, sha256 ${showKey(sha)}\u2026>`;
}

/**
 * A credential as the human sees it: its length, and for a URL (a chat webhook) the origin it sends to — where the
 * project's events go is exactly what a human must judge, while the path is the secret.
 */
export function secretSummary(value: string): ShownText {
  // The host as the service will read it (validateInput refuses an address other parsers read differently).
  const origin = serviceOrigin(value);
  return origin
    ? shown`<secret URL on ${quoteExactly(origin)}, ${value.length} characters>`
    : shown`<secret, ${value.length} characters>`;
}

/** Whether a string of this field is summarised by size and hash rather than shown whole. */
export function isLongFreeText(key: string, text: string): boolean {
  return SUMMARISED_FIELDS.has(key) && text.length > SUMMARY_THRESHOLD_CHARS;
}

/** One value as the human reads it: strings quoted and whole, long free text summarised, objects on one line each. */
function renderValue(key: string, value: unknown): ShownText {
  // A credential (an integration's token, password or webhook URL) is never echoed into a chat or a dialog; the
  // approval stays bound to the exact value all the same.
  if (typeof value === 'string' && isSecretName(key)) return secretSummary(value);
  if (typeof value === 'string') {
    return isLongFreeText(key, value) ? summarise(value) : quoteExactly(value);
  }
  if (Array.isArray(value))
    return shown`[${joinShown(
      value.map((v) => renderValue(key, v)),
      ', ',
    )}]`;
  if (value && typeof value === 'object') {
    const parts = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => shown`${showKey(k)}: ${renderValue(k, v)}`);
    return shown`{${joinShown(parts, ', ')}}`;
  }
  return typeof value === 'number' || typeof value === 'boolean' || value === null
    ? shown`${value}`
    : quoteExactly(String(value));
}

/**
 * The two answers to an approval request, each saying what it does: on "Cancel pipeline?" a button called Cancel could
 * mean either, so yes names the action and its number ("Yes, cancel pipeline 9") and no says what stays as it is.
 */
export interface Answers {
  yes: ShownText;
  no: ShownText;
}

export function answersTo(
  op: Pick<Operation, 'name' | 'title' | 'effect' | 'path' | 'pathParams'>,
  input: Record<string, unknown>,
): Answers {
  const action = op.title.charAt(0).toLowerCase() + op.title.slice(1);
  // The object's own number, when the last path parameter holds one (pipeline 9, job 32, but not the project of
  // /projects/:id/notification_settings); a name is left to the prompt, which shows it whole.
  const param = op.pathParams.at(-1);
  const value = param === undefined ? undefined : input[param];
  const own = param !== 'id' || op.path.endsWith('/:id');
  const number = typeof value === 'number' && own ? shown` ${value}` : shown``;
  const no = op.name.startsWith('cancel_')
    ? 'No, keep it running'
    : op.effect === 'read'
      ? "No, don't show it"
      : 'No, change nothing';
  return { yes: shown`Yes, ${spellOutHidden(action)}${number}`, no: spellOutHidden(no) };
}

/** What a path parameter names, read from the route: ':id' after '/projects' is the project, after '/groups' the group. */
function targetLabel(op: Operation, param: string): ShownText {
  if (param !== 'id') return showKey(param);
  // SCIM spells its collections capitalised ('/Users/:id').
  const before = new RegExp(`/([A-Za-z_]+)/:${param}(?:/|\\[|$)`).exec(op.path)?.[1];
  return showKey(before ? before.toLowerCase().replace(/s$/, '') : param);
}

/** `"deploy-production" (stage "deploy", pipeline 9 on "main", running)`: what a job's number stands for. */
function describeJob(job: JobFacts): ShownText {
  const pipeline =
    job.pipeline_id === undefined
      ? []
      : [
          job.ref === undefined
            ? shown`pipeline ${job.pipeline_id}`
            : shown`pipeline ${job.pipeline_id} on ${quoteExactly(job.ref)}`,
        ];
  // A job that ran once a person started it: a retry starts it again at once.
  const manual = job.when === 'manual' && job.status !== 'manual' ? [shown`manual`] : [];
  const details = [shown`stage ${quoteExactly(job.stage)}`, ...pipeline, spellOutHidden(job.status), ...manual];
  return shown`${quoteExactly(job.name)} (${joinShown(details, ', ')})`;
}

/** `on "main", running, commit 54b5d197`: what a pipeline's number stands for. */
function describePipeline(pipeline: PipelineFacts): ShownText {
  const details = [
    ...(pipeline.ref === undefined ? [] : [shown`on ${quoteExactly(pipeline.ref)}`]),
    spellOutHidden(pipeline.status),
    ...(pipeline.sha === undefined ? [] : [shown`commit ${quoteExactly(pipeline.sha.slice(0, 8))}`]),
  ];
  return joinShown(details, ', ');
}

/**
 * A number the human could not judge, said with what it names: `Erin Walsh (@erin, id 6)`, `acme/web (id 3)`; a
 * lookup that failed is said too, never hidden. Undefined when there is nothing to add (a path typed as a path).
 */
function namedTarget(key: string, value: unknown, targets: Targets): ShownText | undefined {
  const person = targets.people[key];
  // A member about to change or go: their level now, so the human sees what the call takes away.
  const level = targets.levels[key];
  if (person && person.id === value) {
    if (level === undefined) return describePerson(person);
    const name = ACCESS_LEVEL_NAMES[String(level)];
    return shown`${describePerson(person)}, now ${name ? spellOutHidden(name) : shown`level ${level}`}`;
  }
  const job = targets.jobs[key];
  if (job && job.id === value) return shown`${value} \u2014 ${describeJob(job)}`;
  const pipeline = targets.pipelines[key];
  if (pipeline && pipeline.id === value) return shown`${value} \u2014 ${describePipeline(pipeline)}`;
  const place = targets.places[key];
  if (place !== undefined && typeof value === 'number') return shown`${quoteExactly(place)} (id ${value})`;
  // The lookup's failure carries the service's own words.
  if (targets.unknown[key] !== undefined)
    return shown`${renderValue(key, value)} (${spellOutHidden(targets.unknown[key])})`;
  return undefined;
}

/**
 * The text a human approves: the operation, why it needs them, and then every argument that will be sent, one a
 * line and never cut (an array of objects, such as a commit's actions, one element a line). Only long free text
 * is summarised, by size and hash, and credentials by their length. What is approved is therefore exactly what runs.
 */
export function approvalPrompt(
  op: Operation,
  input: Record<string, unknown>,
  reason: string,
  targets?: Targets,
): ShownText {
  // The reason may quote the input (an integration's slug): spelled out like every value.
  const lines = [
    shown`${spellOutHidden(op.title)} (${showKey(op.name)}): ${spellOutHidden(reason)}`,
    shown`The exact call:`,
  ];
  const keys = [
    ...op.pathParams.filter((p) => input[p] !== undefined),
    ...Object.keys(input).filter((k) => !op.pathParams.includes(k)),
  ];
  for (const key of keys) {
    const value = input[key];
    if (value === undefined) continue;
    const label = op.pathParams.includes(key) ? targetLabel(op, key) : showKey(key);
    const named = targets && namedTarget(key, value, targets);
    if (named !== undefined) {
      lines.push(shown`  ${label}: ${named}`);
    } else if (typeof value === 'string' && op.secretInputs?.includes(key)) {
      lines.push(shown`  ${label}: ${secretSummary(value)}`);
    } else if (Array.isArray(value) && value.some((v) => v && typeof v === 'object')) {
      lines.push(shown`  ${label}:`);
      value.forEach((item, i) => {
        lines.push(shown`    ${i + 1}. ${renderValue(key, item)}`);
      });
    } else {
      lines.push(shown`  ${label}: ${renderValue(key, value)}`);
    }
  }
  return joinShown(lines, '\n');
}
