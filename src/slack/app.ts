// The Bolt app: routes Slack's commands, buttons, forms and link_shared events to the bot, over HTTP (our receiver,
// signature checked) or Socket Mode; acks at once and works after the ack; a redelivered request is acked and dropped.
import { quoteFor } from '../text/quote.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createHash } from 'node:crypto';
import { App, LogLevel, SocketModeReceiver } from '@slack/bolt';
import type {
  App as BoltApp,
  AnyMiddlewareArgs,
  BlockAction,
  ButtonAction,
  Middleware,
  SlackCommandMiddlewareArgs,
} from '@slack/bolt';
import type { Logger } from '../log.js';
import { canonicalJson } from '../approval/binding.js';
import { ACTION_IDS } from './blocks.js';
import { APPROVAL_ACTION_IDS, type SlackApprover } from './approver.js';
import type { SlackBot } from './bot.js';
import type { Turn } from './turn.js';
import { SlackHttpReceiver } from './receiver.js';
import { RELEASE_VIEW, releaseArguments, releaseOrigin } from './release-modal.js';
import { COMMENT_BLOCK, COMMENT_VIEW, commentOf, commentOrigin } from './comment-modal.js';
import type { SlackSettings } from './settings.js';
import type { ReadinessProbe } from '../health.js';
import { MemoryStore, type StateStore } from '../state/store.js';

const COMMAND = '/forge';
const LOGIN_VIEW = 'forge_login';
const TOKEN_BLOCK = 'token_block';
const TOKEN_INPUT = 'token';

/** How long a submitted form waits for the service before it closes and the outcome follows as a message. */
const FORM_ANSWER_MS = 2_000;
/** How long a request is remembered to spot its redelivery: Slack retries at once, after 1 minute and after 5. */
const SEEN_TTL_MS = 10 * 60_000;
/** Requests remembered at most; beyond, the oldest are forgotten (a flood must not fill the state store). */
const SEEN_MAX = 20_000;

