// Block Kit from the neutral ChatMessage, within Slack's limits (cut with a note, never rejected), and the
// approval request with its yes/no buttons. Pure: no I/O; the values of buttons are handed in.
import { quoteFor } from '../text/quote.js';
import type { ChatMessage, ChatStatus } from '../chat/message.js';
import type { FollowUp } from '../operations/engine/define.js';
import type { Answers } from '../policy/policy.js';
import type { ShownText } from '../text/visible.js';

/** Slack's documented limits (https://api.slack.com/reference/block-kit). */
export const LIMITS = {
  blocks: 50,
  sectionText: 3000,
  fieldsPerSection: 10,
  fieldText: 2000,
  buttonText: 75,
  buttonValue: 2000,
  actionId: 255,
  elementsPerActions: 25,
  contextElements: 10,
  fallbackText: 3000,
  // Slack's own "are you sure" dialog (its `confirm` object) on a yes button.
  dialogTitle: 100,
  dialogText: 300,
} as const;

export type Block = Record<string, unknown>;

export interface SlackMessage {
  /** Notification and screen-reader text; Slack shows it where blocks cannot be shown. */
  text: string;
  blocks: Block[];
}

const STATUS_EMOJI: Record<ChatStatus, string> = {
  success: ':white_check_mark:',
  failed: ':x:',
  running: ':arrows_counterclockwise:',
  pending: ':hourglass_flowing_sand:',
  canceled: ':no_entry_sign:',
  skipped: ':fast_forward:',
  warning: ':warning:',
  error: ':warning:',
  info: ':information_source:',
};

/** Action ids: Bolt routes on them, so the prefix is the route and the index keeps them unique within a message. */
export const ACTION_IDS = {
  followUp: 'forge_followup',
  // The key speaks of approval; the id keeps its wire name: buttons already posted in Slack still carry it.
  approve: 'forge_confirm',
  cancel: 'forge_cancel',
  share: 'forge_share',
  mute: 'forge_mute',
  // A follow-up that asks for a comment in a form before it runs (Reject): the click opens the form.
  comment: 'forge_comment',
  // A URL button: Slack opens the link in the browser and still sends the click, which is only acked.
  connect: 'forge_connect',
} as const;

/** The label of the button that posts a private answer to the channel. */
const SHARE_LABEL = 'Share in channel';

/** Slack's mrkdwn treats &, < and > as markup; everything from the service or a user is text. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A code block that stays one: backtick runs inside cannot close the fence. */
function fenced(text: string): string {
  return `\`\`\`${escapeMrkdwn(text).replace(/```/g, '`\u200b`\u200b`')}\`\`\``;
}

const FENCE_CHARS = 6;

/** Text cut to `max` characters, ending in an ellipsis when cut. */
export function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}

function section(text: string): Block {
  return { type: 'section', text: { type: 'mrkdwn', text: cut(text, LIMITS.sectionText) } };
}

/**
 * Splits text into pieces of at most `max` characters, at line breaks where it can, so a long prompt or diff spreads
 * over several blocks instead of being refused. A line too long for one piece is cut, and its rest starts with
 * `continued` (shorter than half a piece): a value cut to fit cannot then pass for a line of its own.
 */
export function splitText(text: string, max: number, continued = ''): string[] {
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > max) {
    const at = rest.lastIndexOf('\n', max);
    if (at > max / 2) {
      pieces.push(rest.slice(0, at));
      rest = rest.slice(at + 1);
    } else {
      pieces.push(rest.slice(0, max));
      rest = `${continued}${rest.slice(max)}`;
    }
  }
  pieces.push(rest);
  return pieces;
}

/** How the rest of a line cut to fit a code block starts (a question's own lines start with its title or two spaces). */
export const CONTINUED = '↪ ';

/**
 * Code over as few section blocks as fit: escaping can make text up to five times longer (& → &amp;), so it is
 * split in pieces that fit even then, and pieces are joined again while the fenced result stays within the limit.
 */
export function codeBlocks(text: string): Block[] {
  const out: string[] = [];
  let current: string | undefined;
  for (const piece of splitText(text, Math.floor((LIMITS.sectionText - FENCE_CHARS) / 5), CONTINUED)) {
    const joined = current === undefined ? piece : `${current}\n${piece}`;
    if (fenced(joined).length <= LIMITS.sectionText) current = joined;
    else {
      out.push(current as string);
      current = piece;
    }
  }
  if (current !== undefined) out.push(current);
  return out.map((raw) => section(fenced(raw)));
}

export interface RenderOptions {
  /** The value of follow-up button i (a stored reference, never the raw input); undefined: no button. */
  actionValue?: (index: number) => string | undefined;
  /** Extra small print, e.g. "approved by @ana". */
  byline?: string;
  /** The value of a "Share in channel" button (a stored reference), for an answer only its asker sees. */
  share?: string;
}

