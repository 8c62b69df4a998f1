// Help generated from the registry: usage lines, per-command help with parameters and examples, area and top-level help.
import type { Operation } from '../operations/engine/define.js';
import { personKeys } from '../operations/engine/people.js';
import { PAGINATION_CONTROL_KEYS } from '../operations/engine/define.js';
import { commandTable, isMeta, matchCommand, META_COMMANDS, nounNamed, nounOf } from './commands.js';
import { fieldOf, fieldsOf } from './fields.js';
import { positionalKeys } from './positionals.js';
import type { FieldInfo, JsonSchema } from './fields.js';
import { linkInput, readServiceUrl, serviceUrl } from './urls.js';
import type { LinkTarget } from './urls.js';

export interface HelpOptions {
  /** What a command is typed after: "/forge " in Slack, "" in the terminal. */
  prefix?: string;
  /** The service's web address, used in example links (default https://code.example.com). */
  baseUrl?: string;
}

const EXAMPLE_BASE_URL = 'https://code.example.com';

/** Values that read naturally in examples, by field name; any other field gets one made from its type. */
const SAMPLES: Record<string, unknown> = {
  id: 'acme/web',
  pipeline_id: 42,
  issue_iid: 7,
  merge_request_iid: 3,
  sha: 'a1b2c3d',
  ref: 'main',
  ref_name: 'main',
  environment: 'production',
  branch: 'main',
  file_path: 'src/app.ts',
  path: 'src',
  tag_name: 'v1.2.0',
  from: 'v1.1.0',
  to: 'main',
  refs: ['main', 'feature/login'],
  commit_message: 'Fix typo',
  description: 'First stable release',
  note: 'Looks good',
  content: 'Hello',
  title: 'Fix login',
  search: 'payments',
  // SCIM's documents: the work e-mail the service requires, and a PATCH operation that deactivates no one.
  group_path: 'acme',
  externalId: 'okta-ada',
  userName: 'ada',
  emails: [{ type: 'work', value: 'ada@acme.example', primary: true }],
  name: { formatted: 'Ada Lovelace', givenName: 'Ada', familyName: 'Lovelace' },
  Operations: [{ op: 'Replace', path: 'name.formatted', value: 'Ada Lovelace' }],
};

const LIST_CONTROLS = new Set<string>(['page', 'per_page', ...PAGINATION_CONTROL_KEYS]);

/** Whether a named sample suits this field: a user's numeric `id` must not get a project's path. */
function fits(value: unknown, schema: JsonSchema): boolean {
  const kind = Array.isArray(value) ? 'array' : typeof value;
  return (schema.anyOf ?? schema.oneOf ?? [schema]).some((branch) => {
    const types = [branch.type].flat();
    return (
      types[0] === undefined ||
      types.some((t) => t === kind || ((t === 'integer' || t === 'number') && kind === 'number'))
    );
  });
}

/** A group's example is a group, a person's a username (chat resolves it), else the named sample. */
function sampleIn(op: Operation, name: string, schema: JsonSchema): unknown {
  if (name === 'id' && op.path.startsWith('/groups/') && fits(GROUP_SAMPLE, schema)) return GROUP_SAMPLE;
  if (personKeys(op).includes(name)) return PERSON_SAMPLE;
  return sampleFor(name, schema);
}

const GROUP_SAMPLE = 'acme';
const PERSON_SAMPLE = '@erin';

function sampleFor(name: string, schema: JsonSchema): unknown {
  if (Object.hasOwn(SAMPLES, name) && fits(SAMPLES[name], schema)) return SAMPLES[name];
  const branch = schema.anyOf?.[0] ?? schema.oneOf?.[0] ?? schema;
  if (branch.enum) return branch.enum[0];
  if (branch.const !== undefined) return branch.const;
  const type = [branch.type].flat()[0];
  if (type === 'integer' || type === 'number') return 1;
  if (type === 'boolean') return true;
  if (type === 'array') return [sampleFor(name, branch.items ?? {})];
  if (type === 'object') {
    // The required properties, and the optional ones with a sample of their own (a commit action's content).
    const names = Object.keys(branch.properties ?? {}).filter(
      (key) => branch.required?.includes(key) || Object.hasOwn(SAMPLES, key),
    );
    return Object.fromEntries(names.map((key) => [key, sampleFor(key, branch.properties![key])]));
  }
  return 'text';
}

