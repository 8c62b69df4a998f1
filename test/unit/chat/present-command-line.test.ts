// commandLine: a call (a follow-up such as Retry) written as the chat line that makes exactly that call again.
import { describe, expect, it } from 'vitest';
import { commandLine } from '../../../src/chat/command-line.js';
import { parse } from '../../../src/chat/grammar.js';
import { findOperation } from '../../../src/operations/index.js';

const cases: Array<[string, Record<string, unknown>, string]> = [
  ['retry_pipeline', { id: 'acme/web', pipeline_id: 42 }, 'pipeline retry acme/web 42'],
  ['list_pipelines', { id: 'acme/web', per_page: 2, page: 3 }, 'pipeline list acme/web per_page=2 page=3'],
  ['get_file', { id: 'acme/web', file_path: 'docs/a b.md', ref: 'main' }, 'file get acme/web "docs/a b.md" ref=main'],
  [
    'create_release',
    { id: 7, tag_name: 'v2', milestones: ['m 1', 'm2'], description: 'line one\nline two' },
    'release create 7 tag_name=v2 milestones=\'["m 1","m2"]\' description="line one\\nline two"',
  ],
];

describe('commandLine', () => {
  it.each(cases)('writes %s as a line that parses back to the same call', (name, input, line) => {
    const op = findOperation(name)!;
    expect(commandLine(op, input)).toBe(line);
    expect(parse(line)).toEqual({ kind: 'call', operation: op, input });
  });

  it('puts the prefix in front', () => {
    expect(commandLine(findOperation('get_current_user')!, {}, '/forge ')).toBe('/forge user me');
  });
});
