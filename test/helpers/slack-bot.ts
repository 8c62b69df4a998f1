// Slack bots for the e2e files, started the one way every file needs them: the fake Slack Web API, a data directory
// of their own, the bots themselves on loopback (over HTTP, or in Socket Mode over a loopback WebSocket), Redis when
// they are replicas, people linked through the login form; what a file is about is an option it names.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import type { ApprovalPageStore } from '../../src/approval/page-store.js';
import { type Config, parseConfig } from '../../src/config.js';
import { type Logger, silentLogger } from '../../src/log.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { type SlackBotHandle, startSlackBot } from '../../src/slack/main.js';
import { type RedisServer, startRedis } from './redis.js';
import { useSandbox } from './mcp.js';
import {
  buttonsOf,
  channelCalls,
  clickBody,
  commandBody,
  type FakeSlack,
  loginSubmitBody,
  messageText,
  postSigned,
  type RecordedCall,
  type SignOptions,
  startFakeSlack,
  waitFor,
} from './slack.js';
import { startTestWebSocketServer, type TestWebSocketServer } from './websocket.js';

/** The secret the e2e files sign with, unless one is about another. */
export const TEST_SIGNING_SECRET = 'test-signing-secret';

/** Whose code host token: the sandbox's demo accounts by role. */
export type TokenName = keyof Sandbox['tokens'];

/** A Slack answer or message body. */
export type Body = Record<string, unknown>;

/** A button as a click needs it. */
export interface Pressable {
  action_id: string;
  value: string;
}

/** Who sends a request from where, and to which replica. */
export interface From {
  user?: string;
  channel?: string;
  team?: string;
  /** Which bot gets it (default the first). */
  replica?: number;
}

/** How long an answer on a response_url is waited for: the watch's and the service's work are behind some. */
const ANSWER_MS = 15_000;

interface CommonSetup {
  /** Names the bots' temporary data directories (forgeops-slack-<name>-…). */
  name: string;
  /** How many bots; more than one share a real redis-server started for the file (FORGEOPS_REDIS_URL). Default 1. */
  replicas?: number;
  /** Settings the file is about, by their environment names (SLACK_READ_ONLY_CHANNELS, SLACK_APPROVER, …). */
  settings?: Record<string, string>;
  /** The bots' logger, for a file that reads what they log (default silent). */
  log?: Logger;
}

export interface HttpBotSetup extends CommonSetup {
  /** The signing secret (default TEST_SIGNING_SECRET). */
  secret?: string;
  /** People linked through the login form before the tests: Slack user id → whose code host token they paste. */
  people?: Record<string, TokenName>;
  /** Watching: the service token watches read with (CODEHOST_TOKEN) and how often they look. */
  watch?: { as: TokenName; intervalMs: number };
  /** The bots' clock (signature window, approval expiry); requests are signed at it. Default Date.now. */
  now?: () => number;
  /** Each bot's pending MCP approvals (SLACK_APPROVER is sent each one), by replica. */
  approvals?: (replica: number) => ApprovalPageStore;
}

export interface SocketModeSetup extends CommonSetup {
  /** The token Socket Mode reads with for people who linked nothing (SLACK_SHARED_READ_TOKEN). */
  sharedRead: TokenName;
}

/** The settings every test bot starts from: the sandbox with no retries (tests count requests), the fake Slack. */
function baseSettings(sandbox: Sandbox, slack: FakeSlack, dataDir: string): Record<string, string> {
  return {
    CODEHOST_URL: sandbox.url,
    CODEHOST_MAX_RETRIES: '0',
    SLACK_BOT_TOKEN: 'xoxb-test',
    SLACK_API_URL: slack.apiUrl,
    FORGEOPS_DATA_DIR: dataDir,
    FORGEOPS_SECRET: 'k'.repeat(40),
  };
}