/** A value written the way the grammar reads it back. */
export function formatValue(value: unknown): string {
  if (typeof value === 'string')
    return value === '' || /[\s"'`,=]/.test(value) || /^[[{]/.test(value) ? JSON.stringify(value) : value;
  if (
    Array.isArray(value) &&
    value.every((v) => typeof v === 'number' || (typeof v === 'string' && /^[^\s"'`,[{]+$/.test(v)))
  ) {
    return value.join(',');
  }
  if (typeof value === 'object' && value !== null) {
    const json = JSON.stringify(value);
    return json.includes("'") ? JSON.stringify(json) : `'${json}'`;
  }
  return String(value);
}

function requiredKeys(op: Operation): FieldInfo[] {
  const positional = positionalKeys(op);
  return fieldsOf(op).filter((f) => f.required && !positional.includes(f.name));
}

/** The keys an example needs: the required ones, and the first of each one_of rule (create_user's password). */
function exampleKeys(op: Operation): FieldInfo[] {
  const wanted = new Set(requiredKeys(op).map((f) => f.name));
  for (const rule of op.rules ?? [])
    if (rule.kind === 'one_of' && !rule.keys.some((key) => wanted.has(key))) wanted.add(rule.keys[0]);
  const positional = positionalKeys(op);
  return fieldsOf(op).filter((f) => wanted.has(f.name) && !positional.includes(f.name));
}

/** "pipeline retry <id> <pipeline_id> [key=value …]": path values in route order, then the required keys. */
export function usageLine(op: Operation, options: HelpOptions = {}): string {
  const parts = [
    `${options.prefix ?? ''}${op.chat}`,
    ...positionalKeys(op).map((p) => (fieldOf(op, p)?.required ? `<${p}>` : `[<${p}>]`)),
    ...requiredKeys(op).map((f) => `${f.name}=<value>`),
    '[key=value …]',
  ];
  return parts.join(' ');
}

function keyArgs(op: Operation, fields: FieldInfo[]): string[] {
  return fields.map((f) => `${f.name}=${formatValue(sampleIn(op, f.name, f.schema))}`);
}

/** The path parameters a link can carry, as the part of the link each one is. */
function linkTargetFor(op: Operation): LinkTarget | undefined {
  if (op.pathParams[0] !== 'id' || op.pathParams.length < 2) return undefined;
  const target: LinkTarget = { project: SAMPLES.id as string };
  for (const param of op.pathParams.slice(1)) {
    if (param === 'file_path') Object.assign(target, { path: SAMPLES.file_path, ref: SAMPLES.ref });
    else if (param === 'sha' || param === 'tag_name') target[param] = SAMPLES[param] as string;
    else if (param === 'pipeline_id' || param === 'issue_iid' || param === 'merge_request_iid')
      target[param] = SAMPLES[param] as number;
    else return undefined;
  }
  return target;
}

/** One or two example lines: the path values typed out, then a pasted link or an optional filter. */
export function examples(op: Operation, options: HelpOptions = {}): string[] {
  const prefix = `${options.prefix ?? ''}${op.chat}`;
  const fields = fieldsOf(op);
  const positional = positionalKeys(op);
  const pathFields = fields
    .filter((f) => positional.includes(f.name))
    .sort((a, b) => positional.indexOf(a.name) - positional.indexOf(b.name));
  const samplePath = pathFields.filter((f) => f.required).map((f) => formatValue(sampleIn(op, f.name, f.schema)));
  const lines = [[prefix, ...samplePath, ...keyArgs(op, exampleKeys(op))].join(' ')];
  const target = linkTargetFor(op);
  if (target) {
    const url = serviceUrl(options.baseUrl ?? EXAMPLE_BASE_URL, target);
    const covered = linkInput(readServiceUrl(url)!, new Set(fields.map((f) => f.name)));
    lines.push(
      [
        prefix,
        url,
        ...keyArgs(
          op,
          exampleKeys(op).filter((f) => !(f.name in covered)),
        ),
      ].join(' '),
    );
  } else if (op.effect === 'read') {
    // A read's first optional filter with a telling value (an enum, a flag, a known sample) shows key=value at work.
    const filter = fields.find(
      (f) =>
        !f.required &&
        !LIST_CONTROLS.has(f.name) &&
        !pathFields.includes(f) &&
        (f.values || f.kinds.has('boolean') || Object.hasOwn(SAMPLES, f.name)),
    );
    if (filter) lines.push(`${lines[0]} ${keyArgs(op, [filter])[0]}`);
  }
  return lines;
}

function table(rows: Array<[string, string]>): string[] {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`.trimEnd());
}

export function commandHelp(op: Operation, options: HelpOptions = {}): string {
  const approval =
    op.effect === 'destructive' || op.alwaysAsks
      ? 'Asks you to approve it before it runs.'
      : op.needsApproval
        ? 'May ask you to approve it, depending on the input.'
        : undefined;
  const parameters = fieldsOf(op).map((f): [string, string] => [
    f.name,
    `${f.type}, ${f.required ? 'required' : 'optional'}${f.description ? ` — ${f.description}` : ''}`,
  ]);
  return [
    `Usage: ${usageLine(op, options)}`,
    `${op.title}: ${op.description}`,
    ...(approval ? [approval] : []),
    '',
    'Parameters:',
    ...(parameters.length > 0 ? table(parameters) : ['  (none)']),
    '',
    'Examples:',
    ...examples(op, options).map((line) => `  ${line}`),
  ].join('\n');
}

function areaTitle(area: string): string {
  const words = area.replace(/_/g, ' ');
  return words[0].toUpperCase() + words.slice(1);
}

/** Commands listed with their titles under a heading, and how to read one's help. */
function commandList(heading: string, ops: readonly Operation[], options: HelpOptions): string {
  const prefix = options.prefix ?? '';
  return [
    `${heading}:`,
    ...table(ops.map((op) => [op.chat, op.title])),
    '',
    `${prefix}help <command> shows its parameters and examples, e.g. ${prefix}help ${ops[0].chat}`,
  ].join('\n');
}

/** Areas, each with its commands grouped by noun ("pipeline list, get, …"), examples, and the meta commands. */
export function topHelp(ops: readonly Operation[], options: HelpOptions = {}): string {
  const prefix = options.prefix ?? '';
  const areas = [...new Set(ops.map((op) => op.area))];
  const rows = areas.map((area): [string, string] => {
    const inArea = ops.filter((op) => op.area === area);
    const nouns = [...new Set(inArea.map(nounOf))];
    return [
      area,
      nouns
        .map(
          (noun) =>
            `${noun} ${inArea
              .filter((op) => nounOf(op) === noun)
              .map((op) => op.chat.slice(noun.length + 1))
              .join(', ')}`,
        )
        .join('; '),
    ];
  });
  // Showcase commands when they exist; their last example is the one that shows the most of the grammar.
  const showcase = ['pipeline list', 'pipeline retry', 'release create']
    .map((chat) => ops.find((op) => op.chat === chat))
    .filter((op): op is Operation => op !== undefined);
  const shown = showcase.length > 0 ? showcase : ops.slice(0, 3);
  return [
    `Usage: ${prefix}<command> [values] [key=value …]`,
    'Values with spaces go in quotes ("…" or \'…\') or a ``` block; a link to a page of the service can stand for the project and what it shows.',
    'A ``` block is kept exactly: closed on a line of its own, it ends with a newline, as a file does.',
    'Times are ISO 8601 (2026-11-23 or 2026-11-23T09:30:00Z); a project is its ID or full path (group/app).',
    '',
    `Areas (${prefix}help <area> lists its commands, ${prefix}help <command> explains one):`,
    ...table(rows),
    '',
    'Examples:',
    ...shown.map((op) => `  ${examples(op, options).at(-1)}`),
    '',
    'Also:',
    ...table(Object.values(META_COMMANDS).map((meta) => [`${prefix}${meta.usage}`, meta.summary])),
  ].join('\n');
}

/** Help on a topic: a command ("pipeline retry"), an area ("pipelines"), a noun ("pipeline"); undefined if none. */
export function helpTopic(
  words: readonly string[],
  ops: readonly Operation[],
  options: HelpOptions = {},
): string | undefined {
  if (words.length === 0) return topHelp(ops, options);
  const commands = commandTable(ops);
  // The MCP tool name ("retry_pipeline") names the command too: people see both.
  const op = matchCommand(words, commands)?.op ?? ops.find((o) => o.name === words[0].toLowerCase());
  if (op) return commandHelp(op, options);
  const area = words.join('_').toLowerCase().replace(/-/g, '_');
  const inArea = ops.filter((op) => op.area === area);
  if (inArea.length > 0) return commandList(areaTitle(area), inArea, options);
  const first = words[0].toLowerCase();
  if (isMeta(first)) return `${options.prefix ?? ''}${META_COMMANDS[first].usage}\n${META_COMMANDS[first].summary}`;
  const noun = nounNamed(first, commands);
  if (noun)
    return commandList(
      `${noun} commands`,
      ops.filter((op) => nounOf(op) === noun),
      options,
    );
  return undefined;
}
