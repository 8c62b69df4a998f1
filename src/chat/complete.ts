// Tab completion for the terminal chat: command words first, then the command's parameters as `key=` and enum values.
import type { Operation } from '../operations/engine/define.js';
import { operations as registry } from '../operations/index.js';
import { commandTable, matchCommand, META_COMMANDS } from './commands.js';
import { personKeys } from '../operations/engine/people.js';
import { fieldOf, fieldsOf } from './fields.js';
import { tokenize } from './tokens.js';
import type { Token } from './tokens.js';

export interface CompleteOptions {
  operations?: readonly Operation[];
}

function startsWith(candidates: Iterable<string>, typed: string): string[] {
  const lower = typed.toLowerCase();
  return [...new Set(candidates)].filter((c) => c.toLowerCase().startsWith(lower));
}

/** The words that may follow `words` in some command (or, after help, an area or noun). */
function nextWords(words: string[], operations: readonly Operation[]): string[] {
  if (words[0] === 'help') {
    if (words.length > 1) return nextWords(words.slice(1), operations);
    return [...operations.map((op) => op.chat.split(' ')[0]), ...operations.map((op) => op.area)];
  }
  const typed = words.join(' ');
  const next = operations
    .map((op) => op.chat.split(' '))
    .filter((chat) => chat.length > words.length && chat.slice(0, words.length).join(' ') === typed)
    .map((chat) => chat[words.length]);
  return words.length === 0 ? ['help', ...next, ...Object.keys(META_COMMANDS)] : next;
}

/** A field's `key=` form, or each of its values when the key is already typed. */
function parameterCandidates(op: Operation, current: Token | undefined, typed: string, given: Set<string>): string[] {
  const dashes = typed.startsWith('--') ? '--' : '';
  if (current?.key !== undefined && !current.flag) {
    const field = fieldOf(op, current.key);
    const values = field?.values ?? (field?.kinds.has('boolean') ? [true, false] : []);
    return values.map((v) => `${dashes}${current.key}=${String(v)}`);
  }
  return fieldsOf(op)
    .filter((f) => !given.has(f.name))
    .map((f) => `${dashes}${f.name}=`);
}

/**
 * Candidates for the word being typed at the end of `line` (the text after its last space; everything when the line
 * ends in a space), each a whole replacement for that word: "retry", "status=", "status=failed".
 * Inside an open quote there is nothing to complete.
 */
export function complete(line: string, options: CompleteOptions = {}): string[] {
  const operations = options.operations ?? registry;
  let tokens: Token[];
  try {
    tokens = tokenize(line);
  } catch {
    return [];
  }
  const current = line === '' || /\s$/.test(line) ? undefined : tokens.at(-1);
  const done = current ? tokens.slice(0, -1) : tokens;
  const typed = current ? line.slice(current.start) : '';
  const words: string[] = [];
  for (const token of done) {
    if (token.quoted || token.key !== undefined) break;
    words.push(token.text.toLowerCase());
  }
  const match = matchCommand(words, commandTable(operations));
  const candidates: string[] = [];
  // Only while every finished token is a command word can the next one still be one ("file blame" → "metadata").
  if (words.length === done.length && (current === undefined || current.key === undefined))
    candidates.push(...nextWords(words, operations));
  if (match && words[0] !== 'help') {
    const given = new Set(done.filter((t) => t.key !== undefined).map((t) => t.key!.replace(/-/g, '_')));
    candidates.push(...parameterCandidates(match.op, current, typed, given));
  }
  return startsWith(candidates, typed);
}

/** A username being typed at the end of a line, and how a found username completes it. */
interface UsernameCompletion {
  /** What was typed of the username, without its @. */
  prefix: string;
  /** The whole replacement for the word: `@erin`, `user_id=@erin`. */
  candidate(username: string): string;
}

/**
 * The username being typed, when the last word is one: `@er` anywhere, or a person field's value (`user_id=er`,
 * `assignee_id=@er`). Usernames live on the service, so the caller looks them up; undefined when this is no username.
 */
export function usernameBeingTyped(line: string, options: CompleteOptions = {}): UsernameCompletion | undefined {
  if (line === '' || /\s$/.test(line)) return undefined;
  let tokens: Token[];
  try {
    tokens = tokenize(line);
  } catch {
    return undefined;
  }
  const current = tokens.at(-1);
  if (!current || current.quoted || current.flag) return undefined;
  if (current.key === undefined) {
    return /^@[\w.-]*$/.test(current.text) ? { prefix: current.text.slice(1), candidate: (u) => `@${u}` } : undefined;
  }
  const words: string[] = [];
  for (const token of tokens.slice(0, -1)) {
    if (token.quoted || token.key !== undefined) break;
    words.push(token.text.toLowerCase());
  }
  const match = matchCommand(words, commandTable(options.operations ?? registry));
  const key = current.key.replace(/-/g, '_');
  if (!match || !personKeys(match.op).includes(key) || !/^@?[\w.-]*$/.test(current.text) || /^\d+$/.test(current.text))
    return undefined;
  const typedKey = line.slice(current.start).split('=')[0];
  return { prefix: current.text.replace(/^@/, ''), candidate: (u) => `${typedKey}=@${u}` };
}
