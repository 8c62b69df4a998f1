// The neutral chat message every front end renders (Block Kit in Slack, text in the terminal): no markup, no I/O.
import type { FollowUp } from '../operations/engine/define.js';

export type { FollowUp } from '../operations/engine/define.js';

/** What a message is about, for a status emoji or symbol; pipeline statuses map onto the first six. */
export const CHAT_STATUSES = [
  'success',
  'failed',
  'running',
  'pending',
  'canceled',
  'skipped',
  'warning',
  'error',
  'info',
] as const;
export type ChatStatus = (typeof CHAT_STATUSES)[number];

/** Longer text under the fields: a commit message, a file's content, a diff, help. */
export interface ChatSection {
  title?: string;
  text: string;
  /** Show as preformatted code (diffs, file content, help tables): monospace, never reflowed, never read as markup. */
  code?: boolean;
  /** When cut to fit, keep its end (a log's tail) rather than its beginning. */
  tail?: boolean;
}

export interface ChatMessage {
  /** One line: "Pipeline #42: failed", "20 commits". */
  title: string;
  status?: ChatStatus;
  /** The page of the service this message is about (its web_url). */
  link?: string;
  /** Short label → value pairs, in order. */
  fields: Array<[string, string]>;
  sections: ChatSection[];
  /** Next steps as exact calls (Retry, Cancel, Next page): buttons in Slack, commands to type in the terminal. */
  actions: FollowUp[];
  /** Small print: "showing 20 of 134; next page: page=2", "a part could not be read: …". */
  notes: string[];
  /** A report the asker may want to show others (a triage): where it is answered privately, offer to share it. */
  shareable?: boolean;
}

/** A message with empty lists filled in, so every renderer can iterate without checks. */
export function chatMessage(title: string, parts: Partial<Omit<ChatMessage, 'title'>> = {}): ChatMessage {
  return {
    title,
    ...(parts.status !== undefined ? { status: parts.status } : {}),
    ...(parts.link !== undefined ? { link: parts.link } : {}),
    ...(parts.shareable ? { shareable: true } : {}),
    fields: parts.fields ?? [],
    sections: parts.sections ?? [],
    actions: parts.actions ?? [],
    notes: parts.notes ?? [],
  };
}