interface SlackAppOptions {
  settings: SlackSettings;
  bot: SlackBot;
  log: Logger;
  /** The clock of the signature check (tests move it). */
  now?: () => number;
  /** Answers the yes/no buttons of MCP approvals (SLACK_APPROVER). */
  approver?: SlackApprover;
  /**
   * Where delivered requests are remembered: the shared store when replicas share one (a redelivery may reach
   * another replica), else a bounded store of this process's own.
   */
  seen?: StateStore;
  /** What /readyz checks on the bot's own port (HTTP mode). */
  readiness?: ReadinessProbe;
  /** Browser pages served beside /slack/events on the bot's own port (HTTP mode): the Connect links. */
  pages?: (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;
}

export interface SlackApp {
  bolt: BoltApp;
  /** Undefined in Socket Mode. */
  receiver?: SlackHttpReceiver;
  /** Starts listening (HTTP: on host:port; Socket Mode: connects out). */
  start(port?: number, host?: string): Promise<{ url?: string }>;
  stop(): Promise<void>;
}

/** Bolt's logger interface over ours (Bolt logs its own errors; ours masks secrets and writes to stderr). */
function boltLogger(log: Logger) {
  let level = LogLevel.INFO;
  return {
    debug: (...m: unknown[]) => log.debug(`bolt: ${m.join(' ')}`),
    info: (...m: unknown[]) => log.info(`bolt: ${m.join(' ')}`),
    warn: (...m: unknown[]) => log.warn(`bolt: ${m.join(' ')}`),
    error: (...m: unknown[]) => log.error(`bolt: ${m.join(' ')}`),
    setLevel: (l: typeof level) => {
      level = l;
    },
    getLevel: () => level,
    setName: () => {},
  };
}

/**
 * Slack redelivers a request it thinks was lost (X-Slack-Retry-Num) with the same body, and Bolt would run it again:
 * the first delivery of a body claims it; a later one is acked and dropped. The claims live in a bounded store of
 * their own, apart from links and approvals: every request makes one, and writing each to the state file held the
 * ack back (tools/bench/slack-ack.mjs). A restart forgets them; a redelivery comes within minutes of the original.
 */
function dropRedeliveries(log: Logger, shared?: StateStore): Middleware<AnyMiddlewareArgs> {
  const store: StateStore = shared ?? new MemoryStore({ maxEntries: SEEN_MAX, evictOldest: true });
  return async (args) => {
    const key = `seen:${createHash('sha256').update(canonicalJson(args.body)).digest('base64url')}`;
    let first: boolean;
    try {
      first = await store.add(key, 1, { ttlMs: SEEN_TTL_MS });
    } catch (error) {
      // The shared store is down: whether this is a redelivery cannot be known, so nothing runs, and the person
      // is told why (running it anyway could run it twice; staying silent would look like a lost command).
      log.error(`slack: ${(error as Error).message}`);
      if ('ack' in args && typeof args.ack === 'function') await (args.ack as () => Promise<void>)();
      if ('respond' in args && typeof args.respond === 'function') {
        await (args.respond as (m: Record<string, unknown>) => Promise<unknown>)({
          response_type: 'ephemeral',
          text: `:warning: Not run: ${quoteFor('mrkdwn', (error as Error).message)}.`,
        }).catch(() => undefined);
      }
      return;
    }
    if (first) return args.next();
    log.info('slack: dropped a redelivered request');
    if ('ack' in args && typeof args.ack === 'function') await (args.ack as () => Promise<void>)();
  };
}

function turnOf(body: {
  team?: { id: string } | null;
  team_id?: string;
  user?: { id: string; name?: string; username?: string };
  user_id?: string;
  user_name?: string;
  channel?: { id: string };
  channel_id?: string;
  response_url?: string;
}): Turn {
  return {
    user: { teamId: body.team?.id ?? body.team_id ?? '', userId: body.user?.id ?? body.user_id ?? '' },
    userName: body.user?.username ?? body.user?.name ?? body.user_name,
    channelId: body.channel?.id ?? body.channel_id ?? '',
    responseUrl: body.response_url,
  };
}

function loginView(): Record<string, unknown> {
  return {
    type: 'modal',
    callback_id: LOGIN_VIEW,
    title: { type: 'plain_text', text: 'Link your account' },
    submit: { type: 'plain_text', text: 'Link' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: 'Paste a personal access token of your account on the service. forgeops checks it, stores it encrypted and never shows it again; your commands then run as you.',
        },
      },
      {
        type: 'input',
        block_id: TOKEN_BLOCK,
        label: { type: 'plain_text', text: 'Personal access token' },
        element: { type: 'plain_text_input', action_id: TOKEN_INPUT, max_length: 512 },
      },
    ],
  };
}

function doneView(text: string): Record<string, unknown> {
  return {
    type: 'modal',
    title: { type: 'plain_text', text: 'Link your account' },
    close: { type: 'plain_text', text: 'Done' },
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }],
  };
}

export function createSlackApp(options: SlackAppOptions): SlackApp {
  const { bot, log } = options;
  const { app, receiver } = boltApp(options);
  app.use(dropRedeliveries(log, options.seen));
  answerCommand(app, bot, log);
  answerButtons(app, bot, options.approver);
  answerCommentButtons(app, bot, log);
  answerForms(app, bot);
  answerLinks(app, bot);
  app.error(async (error) => log.error(`slack: ${error.message}`));
  return {
    bolt: app,
    receiver,
    async start(port = 3000, host = '127.0.0.1') {
      if (receiver) return receiver.start(port, host);
      await app.start();
      return {};
    },
    async stop() {
      await app.stop().catch(() => undefined);
    },
  };
}

