// The chat's command words read off the registry (src/operations/index.ts), so that completion and help tests need no
// edit when an operation is added: each test compares the chat's answer with these lists, and checks that the lists
// still hold the commands it names, so neither side can go empty unnoticed.
import { operations } from '../../../src/operations/index.js';

const unique = <T>(items: readonly T[]): T[] => [...new Set(items)];

/** The first words of every chat command ("pipeline", "release", …), in registry order. */
export const NOUNS: readonly string[] = unique(operations.map((op) => op.chat.split(' ')[0]));

/** The areas of the registry ("pipelines", "repository_files", …), in registry order. */
export const AREAS: readonly string[] = unique(operations.map((op) => op.area as string));

/** The words that may follow `prefix` (whole command words, "" for none) in some command, in registry order. */
export function wordsAfter(prefix: string): string[] {
  const typed = prefix === '' ? [] : prefix.split(' ');
  return unique(
    operations
      .map((op) => op.chat.split(' '))
      .filter((words) => words.length > typed.length && words.slice(0, typed.length).join(' ') === typed.join(' '))
      .map((words) => words[typed.length]),
  );
}

/** Every command of a noun ("release list", "release get", …), in registry order. */
export function commandsOf(noun: string): string[] {
  return operations.filter((op) => op.chat.split(' ')[0] === noun).map((op) => op.chat);
}

/** The operations of an area, in registry order. */
export function operationsIn(area: string) {
  return operations.filter((op) => op.area === area);
}

/** The items that start with `typed`, case-insensitively. */
export function startingWith(items: readonly string[], typed: string): string[] {
  return items.filter((item) => item.toLowerCase().startsWith(typed.toLowerCase()));
}