/** What both kinds share: the fake Slack, data directories, Redis, and the getters that say when one is missing. */
function useSlackParts(setup: CommonSetup) {
  let slack: FakeSlack | undefined;
  let redis: RedisServer | undefined;
  const dirs: string[] = [];
  const bots: SlackBotHandle[] = [];
  const replicas = setup.replicas ?? 1;
  beforeAll(async () => {
    if (replicas > 1) redis = await startRedis();
    slack = await startFakeSlack();
  });
  afterAll(async () => {
    for (const bot of bots) await bot.close();
    await slack?.close();
    await redis?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  const got = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is not running`);
    return value;
  };
  return {
    bots,
    replicas,
    get slack() {
      return got(slack, 'the fake Slack');
    },
    get redis() {
      return got(redis, 'redis-server (only replicas have one)');
    },
    /**
     * Replica `i`'s settings: its own data directory, the shared Redis and a replica id when there are several, then
     * the kind's own, then the file's.
     */
    settingsOf(sandbox: Sandbox, i: number, own: Record<string, string>): Record<string, string> {
      const dir = mkdtempSync(join(tmpdir(), `forgeops-slack-${setup.name}-`));
      dirs.push(dir);
      return {
        ...baseSettings(sandbox, got(slack, 'the fake Slack'), dir),
        ...(redis ? { FORGEOPS_REDIS_URL: redis.url } : {}),
        ...(replicas > 1 ? { FORGEOPS_REPLICA_ID: `r${i + 1}` } : {}),
        ...own,
        ...setup.settings,
      };
    },
    dirs,
  };
}

/**
 * Slack bots over HTTP in this process, one per replica, for the tests of this file (or describe): started before
 * them, people linked, and closed after them with everything they started. Requests go to them signed as Slack signs.
 */
export function useSlackBot(env: { readonly sandbox: Sandbox }, setup: HttpBotSetup) {
  const secret = setup.secret ?? TEST_SIGNING_SECRET;
  const now = setup.now ?? Date.now;
  const parts = useSlackParts(setup);
  const configs: Config[] = [];

  const start = (i: number) =>
    startSlackBot(configs[i], setup.log ?? silentLogger, {
      port: 0,
      host: '127.0.0.1',
      ...(setup.now ? { now: setup.now } : {}),
      ...(setup.approvals ? { approvals: setup.approvals(i) } : {}),
    });

  const harness = {
    secret,
    get slack(): FakeSlack {
      return parts.slack;
    },
    get redis(): RedisServer {
      return parts.redis;
    },
    /** The first bot (the only one unless there are replicas). */
    get bot(): SlackBotHandle {
      return harness.bots[0];
    },
    get bots(): SlackBotHandle[] {
      if (parts.bots.length === 0) throw new Error('the Slack bot is not running');
      return parts.bots;
    },
    /** The first bot's data directory (its state and audit files). */
    get dataDir(): string {
      return parts.dirs[0];
    },

    /** Posts a body to a bot, signed at the bots' clock unless the options say otherwise; its status and text. */
    post(body: string, o: Partial<SignOptions> & { replica?: number } = {}) {
      const { replica = 0, ...sign } = o;
      return postSigned(harness.bots[replica].url!, body, {
        secret,
        timestamp: Math.floor(now() / 1000),
        ...sign,
      });
    },

    /** Links `user`'s Slack account to a code host token through the login form. */
    async link(user: string, token: string, o: { replica?: number } = {}): Promise<void> {
      expectLinked(await harness.post(loginSubmitBody(token, { user }), o));
    },

    /** Sends a slash command as Slack does: its ack, its first answer, and the response_url the answers come to. */
    async ask(text: string, o: From = {}) {
      const responseUrl = parts.slack.responseUrl();
      const ack = await harness.post(commandBody(text, { ...o, responseUrl }), { replica: o.replica });
      expect(ack.status).toBe(200);
      const path = new URL(responseUrl).pathname;
      const body = await harness.answer(path, `an answer to "${text}"`);
      return { ack, body, responseUrl, path };
    },

    /** A slash command's first answer. */
    async command(text: string, o: From = {}): Promise<Body> {
      return (await harness.ask(text, o)).body;
    },

    /** Clicks a button as Slack sends the click; the path of the response_url its answers come to. */
    async click(button: Pressable, o: From & { responseUrl?: string } = {}): Promise<string> {
      const responseUrl = o.responseUrl ?? parts.slack.responseUrl();
      const sent = await harness.post(clickBody(button.action_id, button.value, { ...o, responseUrl }), {
        replica: o.replica,
      });
      expect(sent.status).toBe(200);
      return new URL(responseUrl).pathname;
    },

    /** A click's first answer. */
    async press(button: Pressable, o: From = {}): Promise<Body> {
      return harness.answer(await harness.click(button, o), `the answer to ${o.user ?? 'U1'}'s press`);
    },

    /** Everything answered on a response_url path so far. */
    answersTo(path: string): Body[] {
      return parts.slack.responses.filter((r) => r.path === path).map((r) => r.body);
    },

    /** The first answer on a response_url path, waited for. */
    answer(path: string, what = 'the answer'): Promise<Body> {
      return waitFor(() => harness.answersTo(path)[0], ANSWER_MS, what);
    },

    /** At least `count` answers on a response_url path, waited for; all of them. */
    async answers(path: string, count: number, what = `${count} answers`): Promise<Body[]> {
      await waitFor(() => harness.answersTo(path).length >= count || undefined, ANSWER_MS, what);
      return harness.answersTo(path);
    },

    /** Stops a bot and starts it again on the same settings (its data directory, its Redis): a restart. */
    async restart(replica = 0): Promise<void> {
      await parts.bots[replica].close();
      parts.bots[replica] = await start(replica);
    },
  };

  beforeAll(async () => {
    for (let i = 0; i < parts.replicas; i++) {
      configs.push(parseConfig(parts.settingsOf(env.sandbox, i, httpSettings(env.sandbox, setup))));
      parts.bots.push(await start(i));
    }
    for (const [user, token] of Object.entries(setup.people ?? {})) await harness.link(user, env.sandbox.tokens[token]);
  });
  return harness;
}

