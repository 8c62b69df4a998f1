// The Slack bot started: the configured service (or the embedded sandbox, or serve's), the state store and the Bolt app,
// on a port of its own (`forgeops slack`) or as a listener `forgeops serve` mounts.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { operations } from '../operations/index.js';
import { DurableApprovals } from '../approval/binding.js';
import { forgeopsUrl } from '../http/addresses.js';
import type { SandboxInfo } from '../identity/application.js';
import { SANDBOX_DEFAULT_ROLE, createRuntime, type Runtime } from '../runtime.js';
import { codeHostApplication } from '../identity/application.js';
import { codeHostFetch } from '../http/code-host-fetch.js';
import { CodeHostOAuth } from '../identity/code-host-oauth.js';
import { TokenVault } from '../identity/token-vault.js';
import { createListener } from '../http/listener.js';
import type { AddressInfo } from 'node:net';
import { SlackConnect } from './connect.js';
import { SlackConnectPages } from './connect-pages.js';
import { createSlackApp, type SlackApp } from './app.js';
import { AuditLog } from './audit.js';
import { SlackBot } from './bot.js';
import { Identities } from './identity.js';
import { PostQueue, ResponseUrls } from './replies.js';
import { Sealer } from './sealed.js';
import { type SlackSettings, slackSettings } from './settings.js';
import { SlackApprover } from './approver.js';
import type { ApprovalPageStore } from '../approval/page-store.js';
import { ReadinessProbe, answerHealth, serviceCheck, storeCheck, watchCheck } from '../health.js';
import { openConfiguredStore, type OpenedStore } from '../state/store.js';
import type { WatchHub } from '../watch/hub.js';
import { startWatchHub } from '../watch/start.js';
import { webApi } from '@slack/bolt';
import { Outbox, outboxSlackOf } from './incident/outbox.js';
import { IncidentMessages } from './incident/sink.js';

/** Pending approvals: per person, and over everyone (each is a stranger-made entry in the store). */
const MAX_APPROVALS_PER_USER = 5;
const MAX_APPROVALS_OVERALL = 1_000;

export interface SlackBotHandle {
  /** The events URL in HTTP mode, when it listens on its own port. */
  url?: string;
  /** The events endpoint as a request listener, for another server to mount (HTTP mode with `listen: false`). */
  handle?: (req: IncomingMessage, res: ServerResponse) => void;
  /**
   * The Connect pages (when Connect is on): `paths` to mount on another server (`/connect/` as a prefix and
   * `/oauth/callback`) with `handle`, and `handleSlackConnectCallback` for a callback shared with other sign-ins.
   */
  connect?: {
    paths: readonly string[];
    handle: (req: IncomingMessage, res: ServerResponse) => void;
    handleSlackConnectCallback: (url: URL) => Promise<Response | undefined>;
  };
  /** Where browsers reach the bot's own listener (HTTP mode, or Socket Mode with Connect on), when it has one. */
  webUrl?: string;
  app: SlackApp;
  /** Where the bot's state lives, and whether it answers (readiness). */
  state: OpenedStore;
  /** The watched branches: channels subscribe with /forge watch; serve's MCP status resources listen to it too. */
  watches: WatchHub;
  close(): Promise<void>;
}

interface SlackBotOptions {
  port?: number;
  host?: string;
  /** One clock for the signature window and approval expiry (tests move it). */
  now?: () => number;
  /** The service (and sandbox) of the process it runs in (forgeops serve); it is not closed with the bot. */
  runtime?: Runtime;
  /** false: no port of its own in HTTP mode; the caller mounts `handle` (forgeops serve). */
  listen?: boolean;
  /** The MCP calls waiting for approval (forgeops serve): SLACK_APPROVER is sent each one. */
  approvals?: ApprovalPageStore;
  /** forgeops's address as browsers reach the server it is mounted on (serve's), unless FORGEOPS_PUBLIC_URL says. */
  publicUrl?: () => string;
}

/**
 * Connect links when forgeops has an application at the code host (the sandbox's, or FORGEOPS_OAUTH_CLIENT_ID) and
 * FORGEOPS_SECRET to encrypt the code host's tokens with: undefined otherwise (people paste tokens, as before).
 */