/** Bolt's app over forgeops's own HTTP receiver (signatures, probes, the Connect pages), or over Socket Mode. */
function boltApp(options: SlackAppOptions) {
  const { settings, log } = options;
  const clientOptions = {
    ...(settings.apiUrl ? { slackApiUrl: `${settings.apiUrl}/` } : {}),
    rejectRateLimitedCalls: true,
  };
  const logger = boltLogger(log);
  const receiver = settings.appToken
    ? undefined
    : new SlackHttpReceiver({
        signingSecret: settings.signingSecret!,
        log,
        now: options.now,
        readiness: options.readiness,
        pages: options.pages,
      });
  // Bolt's own socketMode: true gives the socket client Slack's default Web API address (it reads installerOptions,
  // not clientOptions), so apps.connections.open would ignore SLACK_API_URL: the receiver is built here instead.
  const socket = settings.appToken
    ? new SocketModeReceiver({
        appToken: settings.appToken,
        logger,
        logLevel: LogLevel.INFO,
        installerOptions: { clientOptions },
      })
    : undefined;
  const app = new App({
    token: settings.botToken,
    receiver: receiver ?? socket,
    clientOptions,
    logger,
    logLevel: LogLevel.INFO,
    convoStore: false,
  });
  return { app, receiver };
}

/** /forge: the login form (token mode), the release form, or a command line for the bot. */
function answerCommand(app: BoltApp, bot: SlackBot, log: Logger): void {
  app.command(COMMAND, async ({ ack, command, client }: SlackCommandMiddlewareArgs & { client: BoltApp['client'] }) => {
    const word = command.text.trim().split(/\s+/)[0]?.toLowerCase();
    if (word === 'login' && !bot.connects) {
      await ack();
      // The modal needs the trigger_id within 3 s: open it first, then nothing else.
      await client.views
        .open({ trigger_id: command.trigger_id, view: loginView() as never })
        .catch((error: Error) => log.warn(`slack: could not open the login form: ${error.message}`));
      return;
    }
    await ack();
    const turn = turnOf(command);
    const form = await bot.releaseForm(turn, command.text);
    if (form) {
      await client.views
        .open({ trigger_id: command.trigger_id, view: form as never })
        .catch((error: Error) => log.warn(`slack: could not open the release form: ${error.message}`));
      return;
    }
    await bot.command(turn, command.text);
  });
}

/** The buttons of forgeops's messages, and SLACK_APPROVER's Approve and Deny. */
function answerButtons(app: BoltApp, bot: SlackBot, approver: SlackAppOptions['approver']): void {
  const clicked =
    (handler: (turn: Turn, value: string, actionId: string) => Promise<void>) =>
    async ({ ack, body, action }: { ack: () => Promise<void>; body: BlockAction; action: ButtonAction }) => {
      await ack();
      await handler(turnOf(body), action.value ?? '', action.action_id);
    };
  app.action(ACTION_IDS.approve, clicked((turn, value) => bot.approve(turn, value)) as never);
  app.action(ACTION_IDS.cancel, clicked((turn, value) => bot.cancel(turn, value)) as never);
  app.action(ACTION_IDS.share, clicked((turn, value) => bot.share(turn, value)) as never);
  app.action(ACTION_IDS.mute, clicked((turn, value) => bot.mute(turn, value)) as never);
  // The Connect button opens its URL in the browser; Slack tells us of the click too, and that is all it is.
  app.action(ACTION_IDS.connect, (async ({ ack }: { ack: () => Promise<void> }) => ack()) as never);
  app.action(new RegExp(`^${ACTION_IDS.followUp}:\\d+$`), clicked((turn, value) => bot.followUp(turn, value)) as never);
  if (approver) {
    const answer = clicked((turn, value, actionId) => approver.click(turn, value, actionId));
    app.action(APPROVAL_ACTION_IDS.approve, answer as never);
    app.action(APPROVAL_ACTION_IDS.deny, answer as never);
  }
}

/**
 * The buttons that take a comment first (Reject on a deployment message): the click opens their form with its
 * trigger_id, and the form sent runs the press with the comment, as the person who sent it, answered where the click
 * would have been. A form closed (Cancel) sends Slack nothing to us, so nothing runs.
 */
