// The comment form of a button that takes one before it runs (Reject on a deployment message): the modal, where it was
// opened (carried through Slack), and the person's comment read back within its bound. Pure: no I/O.
import { quoteFor } from '../text/quote.js';

export const COMMENT_VIEW = 'forge_comment';
/** The comment's block and input: its error, if any, is shown under the block. */
export const COMMENT_BLOCK = 'comment';
const COMMENT_INPUT = 'value';
/**
 * A comment is at most this long: the code host's own form for a deployment approval stops at 250 characters, and a
 * longer one would only come back refused after the person confirmed it. The modal holds the same bound (max_length).
 */
export const MAX_COMMENT_CHARS = 250;

/** Where the form was opened: the button pressed, its channel, and the press's response_url for the answers. */
export interface CommentOrigin {
  ref: string;
  channelId: string;
  responseUrl?: string;
}

/** What the form says it is for: "Reject deployment #12 of acme/web". */
export interface CommentPurpose {
  /** The button's label, the modal's title ("Reject"). */
  label: string;
  /** What the call does, in words of the button's own call (already plain text, escaped here). */
  what: string;
}

/** The form: what pressing goes on to do, and an optional comment of several lines, bounded. */
export function commentView(origin: CommentOrigin, purpose: CommentPurpose): Record<string, unknown> {
  return {
    type: 'modal',
    callback_id: COMMENT_VIEW,
    private_metadata: JSON.stringify(origin),
    // Slack's limit on a modal's title is 24 characters.
    title: { type: 'plain_text', text: purpose.label.slice(0, 24) },
    submit: { type: 'plain_text', text: 'Continue' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: quoteFor('mrkdwn', purpose.what) } },
      {
        type: 'input',
        block_id: COMMENT_BLOCK,
        optional: true,
        label: { type: 'plain_text', text: 'Why (optional)' },
        hint: {
          type: 'plain_text',
          text: 'Kept with the decision on the code host and shown in the channel. You confirm the exact call, comment included, next.',
        },
        element: {
          type: 'plain_text_input',
          action_id: COMMENT_INPUT,
          multiline: true,
          max_length: MAX_COMMENT_CHARS,
        },
      },
    ],
  };
}

/** The origin a submitted form carries; undefined when it is not one of ours. */
export function commentOrigin(privateMetadata: string | undefined): CommentOrigin | undefined {
  try {
    const parsed = JSON.parse(privateMetadata ?? '') as Partial<CommentOrigin>;
    if (typeof parsed.ref !== 'string' || typeof parsed.channelId !== 'string') return undefined;
    return {
      ref: parsed.ref,
      channelId: parsed.channelId,
      ...(typeof parsed.responseUrl === 'string' ? { responseUrl: parsed.responseUrl } : {}),
    };
  } catch {
    return undefined;
  }
}

type StateValues = Record<string, Record<string, { value?: string | null }>>;

/**
 * The comment as typed, its own line breaks kept and only the blank edges trimmed: empty means none. Too long (a
 * client that ignored max_length) is an error for the form, never a comment cut short behind the person's back.
 */
export function commentOf(values: StateValues): { comment?: string } | { error: string } {
  const raw = values[COMMENT_BLOCK]?.[COMMENT_INPUT]?.value ?? '';
  const comment = raw.replace(/^\s*\n|\s+$/g, '');
  if (comment.length > MAX_COMMENT_CHARS)
    return { error: `At most ${MAX_COMMENT_CHARS} characters (this is ${comment.length}).` };
  return comment.trim() ? { comment } : {};
}
