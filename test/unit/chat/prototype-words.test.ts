// Names every JavaScript object inherits (constructor, toString, hasOwnProperty, __proto__) typed in chat as a command
// word, a key, a --flag or a key inside a JSON value: each gets the message any unknown word gets, never a crash.
import { describe, expect, it } from 'vitest';
import { complete } from '../../../src/chat/complete.js';
import { errorText, parse } from '../../../src/chat/grammar.js';
import type { ParsedCommand } from '../../../src/chat/grammar.js';

const NAMES = ['constructor', 'toString', 'hasOwnProperty', '__proto__'] as const;

function error(line: string): string {
  const parsed: ParsedCommand = parse(line);
  expect(parsed.kind, line).toBe('error');
  return errorText(parsed as Extract<ParsedCommand, { kind: 'error' }>);
}

describe.each(NAMES)('%s in chat', (name) => {
  it('as a command word is an unknown command (or not a command word at all)', () => {
    expect(error(name)).toMatch(/^(Unknown command "|Start with a command)/);
    expect(error(`${name} list`)).toMatch(/^(Unknown command "|Start with a command)/);
    expect(error(`pipeline ${name}`)).toMatch(/^(Unknown command "pipeline |"pipeline" needs one more word)/);
    expect(error(`help ${name}`)).toMatch(new RegExp(`^No help on "${name}"`));
  });

  it('as a key or a flag is a parameter the command does not have', () => {
    for (const line of [
      `pipeline list acme/web ${name}=1`,
      `pipeline list acme/web --${name} 1`,
      `pipeline list acme/web --${name}`,
      `pipeline retry acme/web 1 ${name}=x`,
    ]) {
      expect(error(line)).toContain(`has no parameter "${name}"`);
    }
    expect(() => complete(`pipeline list acme/web ${name}`)).not.toThrow();
  });

  it('as a key inside a JSON value is an unknown parameter of that item', () => {
    const action = JSON.stringify({ action: 'create', file_path: 'a', content: 'x', [name]: 1 });
    expect(error(`commit create acme/web branch=main commit_message=x actions='[${action}]'`)).toContain(
      `actions.0: unknown parameter ${name}`,
    );
  });
});