function headline(message: ChatMessage): string {
  const emoji = message.status ? `${STATUS_EMOJI[message.status]} ` : '';
  const title = quoteFor('mrkdwn', cut(message.title, 2000)).replace(/\|/g, '¦');
  return message.link ? `${emoji}*<${message.link}|${title}>*` : `${emoji}*${title}*`;
}

/** One message in Block Kit; whatever exceeds Slack's limits is cut, and a note says so. */
export function renderMessage(message: ChatMessage, options: RenderOptions = {}): SlackMessage {
  const notes = [...message.notes];
  const body: Block[] = [section(headline(message))];

  const button = (action: FollowUp, index: number): Block | undefined => {
    const value = options.actionValue?.(index);
    if (value === undefined || value.length > LIMITS.buttonValue) return undefined;
    return {
      type: 'button',
      text: { type: 'plain_text', text: cut(action.label, LIMITS.buttonText), emoji: true },
      action_id: `${ACTION_IDS.followUp}:${index}`,
      value,
      ...(action.style ? { style: action.style } : {}),
    };
  };
  // A list whose rows have their own step (Retry beside a failed pipeline): one section per row, its button beside it.
  const byRow = new Map<string, number>();
  message.actions.forEach((action, index) => {
    if (action.row !== undefined && !byRow.has(action.row)) byRow.set(action.row, index);
  });
  if (byRow.size > 0) {
    for (const [label, value] of message.fields) {
      const index = byRow.get(label);
      const accessory = index === undefined ? undefined : button(message.actions[index], index);
      body.push({
        ...section(cut(`*${quoteFor('mrkdwn', label)}*  ${quoteFor('mrkdwn', value)}`, LIMITS.sectionText)),
        ...(accessory ? { accessory } : {}),
      });
    }
  } else {
    const fields = message.fields.map(([label, value]) => ({
      type: 'mrkdwn',
      text: cut(`*${quoteFor('mrkdwn', label)}*\n${quoteFor('mrkdwn', value, { multiline: true })}`, LIMITS.fieldText),
    }));
    for (let i = 0; i < fields.length; i += LIMITS.fieldsPerSection) {
      body.push({ type: 'section', fields: fields.slice(i, i + LIMITS.fieldsPerSection) });
    }
  }
  for (const s of message.sections) {
    if (s.title) body.push(section(`*${quoteFor('mrkdwn', s.title)}*`));
    if (s.code) body.push(...codeBlocks(s.text));
    else body.push(...splitText(quoteFor('mrkdwn', s.text, { multiline: true }), LIMITS.sectionText).map(section));
  }

  // The message's own steps (Next page, Cancel #7) below it; a row's are on its row.
  const buttons = message.actions
    .flatMap((action, index) => (action.row === undefined ? [button(action, index)] : []))
    .filter((b): b is Block => b !== undefined);
  if (options.share !== undefined && options.share.length <= LIMITS.buttonValue) {
    buttons.push({
      type: 'button',
      text: { type: 'plain_text', text: SHARE_LABEL },
      action_id: ACTION_IDS.share,
      value: options.share,
    });
  }
  const actionBlocks: Block[] = [];
  for (let i = 0; i < buttons.length; i += LIMITS.elementsPerActions) {
    actionBlocks.push({ type: 'actions', elements: buttons.slice(i, i + LIMITS.elementsPerActions) });
  }

  // Room for the buttons and one block of small print; the body gives way, from the end, with a note.
  const room = LIMITS.blocks - actionBlocks.length - 1;
  if (body.length > room) {
    const dropped = body.length - room;
    body.length = room;
    notes.push(`Cut to fit Slack: ${dropped} more block${dropped === 1 ? '' : 's'} of this answer not shown.`);
  }
  if (options.byline) notes.push(options.byline);
  const blocks = [...body, ...actionBlocks];
  if (notes.length > 0) {
    blocks.push({
      type: 'context',
      elements: [
        { type: 'mrkdwn', text: cut(quoteFor('mrkdwn', notes.join('\n'), { multiline: true }), LIMITS.sectionText) },
      ],
    });
  }
  // The fallback text is what notifications show, and Slack reads its mentions too.
  return { text: cut(quoteFor('mrkdwn', message.title), LIMITS.fallbackText), blocks };
}

/**
 * A yes or no button. Labels say what the answer does ("Yes, cancel pipeline 9", "No, keep it running"): on a
 * "Cancel pipeline?" question a button called Cancel, or Slack's own dialog's Cancel, could mean either.
 */
