// The chat tokenizer: words, keys, quotes with escapes, values across lines, ``` fences, and what it refuses.
import { describe, expect, it } from 'vitest';
import { tokenize } from '../../../src/chat/tokens.js';

/** Tokens as [key, text, quoted] for compact assertions. */
function read(line: string): Array<[string | undefined, string, boolean]> {
  return tokenize(line).map((t) => [t.flag ? `--${t.key}` : t.key, t.text, t.quoted]);
}

describe('tokenize', () => {
  it('splits words, positional values and key=value on any whitespace', () => {
    expect(read('pipeline  retry\tacme/web 42 ref=main')).toEqual([
      [undefined, 'pipeline', false],
      [undefined, 'retry', false],
      [undefined, 'acme/web', false],
      [undefined, '42', false],
      ['ref', 'main', false],
    ]);
  });

  it('reads --key=value, --key and the em dash phones type for --', () => {
    expect(read('--tag-name=v1 --recursive —ref=main --notes x')).toEqual([
      ['tag-name', 'v1', false],
      ['--recursive', '', false],
      ['ref', 'main', false],
      ['--notes', '', false],
      [undefined, 'x', false],
    ]);
  });

  it('removes double quotes and applies their escapes; single quotes keep everything', () => {
    expect(read('note="say \\"hi\\"\\n\\tnow" path=\'C:\\new "x"\' raw="a\\qb"')).toEqual([
      ['note', 'say "hi"\n\tnow', true],
      ['path', 'C:\\new "x"', true],
      ['raw', 'a\\qb', true],
    ]);
  });

  it('reads curly quotes as Slack and phones send them', () => {
    expect(read('title=“Fix login” name=‘v1 final’')).toEqual([
      ['title', 'Fix login', true],
      ['name', 'v1 final', true],
    ]);
  });

  it('lets a quoted value span lines, keeping its newlines', () => {
    expect(read('description="Line one\nline two\n"  next=1')).toEqual([
      ['description', 'Line one\nline two\n', true],
      ['next', '1', false],
    ]);
  });

  it('opens quotes only where a value starts, so an apostrophe is a letter', () => {
    expect(read("commit_message=don't stop")).toEqual([
      ['commit_message', "don't", false],
      [undefined, 'stop', false],
    ]);
  });

  it('a quoted positional is never a key', () => {
    expect(read('"a=b" \'c d\'')).toEqual([
      [undefined, 'a=b', true],
      [undefined, 'c d', true],
    ]);
  });

  it("unfences a ``` block: the newline after the opening fence and a language tag go, the content's own last newline stays", () => {
    expect(read('content=```\nline 1\n  "line 2"\n``` branch=main')).toEqual([
      ['content', 'line 1\n  "line 2"\n', true],
      ['branch', 'main', false],
    ]);
    expect(read('content=```ts\nconst a = 1;\n```')).toEqual([['content', 'const a = 1;\n', true]]);
    // Exactly as written: blank last lines, Windows line ends, and no final newline when the fence closes the last line.
    expect(read('content=```\nend\n\n```')).toEqual([['content', 'end\n\n', true]]);
    expect(read('content=```\r\nend\r\n```')).toEqual([['content', 'end\r\n', true]]);
    expect(read('content=```\nno final newline```')).toEqual([['content', 'no final newline', true]]);
    expect(read('note=```one line, inline```')).toEqual([['note', 'one line, inline', true]]);
    // A first line of several words is content, not a language tag.
    expect(read('note=```Fixes the bug\nand more```')).toEqual([['note', 'Fixes the bug\nand more', true]]);
  });

  it('records where each token is in the line', () => {
    expect(tokenize('ab  c="d e"').map((t) => [t.start, t.end])).toEqual([
      [0, 2],
      [4, 11],
    ]);
  });

  it('refuses an unclosed quote or fence, naming the closer', () => {
    expect(() => tokenize('note="open')).toThrow('Unclosed " quote: close it with ".');
    expect(() => tokenize("note='open")).toThrow("Unclosed ' quote: close it with '.");
    expect(() => tokenize('content=```\nabc')).toThrow('Unclosed ``` block: end it with ```.');
  });

  it('reads an empty line as no tokens', () => {
    expect(tokenize('  \n ')).toEqual([]);
  });
});
