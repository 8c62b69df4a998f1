// A CI job's log as a person or a model can use it: colour codes, carriage-return progress and control characters
// gone, the runner's sections named (collapsed ones folded), the failing part found, anything that looks like a
// credential redacted, and, for a model, fenced as untrusted text (a log is whatever the job's commands printed).
// Reading is linear in the log's size and bounded (LOG_BUDGET): a log crafted against the parser costs what any
// log of its size costs, and what the budget leaves out is said. Its parts: ./log-text.ts (escapes, controls,
// overwrites), ./log-redaction.ts (credentials), ./untrusted-fence.ts (the fence a model reads it in).
import { lastOverwrite, stripEscapesAndControls } from './log-text.js';
import { redactLines } from './log-redaction.js';

/** Lines of the tail shown by default. */
export const DEFAULT_LOG_LINES = 200;
/** Lines shown before the first error of the failing part, and after it (where the assertion and the values are). */
const EXCERPT_BEFORE = 1;
const EXCERPT_AFTER = 12;
/** Characters of a section's header kept: it names the section, it is not a second copy of the line. */
const HEADER_CHARS = 200;
/** Lines cleaned between two looks at the clock. */
const LINES_PER_CLOCK_CHECK = 256;

/** What reading one log may cost at most. Beyond each bound the oldest part is left out, and `skipped` says so. */
interface LogBudget {
  /** Characters of the log read (its end). */
  chars: number;
  /** Lines read (the last ones). */
  lines: number;
  /** Sections named; later section markers are still removed from the text. */
  sections: number;
  /** Characters of one line kept; the rest of a longer line is counted, not shown. */
  lineChars: number;
  /** Milliseconds spent taking lines apart (markers, overwrites), newest first; older lines are left unread after it. */
  ms: number;
}

export const LOG_BUDGET: Readonly<LogBudget> = {
  chars: 4 * 1024 * 1024,
  lines: 100_000,
  sections: 500,
  lineChars: 10_000,
  ms: 1_000,
};

interface ReadLogOptions {
  budget?: Partial<LogBudget>;
  /** Milliseconds, for the time budget (performance.now by default). */
  clock?: () => number;
}

/** A runner section: `section_start:<epoch>:<name>[collapsed=true]` … `section_end:<epoch>:<name>`. */
interface LogSection {
  name: string;
  /** The text printed on the start marker's line (the section's header), if any. */
  header: string;
  collapsed: boolean;
  /** Line numbers (from 1, in the cleaned log) of the section's first and last line. */
  from: number;
  to: number;
  /** Seconds between its markers; undefined for a section still open when the log ends (where a job died). */
  seconds?: number;
}

interface ReadableLog {
  /** Every line, cleaned (no escape sequences, controls or markers, credentials redacted). */
  lines: string[];
  sections: LogSection[];
  /** The first line that reads as an error (1-based), not counting the runner's closing "Job failed". */
  firstError?: number;
  /** The section holding that line, by name. */
  failingSection?: string;
  /** What the budget left out, in words (empty when the whole log was read). */
  skipped: string[];
}

// The options bracket is bounded, so a start whose bracket never closes costs a few characters, not the whole line.
const SECTION = /section_(start|end):(\d{1,20}):([A-Za-z0-9_.-]{1,200})(\[[^\]\n]{0,200}\])?/g;
const ERROR_LINE =
  /\b(?:error|errors|fail|failed|failure|fatal|exception|panic|traceback|segmentation fault|cannot|could not|not found)\b|\u2717|\u2716|\bE\d{3,}\b|exit (?:code|status) [1-9]/i;
const RUNNER_VERDICT = /^ERROR: Job failed\b|^Cleaning up project directory/;

interface Marker {
  start: boolean;
  epoch: number;
  name: string;
  collapsed: boolean;
}

/** One raw line: its cleaned text around its markers (texts[i] comes before markers[i]). */
interface RawLineParts {
  texts: string[];
  markers: Marker[];
  /** Nothing at all after the last marker (or an empty line): it still counts as a line. */
  bareEnd: boolean;
}