/** The Slack bots of a file, as useSlackBot gives them. */
export type SlackBots = ReturnType<typeof useSlackBot>;

/**
 * The incident files' set-up: a sandbox whose jobs take 0.3 of their usual seconds (a pipeline ends in about 5 s, a
 * retried test runs about 2 s, which the watch sees running: a press asks it to look at once), a bot whose watches
 * read with the reporter's token every second, `people` linked, and what it sends to channel C1.
 */
export function useWatchedChannel(name: string, people: Record<string, TokenName>) {
  const env = useSandbox({ jobTimeScale: 0.3 });
  const bots = useSlackBot(env, { name, people, watch: { as: 'reporter', intervalMs: 1000 } });
  const channel = channelCalls(() => bots.slack, 'C1');
  /**
   * Presses Retry (the first button) on the incident message `incident`, whose ts is `ts`, as `user`; waits for the
   * press in its thread, then the update that shows the retry running and the one that says it is still red.
   */
  async function retryUntilStillRed(incident: RecordedCall, ts: unknown, user = 'U1') {
    await bots.click(buttonsOf(incident.args)[0], { user });
    const pressed = await waitFor(
      () => channel.threadOf(ts).find((c) => messageText(c.args).includes(`<@${user}> pressed *Retry failed jobs*`)),
      15_000,
      'the press in the thread',
    );
    const updateSaying = (text: string, what: string) =>
      waitFor(() => channel.updatesOf(ts).find((c) => messageText(c.args).includes(text)), 30_000, what);
    const running = await updateSaying('retrying… pipeline #', 'the running update');
    const stillRed = await updateSaying('still red after the retry', 'the still-red update');
    return { pressed, running, stillRed };
  }
  return { env, bots, ...channel, retryUntilStillRed };
}

