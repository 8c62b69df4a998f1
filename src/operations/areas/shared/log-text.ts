// A log's text as a terminal would show it, made safe to read: escape sequences gone, controls, format characters and
// lone surrogates removed, carriage-return overwrites resolved to what was shown last.

// CSI (colours, erase line) in its 7-bit and 8-bit forms, the string sequences (OSC titles and links, DCS, APC, PM,
// SOS) up to their terminator, and two-character escapes. A string sequence stops at the next sequence's start and at
// the end of its line, so an unterminated one costs one pass over its text, not one per start.
const ESCAPE =
  /\x1b\[[0-?]*[ -/]*[@-~]|\x9b[0-?]*[ -/]*[@-~]|(?:\x1b[\]PX^_]|[\x90\x98\x9d-\x9f])[^\x07\x1b\n\x90\x98\x9b-\x9f]*(?:\x07|\x1b\\|\x9c)|\x1b[ -/]*[0-~]/g;
/**
 * What must not reach a reader raw: C0 and C1 controls but tab, line feed and carriage return (a terminal acts on
 * them; the last two are read as lines and overwrites), format characters (zero-width, direction overrides, tag
 * characters: invisible, or reordering what is shown) and lone surrogates. Line and paragraph separators read as a
 * space.
 */
const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\p{Cf}\p{Cs}\u2028\u2029]/gu;

/** Text without escape sequences and controls (carriage returns kept: they are resolved per line, after markers). */
export function stripEscapesAndControls(text: string): string {
  return text
    .replace(ESCAPE, '')
    .replace(CONTROL, (c) => (c === '\u2028' || c === '\u2029' ? ' ' : /\p{Cs}/u.test(c) ? '\ufffd' : ''));
}

/** A line's carriage-return overwrites resolved as a terminal shows them: the last one that wrote something. */
export function lastOverwrite(line: string): string {
  if (!line.includes('\r')) return line;
  const parts = line.split('\r');
  let last = parts.length - 1;
  while (last > 0 && parts[last] === '') last--;
  return parts[last];
}

/** Text cleaned as a log's lines are (escapes, controls, overwrites): for text that reaches a reader by another way. */
export function cleanLogText(text: string): string {
  return stripEscapesAndControls(text).split('\n').map(lastOverwrite).join('\n');
}
