// Job logs crafted against a log parser, each about `bytes` long: runner section markers in the shapes that make a
// naive parser quadratic, very long lines and carriage-return storms. Used by job-log.mjs and the parser's tests.

/** A runner section marker as the runner writes it (the erase-line escape after a carriage return). */
const start = (name, options = '') => `section_start:1700000000:${name}${options}\r\x1b[0K`;
const end = (name) => `section_end:1700000001:${name}\r\x1b[0K`;

/** Repeats `unit(i)` until the text is `bytes` long (cut there). */
function fill(bytes, unit) {
  const parts = [];
  let length = 0;
  for (let i = 0; length < bytes; i++) {
    const part = unit(i);
    parts.push(part);
    length += part.length;
  }
  return parts.join('').slice(0, bytes);
}

/** An ordinary job log of that size: commands, output lines, a few sections, a failure at the end. The baseline. */
export function ordinaryLog(bytes) {
  const section = (i) =>
    i % 400 === 0 ? `${end(`step_${i - 400}`)}\n${start(`step_${i}`, '[collapsed=true]')}$ npm run step ${i}\n` : '';
  const lines = fill(bytes, (i) => `${section(i)}  \x1b[32m✓\x1b[0m test ${i} passes (${i % 97} ms)\n`);
  return `${lines}\nFAIL test/checkout.test.ts\nERROR: Job failed: exit code 1\n`;
}

/** The shortest markers the runner's format allows, so that 2 MiB holds a hundred thousand of them. */
const bareStart = (name, options = '') => `section_start:1:${name}${options}`;
const bareEnd = (name) => `section_end:2:${name}`;

/** Each hostile shape by name: what it does to a parser. */
export const HOSTILE_LOGS = {
  /** One line: distinct sections opened, then as many ends of names never opened, each searching the open ones. */
  'markers on one line': (bytes) =>
    fill(bytes / 2, (i) => bareStart(`o${i}`)) + fill(bytes / 2, (i) => bareEnd(`x${i}`)),
  /** A hundred thousand collapsed starts that never end, one a line: every line of the view inside many of them. */
  'unclosed starts': (bytes) => fill(bytes, (i) => `${bareStart(`s${i}`, '[collapsed=true]')}h\n`),
  /** Ends of sections that never started. */
  'ends without starts': (bytes) => fill(bytes, (i) => `${bareEnd(`e${i}`)}\n`),
  /** Half the log opens sections, the other half ends names that are not open, one a line. */
  'unclosed starts, then stray ends': (bytes) =>
    fill(bytes / 2, (i) => `${bareStart(`o${i}`)}\n`) + fill(bytes / 2, (i) => `${bareEnd(`x${i}`)}\n`),
  /** The same section opened and closed again and again, collapsed, each with one line: many folded sections. */
  'alternating start and end': (bytes) =>
    fill(bytes, (i) => `${bareStart('a', '[collapsed=true]')}l${i % 10}\n${bareEnd('a')}\n`),
  /** A few lines of hundreds of kilobytes, each with markers whose option bracket never closes. */
  'very long lines': (bytes) =>
    fill(bytes, (i) => (i % 200_000 === 0 ? '\n' : i % 1000 === 0 ? bareStart(`l${i}`, '[collapsed=') : 'x')),
  /** Carriage returns without end: a progress bar redrawn a hundred thousand times on one line. */
  'carriage returns': (bytes) => fill(bytes, (i) => `\rprogress ${i % 100}%`),
};