/**
 * A raw line taken apart. Most lines carry no marker: they are kept as their text alone (or null when they leave no
 * line, a progress bar erased by its last carriage return), which spares an object per line.
 */
function splitMarkers(raw: string): RawLineParts | string | null {
  if (!raw.includes('section_')) {
    const text = lastOverwrite(raw);
    return text !== '' || raw === '' ? text : null;
  }
  const texts: string[] = [];
  const markers: Marker[] = [];
  let last = 0;
  SECTION.lastIndex = 0;
  for (let match = SECTION.exec(raw); match; match = SECTION.exec(raw)) {
    texts.push(lastOverwrite(raw.slice(last, match.index)));
    markers.push({
      start: match[1] === 'start',
      epoch: Number(match[2]),
      name: match[3],
      collapsed: /collapsed=true/.test(match[4] ?? ''),
    });
    last = match.index + match[0].length;
  }
  texts.push(lastOverwrite(raw.slice(last)));
  return { texts, markers, bareEnd: last === raw.length };
}

interface OpenSection {
  name: string;
  collapsed: boolean;
  from: number;
  started: number;
  hasHeader: boolean;
  closed: boolean;
}

/**
 * The innermost open section, if it starts at line `next` and has no header yet: the next line's text is its header.
 * Sections ended out of order are dropped from the top of the stack here, each once.
 */
function openHeaderless(stack: OpenSection[], next: number): OpenSection | undefined {
  while (stack.length > 0 && stack[stack.length - 1].closed) stack.pop();
  const current = stack.at(-1);
  return current && !current.hasHeader && current.from === next ? current : undefined;
}

