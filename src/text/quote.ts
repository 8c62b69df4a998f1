// Quoting text that came from the service (a commit title, an author's name, a job's name) for where forgeops writes
// it: the service's own Markdown, Slack's mrkdwn or a terminal. One step for all three, so no composed text skips it.
import { spellOutHidden } from './visible.js';

/** Where the text goes: the service's Markdown (titles, descriptions, notes), Slack's mrkdwn, a terminal. */
export type Destination = 'markdown' | 'mrkdwn' | 'terminal';

export interface QuoteOptions {
  /** Newlines (and, in a terminal, tabs) lay the text out: kept; otherwise they are spelled out like every control. */
  multiline?: boolean;
}

/**
 * The service's references (GitLab Flavored Markdown), each of which links, notifies or adds a "mentioned in" note
 * somewhere: @user or @group/sub (not inside a word, so an e-mail address is none), #12 issues, !3 merge requests, $4
 * snippets, &5 epics, ~label (~12, ~bug, ~"two words", ~scope::value), %milestone (%3, %v1.2, %"two words"),
 * ^alert#6, *iteration:"name", GL-7, [issue:7] and the other [kind:…] forms, [[wiki page]], and a project as
 * group/project>. Any of the numbered and named ones may carry a project path (project#12, group/sub/project!3,
 * /group/project~bug): the service reads project#12 as issue 12 of project "project", so issue#3 is a reference
 * too, while C#, 100% and R&D are not (no digits or name after the sign).
 */
const PROJECT_PATH = String.raw`(?:(?<![\w./-])/?[\w.-]+(?:/[\w.-]+)*)?`;
const QUOTED = String.raw`"[^"\n]+"`;
const REFERENCE = new RegExp(
  [
    String.raw`(?<!\w)@[\w.-]*\w(?:/[\w.-]*\w)*`,
    String.raw`${PROJECT_PATH}(?:[#!$&]\d+|\^alert#\d+|~(?:\d+|${QUOTED}|[\w?.&:-]*[\w&-])|%(?:\d+|${QUOTED}|[^"\s<]*\w))`,
    String.raw`\*iteration:(?:\d+|${QUOTED}|[^"\s<]*\w)`,
    String.raw`(?<![\w-])GL-\d+`,
    String.raw`\[\[[^\]\n]+\]\]`,
    String.raw`\[[a-z_]+:[^\]\s][^\]\n]*\]`,
    String.raw`(?<![\w./-])/?[\w.-]+(?:/[\w.-]+)+>`,
  ].join('|'),
);
/**
 * A web address, cut short of what a reader takes for the sentence around it (a final period, comma or bracket).
 * Kept whole: it goes into inline code whole when it points at an issue, a merge request or another work item
 * (the service reads those as references too) or holds anything that reads as one, and is left as it is otherwise.
 */
const WEB_ADDRESS = String.raw`https?://[\w.~:/?#@!$&+,;=%()-]*[\w/#=&%~+-]`;
const WORK_ITEM_PATH =
  /\/(?:issues|merge_requests|work_items|epics|snippets|milestones|alert_management|incidents|designs)\/\d/;
const URL_OR_REFERENCE = new RegExp(`${WEB_ADDRESS}|${REFERENCE.source}`, 'g');

/** Inline code holding `content` exactly: a fence one backtick longer than any run inside it (CommonMark). */
function codeSpan(content: string): string {
  const longest = Math.max(0, ...(content.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  // A space each side when the content starts or ends with a backtick, which CommonMark strips again.
  const pad = content.startsWith('`') || content.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${content}${pad}${fence}`;
}

/**
 * Text with no reference in it, made plain for the service's Markdown: & and < as entities (an entity such as
 * &num;5 or &commat;all would turn back into a reference once the service decodes it, and < opens no tag), and every
 * backtick escaped, so no code span of the text's own can swallow or split one of ours.
 */
function plainText(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/(\\*)`/g, (_, slashes: string) => `${slashes}${slashes.length % 2 === 0 ? '\\' : ''}\``);
}

/** The text in pieces: those the service reads as a reference (code: true) and the text between them. */
function referencePieces(text: string): Array<{ code: boolean; text: string }> {
  const pieces: Array<{ code: boolean; text: string }> = [];
  const push = (code: boolean, piece: string) => {
    if (piece === '') return;
    const last = pieces.at(-1);
    if (last && last.code === code) last.text += piece;
    else pieces.push({ code, text: piece });
  };
  let at = 0;
  for (const match of text.matchAll(URL_OR_REFERENCE)) {
    push(false, text.slice(at, match.index));
    const found = match[0];
    const isUrl = /^https?:\/\//.test(found);
    push(!isUrl || WORK_ITEM_PATH.test(found) || REFERENCE.test(found.replace(/^https?:\/\//, ' ')), found);
    at = match.index + found.length;
  }
  push(false, text.slice(at));
  return pieces;
}

/** Whether the service reads anything in the text as a reference (a mention, #5, a closing statement's issue…). */
export function holdsReference(text: string): boolean {
  return referencePieces(text).some((piece) => piece.code);
}

/**
 * The text for the service's Markdown with every reference in inline code, which the service renders as no
 * reference (and its closing pattern, "Closes #5", then finds no issue in).
 */
function quoteReferences(text: string): string {
  const pieces = referencePieces(text);
  return pieces
    .map((piece, i) => {
      if (piece.code) return codeSpan(piece.text);
      const plain = plainText(piece.text);
      // A backslash left at the end would escape the code span's opening backtick: doubled, it is a backslash.
      const before = pieces[i + 1]?.code ? /(?<!\\)(?:\\\\)*\\$/.test(plain) : false;
      return before ? `${plain}\\` : plain;
    })
    .join('');
}

/** What an HTML block must not hold raw, and where a closing pattern's reference starts (#5, https://…/issues/5). */
const BLOCK_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '#': '&#35;', ':': '&#58;' };
const BLOCK_ESCAPED = /[&<>]|#(?=\d)|(?<=\bhttps?):(?=\/\/)/gi;

/**
 * Lines of service text (a job's log) as a block of the service's Markdown shown exactly as they are: an HTML pre
 * block, not a fenced one. The service renders no reference inside either, but its closing pattern reads the raw
 * text, so "Fixes #5" in a fenced block still closes issue 5 on merge; with the # before a number and the : of a web
 * address written as entities the raw text holds no reference, and the reader sees the same characters. Lines are
 * taken as they come: hide or spell out hidden characters before.
 */
export function markdownBlock(text: string): string {
  return `<pre>\n${text.replace(BLOCK_ESCAPED, (c) => BLOCK_ENTITIES[c])}\n</pre>`;
}

/** Slack's markup: escaping these three is what Slack documents, and it turns <!channel>, <@U1> and <#C1> into text. */
function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * The text fit for its destination: hidden characters (controls such as ESC and BEL, C1, bidi overrides and
 * isolates, zero-width characters, line separators) spelled out as \u…, as the prompts show them; mentions and
 * broadcasts of that destination made plain text. Everything else (letters of any script, emoji) stays as it is.
 */
export function quoteFor(destination: Destination, text: string, options: QuoteOptions = {}): string {
  const keep = options.multiline ? (destination === 'terminal' ? '\n\t' : '\n') : '';
  const visible = spellOutHidden(text.replace(/\r\n/g, '\n'), keep);
  switch (destination) {
    case 'terminal':
      return visible;
    case 'mrkdwn':
      return escapeSlack(visible);
    case 'markdown':
      return quoteReferences(visible);
  }
}