function connectParts(
  config: Config,
  store: OpenedStore['store'],
  sandboxInfo: SandboxInfo | undefined,
  publicUrl: () => string,
) {
  if (!config.secret) return undefined;
  const application = (url: string) => codeHostApplication(config, url, sandboxInfo);
  const first = application(publicUrl());
  if (!first) return undefined;
  // The redirect URI holds forgeops's public address, known for sure only once it listens: the sign-in's client is
  // made again when that address differs from the one it was made with. Refresh and revoke do not use it.
  // Sent through the API's proxy and CA file, as every request to the code host.
  const send = { fetch: codeHostFetch(config.codehost) };
  let made = { url: publicUrl(), oauth: new CodeHostOAuth(first, send) };
  const oauth = () => {
    const url = publicUrl();
    if (url !== made.url) made = { url, oauth: new CodeHostOAuth(application(url) ?? first, send) };
    return made.oauth;
  };
  const vault = new TokenVault({ store, secret: config.secret, oauth: made.oauth });
  return { vault, oauth };
}

export async function startSlackBot(
  config: Config,
  log: Logger,
  options: SlackBotOptions = {},
): Promise<SlackBotHandle> {
  const settings = slackSettings(config, operations);
  const state = await openSlackState(config, log, settings);
  // Where browsers reach this bot: FORGEOPS_PUBLIC_URL, else serve's address, else the bot's own port once it listens.
  const where: { listening?: string } = {};
  const publicUrl = () =>
    (
      config.identity.publicUrl ??
      options.publicUrl?.() ??
      where.listening ??
      forgeopsUrl(options.host ?? '127.0.0.1', options.port ?? 0)
    ).replace(/\/+$/, '');
  const runtime =
    options.runtime ??
    // The embedded sandbox's "forgeops" application sends people back to this bot's callback.
    (await createRuntime(config, log, { publicUrl: publicUrl(), ownPort: options.port }));
  const closeRuntime = options.runtime ? async () => {} : () => runtime.close();
  const sandboxInfo = runtime.sandbox ? await runtime.sandbox() : undefined;
  const people = slackPeople(config, log, settings, state.store, runtime, sandboxInfo, publicUrl);
  // The Bolt app is made last (it needs the bot); what posts through it reaches it once it exists.
  const late: { app?: SlackApp } = {};
  const responses = new ResponseUrls(log);
  const queue = new PostQueue({ log, post: (args) => late.app!.bolt.client.chat.postMessage(args as never) });
  const { outbox, incidents, watches } = await startIncidents(config, log, settings, state, runtime, people.identities);
  const bot = new SlackBot({
    operations,
    client: runtime.client,
    settings,
    store: state.store,
    identities: people.identities,
    approvals: new DurableApprovals(state.store, {
      maxPerRequester: MAX_APPROVALS_PER_USER,
      maxPending: MAX_APPROVALS_OVERALL,
      now: options.now,
    }),
    audit: new AuditLog(settings.dataDir, log),
    responses,
    queue,
    web: {
      postEphemeral: (args) => late.app!.bolt.client.chat.postEphemeral(args as never),
      unfurl: (args) => late.app!.bolt.client.chat.unfurl(args as never),
    },
    explain: slackExplain(config, runtime),
    callTimeoutMs: config.callTimeoutMs,
    log,
    baseUrl: config.codehost.url ?? sandboxInfo?.url,
    watches: { hub: watches, incidents },
    ...(people.connect ? { connect: people.connect } : {}),
  });
  const pages = people.connect
    ? new SlackConnectPages({ connect: people.connect, onFinished: (finished) => bot.connected(finished), log })
    : undefined;
  const approver = slackApprover(log, settings, options, queue, responses, late);
  const readiness = new ReadinessProbe([
    serviceCheck(runtime.client, runtime.service.address),
    storeCheck(state),
    watchCheck(watches),
  ]);
  const app = createSlackApp({
    settings,
    bot,
    log,
    now: options.now,
    approver,
    readiness,
    ...(state.shared ? { seen: state.store } : {}),
    ...(pages ? { pages: pages.handle } : {}),
  });
  late.app = app;
  const mounted = app.receiver !== undefined && options.listen === false;
  const closeAll = async () => {
    await app.stop();
    await outbox.close();
    await watches.close();
    await closeRuntime();
    await state.store.close();
  };
  const { started, pageListener } = await listenSlack(
    app,
    pages,
    readiness,
    options,
    mounted,
    where,
    publicUrl,
    log,
  ).catch(async (error: unknown) => {
    await closeAll();
    throw error;
  });
  outbox.start();
  if (!mounted)
    log.info(settings.appToken ? 'slack: connected by Socket Mode' : `slack: listening for Slack on ${started.url}`);
  if (people.connect)
    log.info(`slack: Connect links on; the code host sends people back to ${publicUrl()}/oauth/callback`);
  return {
    url: started.url,
    ...(where.listening ? { webUrl: where.listening } : {}),
    ...(mounted ? { handle: app.receiver!.handle } : {}),
    ...(pages ? { connect: connectMount(pages) } : {}),
    app,
    state,
    watches,
    async close() {
      readiness.drain();
      await watches.close();
      await outbox.close();
      queue.close();
      await pageListener?.close();
      await app.stop();
      await state.store.close();
      await closeRuntime();
    },
  };
}

