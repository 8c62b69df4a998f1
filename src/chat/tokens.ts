// The chat tokenizer: words, key=value and --key forms, "…" and '…' quotes, and ``` fenced blocks, across lines.
import { ChatError } from './errors.js';

export interface Token {
  /** The value as meant: quotes and fences removed, escapes applied. */
  text: string;
  /** The key of key=value, --key=value or --key, as typed. */
  key?: string;
  /** Written as --key with no '=': its value, if any, is the next token. */
  flag?: boolean;
  /** Some of the value was quoted or fenced, so it is taken as text as it stands (never split or read as a key). */
  quoted: boolean;
  /** Where the token starts and ends in the line (for completion). */
  start: number;
  end: number;
}

// Phones and Slack turn "--" into an em dash (\u2014, so written to keep the built code ASCII) and straight quotes
// into curly ones: both are read as typed.
const KEY_VALUE = /(?:--|\u2014)?([A-Za-z_][\w-]*)=/y;
const FLAG = /(?:--|\u2014)([A-Za-z_][\w-]*)(?=\s|$)/y;
const FENCE = '```';
const CLOSERS: Record<string, string[]> = { '"': ['"', '”'], '“': ['”', '"'], "'": ["'", '’'], '‘': ['’', "'"] };
const ESCAPES: Record<string, string> = { n: '\n', t: '\t', '"': '"', '”': '”', '\\': '\\' };
// A fence's first line that is one short word ("```ts", "```json") names a language, as in Markdown: not content.
const LANGUAGE_TAG = /^[A-Za-z][\w+#.-]{0,19}\n/;

function isSpace(ch: string): boolean {
  return /\s/.test(ch);
}

/** Reads a quoted part starting at `at` (the opening quote); returns its text and the index after the closing quote. */
function readQuoted(line: string, at: number): [string, number] {
  const open = line[at];
  const closers = CLOSERS[open];
  const escapes = open === '"' || open === '“';
  let text = '';
  for (let i = at + 1; i < line.length; i++) {
    const ch = line[i];
    if (escapes && ch === '\\' && i + 1 < line.length) {
      // An unknown escape keeps its backslash, so a Windows path or a regex survives.
      text += ESCAPES[line[i + 1]] ?? ch + line[i + 1];
      i++;
    } else if (closers.includes(ch)) {
      return [text, i + 1];
    } else {
      text += ch;
    }
  }
  throw new ChatError(`Unclosed ${open} quote: close it with ${closers[0]}.`);
}

/**
 * Reads a ``` fenced block starting at `at`; returns its content (without the fences) and the index after it. The
 * content is exactly what lies between the line of the opening fence and the closing fence: the newline before a
 * closing fence on a line of its own is the content's last newline (a file's), as in Markdown; content closed on
 * its own last line ("…end```") has none.
 */
function readFenced(line: string, at: number): [string, number] {
  const close = line.indexOf(FENCE, at + FENCE.length);
  if (close < 0) throw new ChatError('Unclosed ``` block: end it with ```.');
  const text = line
    .slice(at + FENCE.length, close)
    .replace(LANGUAGE_TAG, '')
    .replace(/^\r?\n/, '');
  return [text, close + FENCE.length];
}

/** Splits a chat line into tokens. Throws ChatError on an unclosed quote or fence. */
export function tokenize(line: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < line.length) {
    if (isSpace(line[i])) {
      i++;
      continue;
    }
    const start = i;
    const token: Token = { text: '', quoted: false, start, end: start };
    FLAG.lastIndex = i;
    KEY_VALUE.lastIndex = i;
    const flag = FLAG.exec(line);
    const keyValue = flag ? null : KEY_VALUE.exec(line);
    if (flag) {
      token.key = flag[1];
      token.flag = true;
      i = FLAG.lastIndex;
    } else if (keyValue) {
      token.key = keyValue[1];
      i = KEY_VALUE.lastIndex;
    }
    // Quotes and fences open only where a value starts, so an apostrophe inside a word ("don't") stays a letter.
    const valueStart = i;
    while (i < line.length && !isSpace(line[i])) {
      let part: string;
      if (i === valueStart && line.startsWith(FENCE, i)) {
        [part, i] = readFenced(line, i);
        token.quoted = true;
      } else if (i === valueStart && line[i] in CLOSERS) {
        [part, i] = readQuoted(line, i);
        token.quoted = true;
      } else {
        part = line[i++];
      }
      token.text += part;
    }
    token.end = i;
    tokens.push(token);
  }
  return tokens;
}
