// The command words of a list of operations: longest-match lookup, the meta commands the front ends handle,
// and "did you mean" for a mistyped command.
import type { Operation } from '../operations/engine/define.js';
import { closest, editDistance } from '../text/suggest.js';

/** Commands that are not operations: each front end handles them itself. */
export const META_COMMANDS = {
  use: { usage: 'use <project>', summary: 'Set the default project of this conversation.' },
  triage: { usage: 'triage <project>', summary: 'Show what needs attention in a project.' },
  login: { usage: 'login', summary: 'Link your account on the service.' },
  logout: { usage: 'logout', summary: 'Forget your linked account.' },
  whoami: { usage: 'whoami', summary: 'Show which account your commands run as.' },
  watch: {
    usage: 'watch <project> [branch]',
    summary:
      'Follow the default branch: in Slack, one message per red episode in this channel, updated until green; in the terminal, each change until Ctrl+C.',
  },
  unwatch: { usage: 'unwatch <project>', summary: 'Stop watching a project in this Slack channel.' },
  watching: { usage: 'watching', summary: 'List the projects this Slack channel watches.' },
} as const;
export type MetaName = keyof typeof META_COMMANDS;

export function isMeta(word: string): word is MetaName {
  return Object.hasOwn(META_COMMANDS, word);
}

interface CommandTable {
  operations: readonly Operation[];
  byWords: Map<string, Operation>;
  /** First words ("pipeline"), in registry order. */
  nouns: string[];
  maxWords: number;
}

const tables = new WeakMap<readonly Operation[], CommandTable>();

export function commandTable(operations: readonly Operation[]): CommandTable {
  let table = tables.get(operations);
  if (!table) {
    table = {
      operations,
      byWords: new Map(operations.map((op) => [op.chat, op])),
      nouns: [...new Set(operations.map(nounOf))],
      maxWords: Math.max(0, ...operations.map((op) => op.chat.split(' ').length)),
    };
    tables.set(operations, table);
  }
  return table;
}

export function nounOf(op: Operation): string {
  return op.chat.split(' ')[0];
}

/** The operation named by the most leading words ("commit comment list" before "commit list"), and how many it took. */
export function matchCommand(
  words: readonly string[],
  table: CommandTable,
): { op: Operation; length: number } | undefined {
  for (let n = Math.min(words.length, table.maxWords); n > 0; n--) {
    const op = table.byWords.get(words.slice(0, n).join(' ').toLowerCase());
    if (op) return { op, length: n };
  }
  return undefined;
}

/** The noun a word names, also in the plural ("pipelines"). */
export function nounNamed(word: string, table: CommandTable): string | undefined {
  const lower = word.toLowerCase();
  return table.nouns.find((noun) => noun === lower || `${noun}s` === lower);
}

/** The noun a word names or most likely meant ("pipline"). */
function nounFor(word: string, table: CommandTable): string | undefined {
  return nounNamed(word, table) ?? closest(word.toLowerCase(), table.nouns, 1)[0];
}

/**
 * The commands a mistyped one most likely meant: the closest by edit distance over the words (also with the words
 * swapped, "retry pipeline"); failing that, every command of the noun it starts with ("pipeline" alone).
 */
export function suggestCommands(words: readonly string[], table: CommandTable, limit = 5): string[] {
  const typed = words.map((w) => w.toLowerCase());
  if (typed.length === 0) return [];
  const scored = table.operations.map((op) => {
    const mine = typed.slice(0, op.chat.split(' ').length);
    const distance = Math.min(
      editDistance(mine.join(' '), op.chat),
      editDistance([...mine].reverse().join(' '), op.chat),
    );
    return { chat: op.chat, distance };
  });
  const near = scored.filter(({ chat, distance }) => distance <= Math.min(3, Math.max(1, Math.floor(chat.length / 4))));
  if (near.length > 0) {
    const best = Math.min(...near.map((s) => s.distance));
    return near
      .filter((s) => s.distance === best)
      .slice(0, limit)
      .map((s) => s.chat);
  }
  const noun = nounFor(typed[0], table);
  return noun ? table.operations.filter((op) => nounOf(op) === noun).map((op) => op.chat) : [];
}