function answerCommentButtons(app: BoltApp, bot: SlackBot, log: Logger): void {
  app.action(new RegExp(`^${ACTION_IDS.comment}:\\d+$`), (async ({
    ack,
    body,
    action,
    client,
  }: {
    ack: () => Promise<void>;
    body: BlockAction;
    action: ButtonAction;
    client: BoltApp['client'];
  }) => {
    await ack();
    // The trigger_id works for 3 s: the form is made from the store alone, and everything slow waits for its sending.
    const view = await bot.commentForm(turnOf(body), action.value ?? '');
    if (!view) return;
    await client.views
      .open({ trigger_id: body.trigger_id, view: view as never })
      .catch((error: Error) => log.warn(`slack: could not open a comment form: ${error.message}`));
  }) as never);

  app.view(COMMENT_VIEW, async ({ ack, body, view }) => {
    const origin = commentOrigin(view.private_metadata);
    if (!origin)
      return ack({
        response_action: 'errors',
        errors: { [COMMENT_BLOCK]: 'This form was not opened by this forgeops; press the button again.' },
      });
    const given = commentOf(view.state.values as never);
    if ('error' in given) return ack({ response_action: 'errors', errors: { [COMMENT_BLOCK]: given.error } });
    await ack();
    const turn: Turn = {
      user: { teamId: body.team?.id ?? body.user.team_id ?? '', userId: body.user.id },
      userName: (body.user as { username?: string }).username ?? body.user.name,
      channelId: origin.channelId,
      ...(origin.responseUrl ? { responseUrl: origin.responseUrl } : {}),
    };
    await bot.followUp(turn, origin.ref, given);
  });
}

/** The modals' submissions: a pasted token (token mode) and the release form. */
function answerForms(app: BoltApp, bot: SlackBot): void {
  app.view(LOGIN_VIEW, async ({ ack, body, view }) => {
    const token = view.state.values[TOKEN_BLOCK]?.[TOKEN_INPUT]?.value ?? '';
    const result = await bot.login({ teamId: body.team?.id ?? '', userId: body.user.id }, token);
    if (!result.ok) return ack({ response_action: 'errors', errors: { [TOKEN_BLOCK]: result.error } });
    await ack({
      response_action: 'update',
      view: doneView(`Linked: your commands now run as *${result.username}*.`) as never,
    });
  });

  app.view(RELEASE_VIEW, async ({ ack, body, view }) => {
    const origin = releaseOrigin(view.private_metadata);
    if (!origin)
      return ack({
        response_action: 'errors',
        errors: { id: 'This form was not opened by this forgeops; open it again with /forge release create.' },
      });
    const turn: Turn = {
      user: { teamId: body.team?.id ?? body.user.team_id ?? '', userId: body.user.id },
      userName: (body.user as { username?: string }).username ?? body.user.name,
      ...origin,
    };
    // The service's field errors belong in the form, so the answer waits for the call, but not past Slack's 3 s:
    // a slower call closes the form and its outcome (or error) is posted when it comes.
    const pending = bot.submitRelease(turn, releaseArguments(view.state.values as never));
    let timer: NodeJS.Timeout | undefined;
    const early = await Promise.race([
      pending,
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), FORM_ANSWER_MS);
      }),
    ]);
    clearTimeout(timer);
    if (early?.errors) return ack({ response_action: 'errors', errors: early.errors as Record<string, string> });
    await ack({ response_action: 'clear' });
    await (early ?? (await pending)).post();
  });
}

/** Unfurls links to the code host pasted in a channel (or still in the composer). */
function answerLinks(app: BoltApp, bot: SlackBot): void {
  // Bolt acks events before the listeners run; the unfurl's reads follow.
  app.event('link_shared', async ({ event, body }) => {
    const e = event as {
      user: string;
      channel: string;
      message_ts: string;
      unfurl_id?: string;
      source?: string;
      links: Array<{ url: string }>;
    };
    // A link still in the message composer has no channel message yet (channel "COMPOSER"): Slack names it by unfurl_id.
    const composing = e.source === 'composer' || e.channel === 'COMPOSER' || !e.message_ts;
    if (composing && !(e.unfurl_id && e.source)) return;
    const place = composing ? { unfurl_id: e.unfurl_id!, source: e.source! } : { channel: e.channel, ts: e.message_ts };
    const turn: Turn = {
      user: { teamId: (body as { team_id?: string }).team_id ?? '', userId: e.user },
      channelId: e.channel,
    };
    await bot.unfurl(
      turn,
      (e.links ?? []).map((l) => l.url),
      place,
    );
  });
}