/** Where the last `count` lines of `text` begin (0 when it has no more lines than that), found from the end. */
function lastLinesStart(text: string, count: number): number {
  let at = text.length;
  for (let seen = 0; seen < count; seen++) {
    if (at === 0) return 0;
    const newline = text.lastIndexOf('\n', at - 1);
    if (newline < 0) return 0;
    at = newline;
  }
  return at + 1;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * A line cut to `max` characters, at a space or punctuation near the end where there is one (a credential cut in
 * two would show its first half unrecognised), with the count of what was left out.
 */
function cutLine(line: string, max: number): string {
  if (line.length <= max) return line;
  const room = line.slice(0, max);
  const boundary = Math.max(
    room.lastIndexOf(' '),
    room.lastIndexOf(','),
    room.lastIndexOf(';'),
    room.lastIndexOf('&'),
    room.lastIndexOf('"'),
  );
  const kept = boundary > max - 512 ? room.slice(0, boundary) : room;
  return `${kept} …[${line.length - kept.length} more characters of this line]`;
}

/** Reads a raw job log (or its tail) into cleaned, redacted lines and the runner's sections, within the budget. */
export function readJobLog(raw: string, options: ReadLogOptions = {}): ReadableLog {
  const budget = { ...LOG_BUDGET, ...options.budget };
  const skipped: string[] = [];
  const rawLines = logTail(raw, budget, skipped);
  const { parts, firstRead } = splitNewestFirst(rawLines, budget, options.clock ?? (() => performance.now()), skipped);
  const { lines, ended, opened } = foldSections(parts, firstRead, budget, skipped);
  // Long lines are cut before redaction, so that redaction works on bounded lines (and nothing cut is shown anyway).
  const redacted = redactLines(lines.map((line) => cutLine(line, budget.lineChars)));
  const shownLines = redacted.lines;
  // Line numbers after each key became one line; a section starting after the last line keeps its distance to it.
  const renumber = (n: number) =>
    !redacted.lineOf ? n : n <= lines.length ? redacted.lineOf[n] : shownLines.length + n - lines.length;
  const sectionOf = (section: OpenSection, to: number, seconds?: number): LogSection => {
    const from = renumber(section.from);
    const header = section.hasHeader ? (shownLines[from - 1] ?? '').trim() : '';
    return {
      name: section.name,
      header: header.length > HEADER_CHARS ? `${header.slice(0, HEADER_CHARS)}…` : header,
      collapsed: section.collapsed,
      from,
      to: Math.max(from, renumber(Math.min(to, lines.length))),
      ...(seconds !== undefined ? { seconds } : {}),
    };
  };
  const sections = [
    ...ended.map(({ section, to, seconds }) => sectionOf(section, to, seconds)),
    ...opened.filter((section) => !section.closed).map((section) => sectionOf(section, lines.length)),
  ].sort((a, b) => a.from - b.from);
  const index = shownLines.findIndex((line) => ERROR_LINE.test(line) && !RUNNER_VERDICT.test(line.trim()));
  const firstError = index >= 0 ? index + 1 : undefined;
  const failing =
    firstError === undefined
      ? undefined
      : sections.findLast((section) => section.from <= firstError && firstError <= section.to);
  return { lines: shownLines, sections, firstError, failingSection: failing?.name, skipped };
}

/** The part of the log that is read: its last `chars` characters and `lines` lines, escapes and controls taken out. */
function logTail(raw: string, budget: LogBudget, skipped: string[]): string[] {
  let text = raw;
  if (text.length > budget.chars) {
    const newline = text.indexOf('\n', text.length - budget.chars);
    const from = newline < 0 ? text.length - budget.chars : newline + 1;
    skipped.push(`the first ${from} characters (a log is read up to its last ${budget.chars} characters)`);
    text = text.slice(from);
  }
  const start = lastLinesStart(text, budget.lines);
  if (start > 0)
    skipped.push(`the lines before the last ${budget.lines} (a log is read up to its last ${budget.lines} lines)`);
  return stripEscapesAndControls(text.slice(start)).split('\n');
}

/** Lines are taken apart newest first: when time runs out, the oldest lines are the ones left unread. */
function splitNewestFirst(rawLines: string[], budget: LogBudget, clock: () => number, skipped: string[]) {
  const parts: Array<RawLineParts | string | null> = new Array(rawLines.length);
  const deadline = clock() + budget.ms;
  let firstRead = 0;
  for (let i = rawLines.length - 1; i >= 0; i--) {
    if ((rawLines.length - 1 - i) % LINES_PER_CLOCK_CHECK === 0 && i < rawLines.length - 1 && clock() > deadline) {
      firstRead = i + 1;
      skipped.push(
        `the first ${plural(firstRead, 'line')} (reading a log stops after ${budget.ms} ms; its newest lines are read first)`,
      );
      break;
    }
    parts[i] = splitMarkers(rawLines[i]);
  }
  return { parts, firstRead };
}

/** The lines without the runner's section markers, and the sections they opened and ended (the first few named). */
function foldSections(
  parts: Array<RawLineParts | string | null>,
  firstRead: number,
  budget: LogBudget,
  skipped: string[],
) {
  const lines: string[] = [];
  const ended: Array<{ section: OpenSection; to: number; seconds: number }> = [];
  const stack: OpenSection[] = [];
  const opened: OpenSection[] = [];
  const openByName = new Map<string, OpenSection[]>();
  let named = 0;
  let unnamed = 0;
  for (let i = firstRead; i < parts.length; i++) {
    const line = parts[i];
    if (line === null) continue;
    if (typeof line === 'string') {
      const current = openHeaderless(stack, lines.length + 1);
      if (current && line.trim() !== '') current.hasHeader = true;
      lines.push(line);
      continue;
    }
    const { texts, markers, bareEnd } = line;
    // A line may carry a marker and then text (the section's header), or text and then an end marker.
    for (let m = 0; m < markers.length; m++) {
      if (texts[m].trim() !== '') lines.push(texts[m]);
      const marker = markers[m];
      if (marker.start) {
        if (named >= budget.sections) {
          unnamed++;
          continue;
        }
        named++;
        const section: OpenSection = {
          name: marker.name,
          collapsed: marker.collapsed,
          from: lines.length + 1,
          started: marker.epoch,
          hasHeader: false,
          closed: false,
        };
        stack.push(section);
        opened.push(section);
        const same = openByName.get(marker.name);
        if (same) same.push(section);
        else openByName.set(marker.name, [section]);
      } else {
        // The latest open section of that name; an end of a name not open is ignored.
        const same = openByName.get(marker.name);
        const section = same?.pop();
        if (!section) continue;
        if (same!.length === 0) openByName.delete(marker.name);
        section.closed = true;
        ended.push({ section, to: Math.max(section.from, lines.length), seconds: marker.epoch - section.started });
      }
    }
    const last = texts[markers.length];
    const current = openHeaderless(stack, lines.length + 1);
    if (current && last.trim() !== '') current.hasHeader = true;
    if (last !== '' || bareEnd) lines.push(last);
  }
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  if (unnamed > 0)
    skipped.push(
      `the names of ${plural(unnamed, 'more section')} (a log's first ${budget.sections} sections are named)`,
    );
  return { lines, ended, opened };
}

/**
 * The few lines around the first error: what an on-call engineer reads first. Mostly what follows it (a test
 * runner prints the failing test, then the expectation and the values), with runs of blank lines squeezed to one.
 */
export function failingExcerpt(
  log: ReadableLog,
  before = EXCERPT_BEFORE,
  after = EXCERPT_AFTER,
): { from: number; to: number; lines: string[] } | undefined {
  if (log.firstError === undefined) return undefined;
  const from = Math.max(1, log.firstError - before);
  const to = Math.min(log.lines.length, log.firstError + after);
  const window = log.lines.slice(from - 1, to);
  let first = 0;
  while (first < window.length && window[first].trim() === '') first++;
  let last = window.length;
  while (last > first && window[last - 1].trim() === '') last--;
  const lines = window
    .slice(first, last)
    .filter((line, i, all) => line.trim() !== '' || (i > 0 && all[i - 1].trim() !== ''));
  return { from: from + first, to, lines };
}

/** Characters of log text shown by default: a view is read by a person or a model, not archived. */
const LOG_VIEW_CHARS = 50_000;

interface LogView {
  /** The text to show: the chosen lines, collapsed sections folded to one line each. */
  text: string;
  /** Lines of the whole (read) log, and the first one shown. */
  total: number;
  from: number;
  /** Whether lines before `from` were left out. */
  cut: boolean;
}

/**
 * The log as shown: its last `lines` lines (or all), at most `maxChars` characters of them (older lines give way),
 * with each collapsed section that does not hold the first error folded to "▸ name: header (N lines)". Line
 * numbers stay those of the whole log. One pass over the lines shown and one over the sections.
 */
export function viewJobLog(
  log: ReadableLog,
  options: { lines?: number; all?: boolean; maxChars?: number } = {},
): LogView {
  const want = options.all ? log.lines.length : (options.lines ?? DEFAULT_LOG_LINES);
  const maxChars = options.maxChars ?? LOG_VIEW_CHARS;
  let from = Math.max(1, log.lines.length - want + 1);
  let size = 0;
  for (let n = log.lines.length; n >= from; n--) {
    size += log.lines[n - 1].length + 1;
    if (size > maxChars && n < log.lines.length) {
      from = n + 1;
      break;
    }
  }
  const holdsError = (s: LogSection) =>
    log.firstError !== undefined && s.from <= log.firstError && log.firstError <= s.to;
  // The first folded section (by start line) starting at each line, and the one the first shown line is inside of.
  const startsAt = new Map<number, LogSection>();
  let around: LogSection | undefined;
  for (const s of log.sections) {
    if (!s.collapsed || holdsError(s)) continue;
    if (!startsAt.has(s.from)) startsAt.set(s.from, s);
    if (!around && s.from < from && from <= s.to) around = s;
  }
  const out: string[] = [];
  for (let n = from; n <= log.lines.length; n++) {
    const section = (n === from ? around : undefined) ?? startsAt.get(n);
    if (section && section.to >= n) {
      const count = section.to - section.from + 1;
      out.push(
        `▸ ${section.name}${section.header ? `: ${section.header}` : ''} (${count} line${count === 1 ? '' : 's'} folded)`,
      );
      n = section.to;
      continue;
    }
    out.push(log.lines[n - 1]);
  }
  return { text: out.join('\n'), total: log.lines.length, from, cut: from > 1 };
}