/** The login form's answer when the token was taken: the form turns into "linked". */
function expectLinked(answer: { text: string }): void {
  expect(JSON.parse(answer.text)).toMatchObject({ response_action: 'update' });
}

/**
 * Links people through the login form at a Slack events URL (a bot, or a balancer in front of replicas):
 * Slack user id → whose code host token they paste.
 */
export async function linkPeople(
  url: string,
  people: Record<string, TokenName>,
  o: { sandbox: Sandbox; secret: string },
): Promise<void> {
  for (const [user, token] of Object.entries(people))
    expectLinked(await postSigned(url, loginSubmitBody(o.sandbox.tokens[token], { user }), { secret: o.secret }));
}

/**
 * Presses an incident message's Revert as `user`, approving it when the policy asks first, and waits until the
 * message's thread says the merge request was opened; the first answer to the press.
 */
export async function revertAsMergeRequest(
  bots: SlackBots,
  revert: Pressable,
  o: { user: string; thread: () => RecordedCall[]; what: string },
): Promise<Body> {
  const first = await bots.press(revert, { user: o.user });
  const approve = buttonsOf(first).find((b) => b.action_id === 'forge_confirm');
  if (approve) await bots.press(approve, { user: o.user });
  const opened = new RegExp(
    `<@${o.user}> (pressed|approved) \\*Revert [0-9a-f]{8} as a merge request\\* → Opened merge request`,
  );
  await waitFor(() => o.thread().find((c) => opened.test(messageText(c.args))), ANSWER_MS, o.what);
  return first;
}

/** What a bot over HTTP adds: the secret Slack signs with, and watching when the file watches. */
function httpSettings(sandbox: Sandbox, setup: HttpBotSetup): Record<string, string> {
  return {
    SLACK_SIGNING_SECRET: setup.secret ?? TEST_SIGNING_SECRET,
    ...(setup.watch
      ? {
          CODEHOST_TOKEN: sandbox.tokens[setup.watch.as],
          FORGEOPS_WATCH_INTERVAL_MS: String(setup.watch.intervalMs),
        }
      : {}),
  };
}

/**
 * Slack bots in Socket Mode, one per replica: apps.connections.open on the fake Web API hands each the URL of a
 * loopback WebSocket server that says Slack's hello on every connection; the test plays Slack's end on `ws.sockets`.
 */
export function useSocketModeBot(env: { readonly sandbox: Sandbox }, setup: SocketModeSetup) {
  const parts = useSlackParts(setup);
  let ws: TestWebSocketServer | undefined;
  beforeAll(async () => {
    ws = await startTestWebSocketServer((socket) =>
      socket.send(
        JSON.stringify({
          type: 'hello',
          num_connections: parts.replicas,
          connection_info: { app_id: 'A1' },
          debug_info: { host: 'test' },
        }),
      ),
    );
    parts.slack.socketUrl = ws.url;
    for (let i = 0; i < parts.replicas; i++) {
      const config = parseConfig(
        parts.settingsOf(env.sandbox, i, {
          SLACK_APP_TOKEN: 'xapp-1-test',
          SLACK_SHARED_READ_TOKEN: env.sandbox.tokens[setup.sharedRead],
        }),
      );
      // On loopback, on a port of its own: with Connect on, Socket Mode listens for the browser's pages.
      parts.bots.push(await startSlackBot(config, setup.log ?? silentLogger, { port: 0, host: '127.0.0.1' }));
    }
  });
  // Registered after the parts' own: it runs before them, so the bots close while their sockets are still up.
  afterAll(async () => {
    for (const bot of parts.bots.splice(0)) await bot.close();
    await ws?.close();
  });
  return {
    get slack(): FakeSlack {
      return parts.slack;
    },
    get ws(): TestWebSocketServer {
      if (!ws) throw new Error('the Socket Mode server is not running');
      return ws;
    },
    get bots(): SlackBotHandle[] {
      return parts.bots;
    },
    get bot(): SlackBotHandle {
      return parts.bots[0];
    },
  };
}
