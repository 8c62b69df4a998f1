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
 * A mention in the service's Markdown: @ then a name, not inside a word (an e-mail address is no mention). @all
 * notifies every member; inline code is what the service renders as no mention at all.
 */
const SERVICE_MENTION = /(^|[^\w`@])(@[\w.-]*\w)/g;

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
      // Raw HTML is markup in the service's Markdown too: < as an entity reads the same and opens no tag.
      return visible
        .replace(/</g, '&lt;')
        .replace(SERVICE_MENTION, (_, before: string, at: string) => `${before}\`${at}\``);
  }
}