function answerButton(answer: ShownText, actionId: string, value: string, style?: 'danger'): Block {
  return {
    type: 'button',
    action_id: actionId,
    value,
    text: { type: 'plain_text', text: cut(answer, LIMITS.buttonText) },
    ...(style ? { style } : {}),
  };
}

/** Slack's own "are you sure" dialog on the yes button of a call that runs `operation`. */
function runDialog(operation: string, answers: Answers, text: string): Block {
  return {
    title: { type: 'plain_text', text: cut(`Run ${operation}?`, LIMITS.dialogTitle) },
    text: { type: 'mrkdwn', text },
    confirm: { type: 'plain_text', text: cut(answers.yes, LIMITS.buttonText) },
    deny: { type: 'plain_text', text: 'No, go back' },
    style: 'danger',
  };
}

/** The yes and no buttons of a question about one call, the yes with Slack's own "are you sure" dialog. */
export function answerButtons(options: {
  operation: string;
  answers: Answers;
  value: string;
  actionIds: { yes: string; no: string };
  dialog: string;
}): Block {
  const yes = {
    ...answerButton(options.answers.yes, options.actionIds.yes, options.value, 'danger'),
    confirm: runDialog(options.operation, options.answers, options.dialog),
  };
  return { type: 'actions', elements: [yes, answerButton(options.answers.no, options.actionIds.no, options.value)] };
}

/**
 * The question before a call that needs a human: the reason and the exact call (never cut: what is approved is what
 * runs; ShownText, so only mrkdwn's own escaping is added), with yes (danger, with Slack's own "are you sure" dialog)
 * and no. Undefined when the call is too long to show whole in one Slack message; the caller then refuses rather than
 * ask about a part of it.
 */
export function renderApproval(
  prompt: ShownText,
  approval: string,
  options: { operation: string; answers: Answers },
): SlackMessage | undefined {
  const calls = codeBlocks(prompt);
  const blocks: Block[] = [
    section(`:warning: *This needs your approval:* \`${escapeMrkdwn(options.operation)}\``),
    ...calls,
    answerButtons({
      operation: options.operation,
      answers: options.answers,
      value: approval,
      actionIds: { yes: ACTION_IDS.approve, no: ACTION_IDS.cancel },
      dialog: 'This runs exactly the call shown in the message, once, as you.',
    }),
    {
      type: 'context',
      elements: [{ type: 'mrkdwn', text: 'Only you can see this. The approval works once, for 5 minutes.' }],
    },
  ];
  if (blocks.length > LIMITS.blocks || approval.length > LIMITS.buttonValue) return undefined;
  return { text: `Approve ${options.operation}?`, blocks };
}

/** A short reply: one line of text with an optional status. */
export function renderText(text: string, status?: ChatStatus): SlackMessage {
  const emoji = status ? `${STATUS_EMOJI[status]} ` : '';
  const quoted = quoteFor('mrkdwn', text, { multiline: true });
  const pieces = splitText(quoted, LIMITS.sectionText).slice(0, LIMITS.blocks);
  pieces[0] = `${emoji}${pieces[0]}`;
  return { text: cut(quoted, LIMITS.fallbackText), blocks: pieces.map(section) };
}

/**
 * The answer to an unlinked person (or /forge login): a "Connect to <code host>" URL button to their one-time link,
 * what it does, how long it lasts and what runs after it. Only they see it (it is sent ephemeral).
 */
export function renderConnect(
  link: { url: string; codeHost: string; expiresInMinutes: number },
  waiting?: string,
  reason?: string,
): SlackMessage {
  const host = quoteFor('mrkdwn', link.codeHost);
  const lines = [
    ...(reason ? [quoteFor('mrkdwn', reason)] : []),
    `${STATUS_EMOJI.info} Connect your account on *${host}*: the button opens its sign-in in your browser, and your commands then run as you. No token is typed into Slack.`,
    `The link is yours alone, works once and expires in ${link.expiresInMinutes} minutes.`,
    ...(waiting ? [`Once you are signed in, \`/forge ${cut(quoteFor('mrkdwn', waiting), 500)}\` runs.`] : []),
  ];
  return {
    // The link only in the button: a link in the text could be unfurled (fetched) by Slack.
    text: cut(`Connect your account on ${link.codeHost} with the button in this message.`, LIMITS.fallbackText),
    blocks: [
      section(lines.join('\n')),
      {
        type: 'actions',
        elements: [
          {
            type: 'button',
            action_id: ACTION_IDS.connect,
            text: { type: 'plain_text', text: cut(`Connect to ${link.codeHost}`, LIMITS.buttonText), emoji: true },
            url: link.url,
            style: 'primary',
          },
        ],
      },
    ],
  };
}
