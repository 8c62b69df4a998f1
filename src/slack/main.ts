// The Slack bot started: the configured service (or the embedded sandbox, or serve's), the state store and the Bolt app,
// on a port of its own (`forgeops slack`) or as a listener `forgeops serve` mounts.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { operations } from '../operations/index.js';
import { DurableApprovals } from '../approval/binding.js';
import { SANDBOX_DEFAULT_ROLE, createRuntime, forgeopsUrl, type Runtime, type SandboxInfo } from '../runtime.js';
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
import { slackSettings } from './settings.js';
import { SlackApprover } from '../approval/slack.js';
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
  const state = await openConfiguredStore(
    { redisUrl: config.redisUrl, dataDir: settings.dataDir },
    { onWriteError: (error) => log.error(`slack: cannot write the state file: ${error.message}`) },
  );
  const { store } = state;
  log.info(`slack: state in ${state.where}${state.shared ? ', shared with every replica' : ''}`);
  if (!state.shared && !settings.dataDir)
    log.warn(
      'FORGEOPS_DATA_DIR is not set: linked accounts and pending approvals live in memory and are lost on restart',
    );
  if (state.shared && !(await state.ready()))
    log.error(`slack: ${state.where} does not answer yet: commands that need the state fail until it does`);
  if (!settings.secret)
    log.warn('FORGEOPS_SECRET is not set: /forge login is refused (tokens are never stored unencrypted)');
  // Where browsers reach this bot: FORGEOPS_PUBLIC_URL, else serve's address, else the bot's own port once it listens.
  let listening: string | undefined;
  const publicUrl = () =>
    (
      config.identity.publicUrl ??
      options.publicUrl?.() ??
      listening ??
      forgeopsUrl(options.host ?? '127.0.0.1', options.port ?? 0)
    ).replace(/\/+$/, '');
  const runtime =
    options.runtime ??
    // The embedded sandbox's "forgeops" application sends people back to this bot's callback.
    (await createRuntime(config, log, { publicUrl: publicUrl() }));
  const closeRuntime = options.runtime ? async () => {} : () => runtime.close();
  const sandbox = runtime.sandbox;
  const sandboxInfo = sandbox ? await sandbox() : undefined;
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
  let app: SlackApp | undefined;
  const responses = new ResponseUrls(log);
  const queue = new PostQueue({ log, post: (args) => app!.bolt.client.chat.postMessage(args as never) });
  // The incident messages go through a durable outbox that does its own backoff: its client retries nothing itself.
  const web = new webApi.WebClient(settings.botToken, {
    ...(settings.apiUrl ? { slackApiUrl: `${settings.apiUrl}/` } : {}),
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: 10_000,
  });
  let incidents: IncidentMessages | undefined;
  const outbox = new Outbox({
    store,
    log,
    slack: outboxSlackOf(web),
    onChannelGone: (subscriber, reason) => incidents!.channelGone(subscriber, reason),
    ...(config.server.replicaId ? { holder: `${config.server.replicaId}:${process.pid}` } : {}),
  });
  incidents = new IncidentMessages({ store, outbox, identities, log });
  const watches = await startWatchHub({ config, log, runtime, state, operations, sinks: [incidents] });
  incidents.attach(watches);
  const bot = new SlackBot({
    operations,
    client: runtime.client,
    settings,
    store,
    identities,
    approvals: new DurableApprovals(store, {
      maxPerRequester: MAX_APPROVALS_PER_USER,
      maxPending: MAX_APPROVALS_OVERALL,
      now: options.now,
    }),
    audit: new AuditLog(settings.dataDir, log),
    responses,
    queue,
    web: {
      postEphemeral: (args) => app!.bolt.client.chat.postEphemeral(args as never),
      unfurl: (args) => app!.bolt.client.chat.unfurl(args as never),
    },
    explain: {
      operations,
      deadline: { ms: config.callTimeoutMs, setting: 'FORGEOPS_CALL_TIMEOUT_MS' },
      // Each person's commands run with the account they linked, not with forgeops's own settings.
      service: config.codehost.url
        ? {
            ...runtime.service,
            tokenSource: 'the account linked to your Slack user',
            renew: 'type `/forge login` to link it again',
          }
        : runtime.service,
    },
    callTimeoutMs: config.callTimeoutMs,
    log,
    baseUrl: config.codehost.url ?? sandboxInfo?.url,
    watches: { hub: watches, incidents },
    ...(connect ? { connect } : {}),
  });
  const pages = connect
    ? new SlackConnectPages({ connect, onFinished: (finished) => bot.connected(finished), log })
    : undefined;
  const approver =
    settings.approver && options.approvals
      ? new SlackApprover({
          store: options.approvals,
          approver: settings.approver,
          log,
          workspace: async () => (await app!.bolt.client.auth.test()).team_id,
          post: (channel, message) => queue.post(channel, message),
          reply: (turn, message, { replaceOriginal }) =>
            turn.responseUrl ? responses.send(turn.responseUrl, message, { replaceOriginal }) : Promise.resolve(false),
        })
      : undefined;
  if (settings.approver && !options.approvals)
    log.warn(
      'SLACK_APPROVER is set, but only `forgeops serve` with FORGEOPS_APPROVAL elicit or page has calls to approve',
    );
  const readiness = new ReadinessProbe([
    serviceCheck(runtime.client, runtime.service.address),
    storeCheck(state),
    watchCheck(watches),
  ]);
  app = createSlackApp({
    settings,
    bot,
    log,
    now: options.now,
    approver,
    readiness,
    ...(state.shared ? { seen: store } : {}),
    ...(pages ? { pages: pages.handle } : {}),
  });
  const mounted = app.receiver && options.listen === false;
  let started: { url?: string } = {};
  let pageListener: { url: string; close(): Promise<void> } | undefined;
  try {
    if (!mounted) started = await app.start(options.port, options.host);
    if (started.url) listening = new URL(started.url).origin;
    // Socket Mode needs no port for Slack, but the browser must reach the Connect pages and the callback.
    if (pages && !app.receiver && options.listen !== false) {
      pageListener = await listenForPages(pages, readiness, options.port, options.host);
      listening = pageListener.url;
      log.info(
        `slack: Connect pages at ${pageListener.url}${CONNECT_PATH_SHOWN} (browsers reach them at ${publicUrl()})`,
      );
    }
  } catch (error) {
    await pageListener?.close();
    await app.stop();
    await outbox.close();
    await watches.close();
    await closeRuntime();
    await store.close();
    throw error;
  }
  outbox.start();
  if (!mounted)
    log.info(settings.appToken ? 'slack: connected by Socket Mode' : `slack: listening for Slack on ${started.url}`);
  if (connect) log.info(`slack: Connect links on; the code host sends people back to ${publicUrl()}/oauth/callback`);
  return {
    url: started.url,
    ...(listening ? { webUrl: listening } : {}),
    ...(mounted ? { handle: app.receiver!.handle } : {}),
    ...(pages
      ? {
          connect: {
            paths: SlackConnectPages.paths,
            handle: (req: IncomingMessage, res: ServerResponse) => {
              void pages.handle(req, res).then((answered) => {
                if (!answered) res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
              });
            },
            handleSlackConnectCallback: pages.handleSlackConnectCallback,
          },
        }
      : {}),
    app,
    state,
    watches,
    async close() {
      readiness.drain();
      await watches.close();
      await outbox.close();
      queue.close();
      await pageListener?.close();
      await app!.stop();
      await store.close();
      await closeRuntime();
    },
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
