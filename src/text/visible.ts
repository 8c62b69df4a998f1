// One rule for what a human reads before approving a call: every character that could hide, reorder or fake text is
// spelled out as \u{…}, whichever front end (MCP question, approval page, Slack, terminal) shows it. ShownText is
// text that went through this rule; only this file makes it, and every approval request is built of it alone.

declare const SHOWN: unique symbol;

/**
 * Text fit to show inside an approval request: every piece of data in it went through this file's escapers (quoteExactly,
 * showKey, spellOutHidden), so it holds no newline, direction override or control character it did not put there
 * itself. A plain string is not one: `shown` and `joinShown` put ShownText together, and take nothing else but numbers.
 */
export type ShownText = string & { readonly [SHOWN]: true };

const brand = (text: string) => text as ShownText;

/**
 * Characters a reader cannot see for what they are, by Unicode property rather than by a list of code points:
 * controls (Cc: newline, carriage return, escape), format characters (Cf: bidi overrides, zero-width joiners, tag
 * characters), line and paragraph separators (Zl, Zp), private use (Co), unassigned (Cn), lone surrogates (Cs),
 * every default-ignorable code point (Hangul fillers, variation selectors, soft hyphen, the combining grapheme
 * joiner: drawn as nothing), variation selectors by name too, and every space other than the ASCII one (a
 * no-break or ideographic space makes "recipients " look like "recipients").
 */
const HIDDEN =
  /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Cs}\p{Default_Ignorable_Code_Point}\p{Variation_Selector}]|(?! )\p{Zs}/gu;

/** One code point spelled out: \u2028 in the Basic Multilingual Plane, \u{e0041} beyond it. */
function spell(character: string): string {
  const code = character.codePointAt(0) as number;
  return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * The text with every hidden character spelled out; everything else (letters of any script, emoji) as it is: how
 * prose that may carry data (an approval's reason, a lookup's error) is shown. `keep` names characters left as
 * they are where they lay text out (newline and tab in a terminal's output); such text is no ShownText.
 */
export function spellOutHidden(text: string): ShownText;
export function spellOutHidden(text: string, keep: string): string;
export function spellOutHidden(text: string, keep = ''): string {
  return text.replace(HIDDEN, (c) => (keep.includes(c) ? c : spell(c)));
}

/** A string exactly as it will be sent, in double quotes, backslashes and quotes escaped, hidden characters spelled out. */
export function quoteExactly(text: string): ShownText {
  return brand(`"${spellOutHidden(text.replace(/\\/g, '\\\\').replace(/"/g, '\\"'))}"`);
}

/** A parameter name as plain ASCII words show it (signup_enabled, custom_attributes[team]); any other name quoted. */
const PLAIN_KEY = /^[A-Za-z0-9_.\-[\]]+$/;

/**
 * An object key (or a username) as the human reads it. Setting names are ASCII; a key with anything else (a
 * newline, a look-alike Cyrillic letter, an invisible character) is quoted and every non-ASCII character spelled out,
 * so it cannot pass for another key or start a line of its own.
 */
export function showKey(key: string): ShownText {
  if (PLAIN_KEY.test(key)) return brand(key);
  const escaped = key.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
  return brand(`"${[...escaped].map((c) => (/^[\x20-\x7e]$/.test(c) ? c : spell(c))).join('')}"`);
}

/** What a ShownText may hold besides ShownText: values whose every spelling is digits, signs and ASCII words. */
type Plain = number | boolean | null;

/** A number, a boolean or null as shown: a value of any other type that got here untyped is quoted instead. */
function plain(value: ShownText | Plain): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  return quoteExactly(String(value));
}

/**
 * A piece of an approval request: the template's own words (our source code) with ShownText and numbers in it, e.g.
 * shown`${quoteExactly(name)} (id ${id})`. A raw string in a `${}` is a type error, so data cannot get in unescaped.
 */
export function shown(words: TemplateStringsArray, ...values: Array<ShownText | Plain>): ShownText {
  return brand(words.reduce((text, word, i) => text + (i === 0 ? '' : plain(values[i - 1])) + word, ''));
}

/** ShownText pieces joined: the separators are ours, so the result is ShownText too (lines joined by '\n' included). */
export function joinShown(parts: readonly ShownText[], separator: ', ' | '; ' | ' ' | ' · ' | '\n'): ShownText {
  return brand(parts.join(separator));
}
