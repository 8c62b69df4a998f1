// The chat grammar: a line such as `pipeline retry acme/web 42` or `release create acme/web tag_name=v1.2` becomes an
// operation and its validated input, a help text, or an error that says what to type instead.
import type { Operation } from '../operations/engine/define.js';
import { operations as registry } from '../operations/index.js';
import { InputError, validateInput } from '../operations/engine/validate.js';
import { unresolvedPeople } from '../operations/engine/people.js';
import { isSecretName } from '../operations/engine/secrets.js';
import { closest } from '../text/suggest.js';
import { commandTable, isMeta, matchCommand, META_COMMANDS, nounNamed, suggestCommands } from './commands.js';
import type { MetaName } from './commands.js';
import { ChatError } from './errors.js';
import { booleanWord, fieldOf, fieldsOf, isBooleanWord, typeValue } from './fields.js';
import { commandHelp, helpTopic, usageLine } from './help.js';
import type { HelpOptions } from './help.js';
import { positionalKeys } from './positionals.js';
import { tokenize } from './tokens.js';
import type { Token } from './tokens.js';
import { linkInput, looksLikeUrl, readServiceUrl } from './urls.js';

export type ParsedCommand =
  /** dryRun: typed with --dry-run, so the front end shows what it would send instead of running it. */
  | { kind: 'call'; operation: Operation; input: Record<string, unknown>; dryRun?: true }
  | { kind: 'help'; text: string }
  | { kind: 'use'; project: string }
  /** Commands the front end handles itself; `project` is triage's, from its argument or the default project. */
  | { kind: 'meta'; name: Exclude<MetaName, 'use'>; args: string[]; project?: string }
  | { kind: 'error'; message: string; usage?: string; suggestions?: string[] };

export interface ParseOptions extends HelpOptions {
  /** The operations to parse against (default: the registry). */
  operations?: readonly Operation[];
  /** The conversation's default project (set with `use`): the project of every project command that names none. */
  defaultProject?: string;
}

/** A token that can be a command word: typed bare, not a key. */
function bareWord(token: Token | undefined): string | undefined {
  return token && !token.quoted && token.key === undefined ? token.text.toLowerCase() : undefined;
}

function isHelpFlag(token: Token): boolean {
  return (token.flag === true && token.key === 'help') || bareWord(token) === '-h';
}

/** A project as typed, or the project of a pasted link. */
function projectOf(text: string, options: ParseOptions): string {
  return readServiceUrl(text, options.baseUrl)?.project ?? text;
}