/** The bot's store (Redis when replicas share one, else a file or memory), with what its choice means said once. */
async function openSlackState(config: Config, log: Logger, settings: SlackSettings) {
  const state = await openConfiguredStore(
    { redisUrl: config.redisUrl, dataDir: settings.dataDir },
    { onWriteError: (error) => log.error(`slack: cannot write the state file: ${error.message}`) },
  );
  log.info(`slack: state in ${state.where}${state.shared ? ', shared with every replica' : ''}`);
  if (!state.shared && !settings.dataDir)
    log.warn(
      'FORGEOPS_DATA_DIR is not set: linked accounts and pending approvals live in memory and are lost on restart',
    );
  if (state.shared && !(await state.ready()))
    log.error(`slack: ${state.where} does not answer yet: commands that need the state fail until it does`);
  if (!settings.secret)
    log.warn('FORGEOPS_SECRET is not set: /forge login is refused (tokens are never stored unencrypted)');
  return state;
}

/** Who a Slack user acts as: their linked token or Connect sign-in, the sandbox's demo account, or a shared reader. */
function slackPeople(
  config: Config,
  log: Logger,
  settings: SlackSettings,
  store: OpenedStore['store'],
  runtime: Runtime,
  sandboxInfo: SandboxInfo | undefined,
  publicUrl: () => string,
) {
  const sandbox = runtime.sandbox;
  const signIn = connectParts(config, store, sandboxInfo, publicUrl);
  if (!signIn && (sandbox || config.identity.clientId) && !config.secret)
    log.warn('FORGEOPS_SECRET is not set: Slack users cannot connect their accounts through the code host');
  const identities = new Identities({
    store,
    sealer: settings.secret ? new Sealer(settings.secret) : undefined,
    // Against the embedded sandbox a trial needs no token: unlinked users act as its demo maintainer.
    sandboxToken: sandbox ? async () => (await sandbox()).tokens[SANDBOX_DEFAULT_ROLE] : undefined,
    sharedReadToken: settings.sharedReadToken,
    ...(signIn ? { vault: signIn.vault } : {}),
  });
  const connect = signIn
    ? new SlackConnect({ store, identities, oauth: signIn.oauth, vault: signIn.vault, publicUrl, log })
    : undefined;
  return { identities, connect };
}

/** The watches and the incident messages they post, through a durable outbox with a client of its own. */
async function startIncidents(
  config: Config,
  log: Logger,
  settings: SlackSettings,
  state: OpenedStore,
  runtime: Runtime,
  identities: Identities,
) {
  const { store } = state;
  // The incident messages go through a durable outbox that does its own backoff: its client retries nothing itself.
  const web = new webApi.WebClient(settings.botToken, {
    ...(settings.apiUrl ? { slackApiUrl: `${settings.apiUrl}/` } : {}),
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: 10_000,
  });
  const late: { incidents?: IncidentMessages } = {};
  const outbox = new Outbox({
    store,
    log,
    slack: outboxSlackOf(web),
    onChannelGone: (subscriber, reason) => late.incidents!.channelGone(subscriber, reason),
    ...(config.server.replicaId ? { holder: `${config.server.replicaId}:${process.pid}` } : {}),
  });
  const incidents = new IncidentMessages({ store, outbox, identities, log });
  late.incidents = incidents;
  const watches = await startWatchHub({ config, log, runtime, state, operations, sinks: [incidents] });
  incidents.attach(watches);
  return { outbox, incidents, watches };
}

