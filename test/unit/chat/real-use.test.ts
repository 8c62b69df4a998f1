// Chat that fits real use: multi-line blocks, examples valid for what they name, lists and files read truthfully,
// and find_operations summaries that keep their abbreviations and say which writes always ask.
import { describe, expect, it } from 'vitest';
import { examples } from '../../../src/chat/help.js';
import { parse } from '../../../src/chat/grammar.js';
import { presentOutcome } from '../../../src/chat/present.js';
import { effectNote, firstSentence } from '../../../src/mcp/meta.js';
import { findOperation, operations } from '../../../src/operations/index.js';
import { opensBlock } from '../../../src/terminal/chat.js';

const op = (name: string) => findOperation(name)!;

describe('chat input and output that fit real use', () => {
  it('knows when a line opens a ``` block it has not closed', () => {
    expect(opensBlock('file create acme/web a.txt content=```')).toBe(true);
    expect(opensBlock('file create acme/web a.txt content=```\nhello')).toBe(true);
    expect(opensBlock('file create acme/web a.txt content=```\nhello```')).toBe(false);
    expect(opensBlock('pipeline list acme/web')).toBe(false);
    expect(opensBlock('say "unclosed')).toBe(false);
  });

  it('gives group commands a group and person fields a username in examples, and every example parses', () => {
    expect(examples(op('list_group_members'))[0]).toBe('group member list acme');
    expect(examples(op('remove_project_member'))[0]).toBe('project member remove acme/web @erin');
    for (const each of operations) {
      for (const line of examples(each)) expect(parse(line).kind, line).toBe('call');
    }
  });

  it('counts a tree by kind, not every entry as a tree', () => {
    const items = [
      ...['src', 'docs', 'test'].map((path) => ({ id: 'a', name: path, type: 'tree', path, mode: '040000' })),
      ...['a', 'b', 'c', 'd', 'e'].map((path) => ({ id: 'b', name: path, type: 'blob', path, mode: '100644' })),
    ];
    const message = presentOutcome(op('list_repository_tree'), { id: 'acme/web' }, { data: items, status: 200 });
    expect(message.title).toBe('8 entries: 3 folders, 5 files');
  });

  it('shows a decoded file without its transfer encoding', () => {
    const data = {
      file_name: 'a.txt',
      file_path: 'a.txt',
      encoding: 'base64',
      content: Buffer.from('hello\n').toString('base64'),
      size: 6,
      ref: 'main',
    };
    const message = presentOutcome(
      op('get_file'),
      { id: 'acme/web', file_path: 'a.txt', ref: 'main' },
      { data, status: 200 },
    );
    expect(message.sections[0].text).toBe('hello\n');
    expect(message.fields.map(([k]) => k)).not.toContain('encoding');
  });

  it('keeps "e.g." inside a summary and says cancel_pipeline always asks', () => {
    expect(firstSentence('Search things (e.g. "a b"). Then more.')).toBe('Search things (e.g. "a b").');
    expect(effectNote(op('cancel_pipeline'))).toBe('write: a human always approves the exact call');
    expect(effectNote(op('create_commit'))).toBe('write: some inputs need a human to approve');
  });
});
