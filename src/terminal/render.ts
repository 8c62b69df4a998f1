// A ChatMessage as terminal text: a status symbol and title, aligned fields, sections, follow-ups as the commands
// to type, notes; with colour only on a terminal that wants it, and never a control character from the data.
import { commandLine } from '../chat/command-line.js';
import type { ChatMessage, ChatStatus } from '../chat/message.js';
import type { Operation } from '../operations/engine/define.js';
import { quoteFor } from '../text/quote.js';

export interface RenderOptions {
  /** To write follow-ups as commands. */
  operations: readonly Operation[];
  /** ANSI colours (a TTY without NO_COLOR). */
  color?: boolean;
}

const SYMBOLS: Record<ChatStatus, string> = {
  success: '✓',
  failed: '✗',
  error: '✗',
  running: '●',
  pending: '○',
  canceled: '⊘',
  skipped: '»',
  warning: '!',
  info: '·',
};

const COLORS: Partial<Record<ChatStatus, number>> = {
  success: 32,
  failed: 31,
  error: 31,
  running: 34,
  pending: 33,
  warning: 33,
  canceled: 90,
  skipped: 90,
};

/**
 * Repository content and service answers are strangers' data: an escape sequence in a file must not move the
 * cursor, retitle the window or hide text. Every hidden character (spellOutHidden) but newline and tab is spelled out.
 */
export function safeText(text: string): string {
  return quoteFor('terminal', text, { multiline: true });
}

function indent(text: string, by: string): string {
  return text
    .split('\n')
    .map((line) => (line ? `${by}${line}` : line))
    .join('\n');
}

export function renderMessage(message: ChatMessage, options: RenderOptions): string {
  const paint = (code: number | undefined, text: string) =>
    options.color && code !== undefined ? `\x1b[${code}m${text}\x1b[0m` : text;
  const bold = (text: string) => (options.color ? `\x1b[1m${text}\x1b[0m` : text);
  const dim = (text: string) => paint(2, text);
  const symbol = message.status ? `${paint(COLORS[message.status], SYMBOLS[message.status])} ` : '';
  const lines = [`${symbol}${bold(safeText(message.title))}`];
  if (message.fields.length > 0) {
    const width = Math.max(...message.fields.map(([label]) => safeText(label).length));
    for (const [label, value] of message.fields)
      lines.push(`  ${dim(safeText(label).padEnd(width))}  ${safeText(value)}`);
  }
  if (message.link) lines.push(`  ${paint(36, safeText(message.link))}`);
  for (const section of message.sections) {
    lines.push('');
    if (section.title) lines.push(`  ${bold(safeText(section.title))}`);
    lines.push(indent(safeText(section.text), section.code || section.title ? '    ' : '  '));
  }
  const byName = new Map(options.operations.map((op) => [op.name, op]));
  // A row's own step (Retry beside each failed pipeline of a list) is a Slack button; typed out, a list of twenty
  // would carry twenty commands, so the terminal shows the message's own steps only.
  const actions = message.actions.flatMap((action) => {
    const op = action.row === undefined ? byName.get(action.operation) : undefined;
    // Only the verb is lowered ("Retry …" reads "→ retry …"): a label may carry a name ("Ping Bob Chen"), and
    // what the service wrote in it is shown safe like every other text.
    return op
      ? [
          `  → ${safeText(action.label.charAt(0).toLowerCase() + action.label.slice(1))}: ${safeText(commandLine(op, action.input))}`,
        ]
      : [];
  });
  if (actions.length > 0) lines.push('', ...actions);
  if (message.notes.length > 0) lines.push('', ...message.notes.map((note) => dim(`  ${safeText(note)}`)));
  return `${lines.join('\n')}\n`;
}