/** How failures are explained: each person's commands run with the account they linked, not forgeops's settings. */
function slackExplain(config: Config, runtime: Runtime) {
  return {
    operations,
    deadline: { ms: config.callTimeoutMs, setting: 'FORGEOPS_CALL_TIMEOUT_MS' },
    service: config.codehost.url
      ? {
          ...runtime.service,
          tokenSource: 'the account linked to your Slack user',
          renew: 'type `/forge login` to link it again',
        }
      : runtime.service,
  };
}

/** SLACK_APPROVER: the person sent each MCP call that waits for approval (only serve has such calls). */
function slackApprover(
  log: Logger,
  settings: SlackSettings,
  options: SlackBotOptions,
  queue: PostQueue,
  responses: ResponseUrls,
  late: { app?: SlackApp },
) {
  if (settings.approver && !options.approvals)
    log.warn(
      'SLACK_APPROVER is set, but only `forgeops serve` with FORGEOPS_APPROVAL elicit or page has calls to approve',
    );
  if (!settings.approver || !options.approvals) return undefined;
  return new SlackApprover({
    store: options.approvals,
    approver: settings.approver,
    log,
    workspace: async () => (await late.app!.bolt.client.auth.test()).team_id,
    post: (channel, message) => queue.post(channel, message),
    reply: (turn, message, { replaceOriginal }) =>
      turn.responseUrl ? responses.send(turn.responseUrl, message, { replaceOriginal }) : Promise.resolve(false),
  });
}

/**
 * Starts Slack's side (its HTTP port, or Socket Mode), and in Socket Mode a listener of its own for the Connect pages
 * the browser must reach; serve mounts both instead.
 */
async function listenSlack(
  app: SlackApp,
  pages: SlackConnectPages | undefined,
  readiness: ReadinessProbe,
  options: SlackBotOptions,
  mounted: boolean,
  where: { listening?: string },
  publicUrl: () => string,
  log: Logger,
) {
  let started: { url?: string } = {};
  let pageListener: { url: string; close(): Promise<void> } | undefined;
  try {
    if (!mounted) started = await app.start(options.port, options.host);
    if (started.url) where.listening = new URL(started.url).origin;
    if (pages && !app.receiver && options.listen !== false) {
      pageListener = await listenForPages(pages, readiness, options.port, options.host);
      where.listening = pageListener.url;
      log.info(
        `slack: Connect pages at ${pageListener.url}${CONNECT_PATH_SHOWN} (browsers reach them at ${publicUrl()})`,
      );
    }
  } catch (error) {
    await pageListener?.close();
    throw error;
  }
  return { started, pageListener };
}

/** The Connect pages as serve mounts them: any path of theirs they do not answer is a 404. */
function connectMount(pages: SlackConnectPages) {
  return {
    paths: SlackConnectPages.paths,
    handle: (req: IncomingMessage, res: ServerResponse) => {
      void pages.handle(req, res).then((answered) => {
        if (!answered) res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      });
    },
    handleSlackConnectCallback: pages.handleSlackConnectCallback,
  };
}

const CONNECT_PATH_SHOWN = '/connect/…';

/** The bot's own HTTP listener in Socket Mode: the Connect pages and the probes, nothing of Slack's. */
export async function listenForPages(
  pages: Pick<SlackConnectPages, 'handle'>,
  readiness: ReadinessProbe,
  port = 3000,
  host = '127.0.0.1',
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createListener((req, res) => {
    void (async () => {
      if (await answerHealth(req, res, readiness)) return;
      if (!(await pages.handle(req, res))) res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: forgeopsUrl(address.address, address.port),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