/** Operations on one project (a /projects/:id route) take the default project when they name none. */
function takesDefaultProject(op: Operation): boolean {
  return op.pathParams[0] === 'id' && op.path.startsWith('/projects/');
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The input the arguments after the command words give `op`, before validation. */
function readArguments(op: Operation, args: readonly Token[], options: ParseOptions): Record<string, unknown> {
  const names = new Set(fieldsOf(op).map((f) => f.name));
  const input: Record<string, unknown> = {};
  const set = (name: string, value: unknown): void => {
    if (!(name in input) || sameValue(input[name], value)) input[name] = value;
    // Repeating a list's key adds to the list (milestones=a milestones=b).
    else if (Array.isArray(input[name]) && Array.isArray(value))
      input[name] = [...(input[name] as unknown[]), ...value];
    else throw new ChatError(`${name} is given twice.`);
  };
  const positionals: Token[] = [];
  for (let i = 0; i < args.length; i++) {
    const token = args[i];
    if (token.key === undefined) {
      const link = readServiceUrl(token.text, options.baseUrl);
      if (!link) {
        positionals.push(token);
        continue;
      }
      const linked = linkInput(link, names);
      if (Object.keys(linked).length === 0) throw new ChatError(`${token.text} names nothing ${op.chat} takes.`);
      for (const [name, value] of Object.entries(linked)) set(name, typeValue(fieldOf(op, name)!, String(value), true));
      continue;
    }
    // Keys match in any case; SCIM's own are camelCase (userName), and people type them either way.
    const typed = token.key.toLowerCase().replace(/-/g, '_');
    const name = [...names].find((n) => n.toLowerCase() === typed) ?? typed;
    const field = fieldOf(op, name);
    if (!field) {
      const near = closest(name, [...names]);
      throw new ChatError(
        `${op.chat} has no parameter "${token.key}".${near.length > 0 ? ` Did you mean ${near.join(' or ')}?` : ''}`,
        near,
      );
    }
    let { text, quoted } = token;
    if (token.flag) {
      // --key value, gh-style; a lone --flag of a boolean field means true.
      const next = args[i + 1];
      const booleanOnly = field.kinds.has('boolean') && field.kinds.size === 1;
      if (next && next.key === undefined && (!booleanOnly || isBooleanWord(next.text))) {
        ({ text, quoted } = next);
        i++;
      } else if (field.kinds.has('boolean')) {
        text = 'true';
      } else {
        throw new ChatError(`--${token.key} needs a value: --${token.key}=<value>.`);
      }
    }
    if (name === 'id' && looksLikeUrl(text)) text = projectOf(text, options);
    set(name, typeValue(field, text, quoted));
  }
  assignPositionals(op, positionals, input, options, set);
  if (options.defaultProject && takesDefaultProject(op) && input.id === undefined) {
    input.id = typeValue(fieldOf(op, 'id')!, options.defaultProject, false);
  }
  return input;
}

/** Whether any input of the operation may hold a credential (a CI variable's value, a password, a settings object). */
function carriesCredentials(op: Operation): boolean {
  return (
    (op.secretInputs?.length ?? 0) > 0 || op.spreadInput !== undefined || Object.keys(op.input.shape).some(isSecretName)
  );
}

/**
 * Values typed without a key fill the command's positional keys in order (positionalKeys: its path parameters, and the
 * key naming the item an add or create makes); with a default project, the project may be left out.
 */
function assignPositionals(
  op: Operation,
  positionals: Token[],
  input: Record<string, unknown>,
  options: ParseOptions,
  set: (name: string, value: unknown) => void,
): void {
  const keys = positionalKeys(op, options.operations);
  let slots = keys.filter((p) => !(p in input));
  if (options.defaultProject && takesDefaultProject(op) && slots[0] === 'id' && positionals.length < slots.length) {
    slots = slots.slice(1);
  }
  if (positionals.length > slots.length) {
    const stray = positionals.slice(slots.length);
    // A stray word of a command that carries a credential may be part of it (value=two words): never echoed.
    const extra = carriesCredentials(op)
      ? `${stray.length} more than it takes (not shown: this command carries credentials; quote a value with spaces)`
      : stray.map((t) => `"${t.text}"`).join(', ');
    const given = keys.filter((p) => p in input);
    const takes = keys.length > 0 ? keys.map((p) => `<${p}>`).join(' ') : 'values only as key=value';
    const already = given.length > 0 ? `; ${given.join(' and ')} ${given.length > 1 ? 'are' : 'is'} already given` : '';
    throw new ChatError(`Too many values: ${extra}. ${op.chat} takes ${takes}${already}.`);
  }
  positionals.forEach((token, k) => {
    set(slots[k], typeValue(fieldOf(op, slots[k])!, token.text, token.quoted));
  });
}

/** How a dry run is asked for in chat, as in git and kubectl; dry_run=yes is read too. */
const DRY_RUN_FLAG = 'dry_run';

/**
 * Takes --dry-run off a command's arguments (before they are read as the operation's own). Only commands that change
 * something take it: a read has nothing to preview, and saying so beats running it silently.
 */
function takeDryRun(op: Operation, args: readonly Token[]): { dryRun: boolean; rest: Token[] } {
  let dryRun = false;
  const rest: Token[] = [];
  for (let i = 0; i < args.length; i++) {
    const token = args[i];
    if (token.key?.toLowerCase().replace(/-/g, '_') !== DRY_RUN_FLAG) {
      rest.push(token);
      continue;
    }
    let text = token.text;
    if (token.flag) {
      // --dry-run alone means yes; --dry-run no is read like any boolean flag.
      const next = args[i + 1];
      const answered = next !== undefined && next.key === undefined && !next.quoted && isBooleanWord(next.text);
      text = answered ? next.text : 'yes';
      if (answered) i++;
    }
    const value = booleanWord(text);
    if (value === undefined) throw new ChatError(`--dry-run takes no value (or yes/no), not "${text}".`);
    dryRun = value;
  }
  if (dryRun && op.effect === 'read') {
    throw new ChatError(
      `${op.chat} only reads, so there is nothing to preview: --dry-run is for commands that change something.`,
    );
  }
  return { dryRun, rest };
}

/**
 * The operation's own validation (as in every front end), its issues said the chat way. A person named by username
 * (`@erin`) is resolved later, by the dispatcher through the service: here it stands in as an id for the check and
 * stays a name in the result.
 */
function validated(op: Operation, input: Record<string, unknown>): Record<string, unknown> {
  const names = unresolvedPeople(op, input);
  try {
    if (names.length === 0) return validateInput(op, input) as Record<string, unknown>;
    const checked = validateInput(op, { ...input, ...Object.fromEntries(names.map((key) => [key, 1])) }) as Record<
      string,
      unknown
    >;
    return { ...checked, ...Object.fromEntries(names.map((key) => [key, input[key]])) };
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    const problems = error.issues.map(({ field, message }) => {
      if (fieldOf(op, field)?.required && input[field] === undefined) return `${field} is required`;
      return field ? `${field}: ${message}` : message;
    });
    throw new ChatError(`${op.chat}: ${problems.join('; ')}.`);
  }
}

function unknownCommand(words: string[], operations: readonly Operation[]): ParsedCommand {
  const table = commandTable(operations);
  const typed = words.slice(0, Math.max(1, table.maxWords)).join(' ');
  const suggestions = suggestCommands(words, table);
  if (words.length === 1 && nounNamed(words[0], table)) {
    return { kind: 'error', message: `"${typed}" needs one more word: ${suggestions.join(', ')}.`, suggestions };
  }
  const hint = suggestions.length > 0 ? ` Did you mean: ${suggestions.join(', ')}?` : ' Type help to see the commands.';
  return { kind: 'error', message: `Unknown command "${typed}".${hint}`, suggestions };
}

function parseMeta(name: MetaName, args: Token[], options: ParseOptions): ParsedCommand {
  const texts = args.map((t) => (t.key !== undefined ? `${t.key}=${t.text}` : t.text));
  if (name === 'use') {
    if (args.length !== 1 || args[0].key !== undefined || args[0].text === '') {
      return { kind: 'error', message: 'use takes one project, e.g. use acme/web.', usage: META_COMMANDS.use.usage };
    }
    return { kind: 'use', project: projectOf(args[0].text, options) };
  }
  if (name === 'triage') {
    const project = texts[0] !== undefined ? projectOf(texts[0], options) : options.defaultProject;
    return { kind: 'meta', name, args: texts, ...(project !== undefined ? { project } : {}) };
  }
  return { kind: 'meta', name, args: texts };
}

function parseHelp(args: Token[], operations: readonly Operation[], options: ParseOptions): ParsedCommand {
  const words = args.map((t) => t.text);
  const text = helpTopic(words, operations, options);
  if (text !== undefined) return { kind: 'help', text };
  const table = commandTable(operations);
  const areas = [...new Set(operations.map((op) => op.area as string))];
  const suggestions = [...closest(words.join('_'), areas, 2), ...suggestCommands(words, table)];
  const hint = suggestions.length > 0 ? ` Did you mean: ${suggestions.join(', ')}?` : '';
  return { kind: 'error', message: `No help on "${words.join(' ')}".${hint}`, suggestions };
}

function errorResult(error: unknown, usage?: string): ParsedCommand {
  if (!(error instanceof ChatError)) throw error;
  return {
    kind: 'error',
    message: error.message,
    ...(usage !== undefined ? { usage } : {}),
    ...(error.suggestions.length > 0 ? { suggestions: error.suggestions } : {}),
  };
}

function parseTokens(tokens: Token[], options: ParseOptions): ParsedCommand {
  const operations = options.operations ?? registry;
  const first = bareWord(tokens[0]);
  if (tokens.length === 0 || first === 'help' || first === '?') return parseHelp(tokens.slice(1), operations, options);
  if (first !== undefined && isMeta(first)) {
    try {
      return parseMeta(first, tokens.slice(1), options);
    } catch (error) {
      return errorResult(error, META_COMMANDS[first].usage);
    }
  }
  const words: string[] = [];
  for (const token of tokens) {
    const word = bareWord(token);
    if (word === undefined || !/^[a-z][a-z-]*$/.test(word)) break;
    words.push(word);
  }
  const match = matchCommand(words, commandTable(operations));
  if (!match) {
    if (words.length === 0)
      return { kind: 'error', message: 'Start with a command, e.g. pipeline list. Type help to see them all.' };
    return unknownCommand(words, operations);
  }
  const { op } = match;
  const args = tokens.slice(match.length);
  if (args.some(isHelpFlag)) return { kind: 'help', text: commandHelp(op, options) };
  try {
    const { dryRun, rest } = takeDryRun(op, args);
    const input = validated(op, readArguments(op, rest, options));
    return { kind: 'call', operation: op, input, ...(dryRun ? { dryRun: true as const } : {}) };
  } catch (error) {
    return errorResult(error, usageLine(op, options));
  }
}

/** Reads one chat line. Never throws for anything a person can type. */
export function parse(line: string, options: ParseOptions = {}): ParsedCommand {
  let tokens: Token[];
  try {
    tokens = tokenize(line);
  } catch (error) {
    return errorResult(error);
  }
  return parseTokens(tokens, options);
}

/** An error result as one text: the message, then the usage line. */
export function errorText(result: Extract<ParsedCommand, { kind: 'error' }>): string {
  return result.usage ? `${result.message}\nUsage: ${result.usage}` : result.message;
}
