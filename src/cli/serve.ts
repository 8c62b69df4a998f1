// `forgeops serve`: the MCP server over Streamable HTTP, with what runs beside it: sign-in, the approval page, the Slack
// bot, the state store shared by replicas, the watches and the pipeline webhook. Each part set up by one function.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApprovalPageStore } from '../approval/page-store.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { McpServerOptions } from '../mcp/server.js';
import type { SessionOwner } from '../mcp/http/sessions.js';
import type { Runtime } from '../runtime.js';
import type { StateStore } from '../state/store.js';
import { type ParsedOptions, portOption, stringOption } from './commands.js';
import { listenError, setup, toolSelection, usesApprovalPage } from './setup.js';

/** How long a stopping `serve` lets calls in flight finish: under the usual 30 s an orchestrator waits after SIGTERM. */
const DRAIN_GRACE_MS = 25_000;

export async function serveHttp(values: ParsedOptions): Promise<void> {
  const { config, log, secrets } = await setup(stringOption(values, 'env-file'));
  const host = stringOption(values, 'host') ?? config.server.host;
  const port = portOption(values, 'serve') ?? config.server.port;
  // Where serve is reached: the port asked for until it listens, then the one it got (port 0 picks one).
  const where: ServeAddress = { host, port };
  const parts = await serveParts(config, values, log, where);
  const http = await listenServe(config, log, secrets, where, parts);
  await announceServe(config, log, where, parts, http);
  const stop = () => stopServe(log, parts, http);
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

interface ServeAddress {
  host: string;
  port: number;
  /** The origin browsers reach serve at (the Slack bot's Connect pages are mounted here), once it listens. */
  servedAt?: string;
}

/** What serve is made of before it listens: the service, the catalog, approvals, Slack, the store, watches, sign-in. */
async function serveParts(config: Config, values: ParsedOptions, log: Logger, where: ServeAddress) {
  const [{ createRuntime }, { forgeopsUrl }, { operations }, { catalogOf }, { mcpAuthMode }] = await Promise.all([
    import('../runtime.js'),
    import('../http/addresses.js'),
    import('../operations/index.js'),
    import('../mcp/catalog.js'),
    import('../identity/serve-sign-in.js'),
  ]);
  // One catalog for every session: each tool's descriptor is built once, not per session.
  const catalog = catalogOf(operations);
  const selection = await toolSelection(config, values, operations);
  const approvals = await approvalPageForServe(config, where.host, log);
  // The sandbox's "forgeops" application sends people back to this server's callback.
  const runtime = await createRuntime(config, log, {
    publicUrl: config.identity.publicUrl ?? forgeopsUrl(where.host, where.port),
    ownPort: where.port,
  });
  const slack = await startSlackBeside(
    config,
    log,
    runtime,
    approvals?.store,
    () => where.servedAt ?? forgeopsUrl(where.host, where.port),
  );
  const { state, readiness, replicas, watches } = await serveStateAndWatches(config, log, runtime, approvals, slack);
  // OAuth mode: people sign in through the code host from their MCP host; each session or request acts as its person.
  const signIn =
    mcpAuthMode(config) === 'oauth'
      ? await oauthForServe(
          config,
          runtime,
          state,
          log,
          () => ({ host: where.host, port: where.port }),
          slackCallback(slack),
        )
      : undefined;
  return { catalog, selection, approvals, runtime, slack, state, readiness, replicas, watches, signIn };
}
type ServeParts = Awaited<ReturnType<typeof serveParts>>;

/**
 * The store (the Slack bot's when it runs beside, else Redis when replicas share one, else memory), readiness, the
 * approval page's replicas and the watch hub (the Slack bot's when it runs beside: its channels subscribe).
 */
async function serveStateAndWatches(
  config: Config,
  log: Logger,
  runtime: Runtime,
  approvals: Awaited<ReturnType<typeof approvalPageForServe>>,
  slack: Awaited<ReturnType<typeof startSlackBeside>>,
) {
  const [{ ReadinessProbe, serviceCheck, storeCheck, watchCheck }, metrics, { openConfiguredStore }, { operations }] =
    await Promise.all([
      import('../health.js'),
      import('../metrics.js'),
      import('../state/store.js'),
      import('../operations/index.js'),
    ]);
  await metrics.enableMetrics();
  const state = slack?.bot.state ?? (await openConfiguredStore({ redisUrl: config.redisUrl }));
  const readiness = new ReadinessProbe([
    serviceCheck(runtime.client, runtime.service.address),
    ...(slack || state.shared ? [storeCheck(state)] : []),
  ]);
  const replicas = approvals
    ? await (await import('../approval/page-store.js')).joinReplicas(
        approvals.store,
        state,
        config.server.replicaId,
        log,
      )
    : undefined;
  const watches =
    slack?.bot.watches ??
    (await (await import('../watch/start.js')).startWatchHub({ config, log, runtime, state, operations }));
  readiness.add(watchCheck(watches));
  return { state, readiness, replicas, watches };
}

/** A call acts with the configured token, a client's own X-Codehost-Token, or a signed-in person's code host token. */
async function sessionOptionsFor(config: Config, log: Logger, secrets: McpServerOptions['secrets'], parts: ServeParts) {
  const { attributedLogger } = await import('../log.js');
  const { catalog, selection, approvals, runtime, signIn, watches } = parts;
  const listenTo = async () => watches;
  return (token?: string, owner?: SessionOwner): McpServerOptions => ({
    operations: catalog,
    client: owner?.person && signIn ? signIn.transportOf(runtime.client, owner.person) : runtime.client,
    token,
    // Each line of a signed-in call (the audit of changes among them) names the person it ran as.
    log: owner?.person ? attributedLogger(log, owner.person) : log,
    secrets,
    ...selection,
    approval: config.approval.policy,
    approvals: approvals?.store,
    maxResultChars: config.maxResultChars,
    downloadDir: config.downloadDir,
    callTimeoutMs: config.callTimeoutMs,
    service: owner?.person
      ? {
          ...runtime.service,
          tokenSource: `the code host sign-in of ${owner.person}`,
          renew: 'sign in again from your MCP host',
        }
      : runtime.service,
    watches: listenTo,
    // A sign-in with read scopes only sees and runs reads (the HTTP layer refuses a write with 403 before it gets here).
    ...(owner?.person && !owner.scopes?.includes('api') && { readOnly: true }),
  });
}

/** What serve answers besides /mcp: Slack's events and Connect pages, the approval page, the pipeline webhook. */
async function serveMounts(config: Config, log: Logger, parts: ServeParts) {
  const { slack, signIn, approvals, watches } = parts;
  // The service's pipeline events check a watched branch at once; without the secret nobody could tell them from a stranger's.
  const webhook = config.watch.webhookSecret
    ? (await import('../watch/webhook.js')).configuredPipelineWebhook(config.watch, { watches, log })
    : undefined;
  const connect = slack?.bot.connect;
  return {
    ...(slack?.handle && { [slack.path]: slack.handle }),
    // Slack's Connect links, and the code host's callback unless the MCP sign-in answers it (it hands a Slack state
    // on to slackCallback).
    ...(connect &&
      Object.fromEntries(
        connect.paths.filter((p) => !(signIn && p === SIGN_IN_CALLBACK_PATH)).map((p) => [p, connect.handle]),
      )),
    ...(approvals && { [approvals.path]: approvals.handle }),
    ...(webhook && { [webhook.path]: webhook.handle }),
  };
}

/** Starts the HTTP server; a port it cannot take closes what was started and exits with the setting to change. */
async function listenServe(
  config: Config,
  log: Logger,
  secrets: McpServerOptions['secrets'],
  where: ServeAddress,
  parts: ServeParts,
) {
  const [{ createMcpServer }, { startMcpHttpServer }] = await Promise.all([
    import('../mcp/server.js'),
    import('../mcp/http/server.js'),
  ]);
  const { slack, runtime, signIn, readiness, catalog, state } = parts;
  const sessionOptions = await sessionOptionsFor(config, log, secrets, parts);
  // One memory of the tokens the service accepted, for the sessions' caps and the 2026-07-28 questions alike.
  const tokenChecker = (await import('../mcp/token-check.js')).serviceTokenChecker(runtime.client);
  try {
    const http = await startMcpHttpServer({
      host: where.host,
      port: where.port,
      mcpToken: config.server.mcpToken,
      allowedOrigins: config.server.allowedOrigins,
      allowedHosts: config.server.allowedHosts,
      log,
      maxSessions: config.server.maxSessions,
      maxMessageBytes: config.maxMessageBytes,
      readiness,
      replicaId: config.server.replicaId,
      maxSessionsPerCaller: config.server.maxSessionsPerCaller,
      trustedProxies: config.server.trustedProxies,
      tokenChecker,
      mounts: await serveMounts(config, log, parts),
      ...(signIn && { signIn: signIn.mcp(catalog.tools) }),
      createSessionServer: ({ token, person, scopes }) =>
        createMcpServer(person ? sessionOptions(undefined, { person, scopes }) : sessionOptions(token)),
      stateless: async () =>
        (await import('../mcp/stateless.js')).createStatelessEndpoint({
          serverOptions: sessionOptions,
          store: state.store,
          sharedStore: state.shared,
          secret: config.secret,
          maxMessageBytes: config.maxMessageBytes,
          log,
          tokenChecker,
        }),
    });
    where.port = Number(new URL(http.url).port);
    where.servedAt = new URL(http.url).origin;
    return http;
  } catch (error) {
    await slack?.bot.close();
    await runtime.close();
    listenError(error, where.host, where.port, '--port or FORGEOPS_PORT');
  }
}
type ServeHttp = Awaited<ReturnType<typeof listenServe>>;

/** Once listening: the banner, where Slack's requests go, the session gauge and the service check at start. */
async function announceServe(config: Config, log: Logger, where: ServeAddress, parts: ServeParts, http: ServeHttp) {
  const { approvals, signIn, runtime, slack } = parts;
  approvals?.listening(where.port);
  if (signIn) log.info(`MCP sign-in: OAuth, issuer ${signIn.publicUrl()} (FORGEOPS_MCP_AUTH=oauth)`);
  const [metrics, { checkServiceAtStart }, { bannerText }] = await Promise.all([
    import('../metrics.js'),
    import('../doctor.js'),
    import('../banner.js'),
  ]);
  metrics.countSessionsWith(() => http.sessionCount());
  void checkServiceAtStart(config, (line) => log.warn(line));
  const sandbox = runtime.sandbox ? await runtime.sandbox() : undefined;
  process.stdout.write(
    bannerText({ mcpUrl: http.url, serviceLabel: runtime.serviceLabel, sandbox, config, signIn: signIn !== undefined }),
  );
  if (slack?.handle)
    process.stdout.write(
      `Slack: requests go to ${new URL(slack.path, http.url).href} (the app's Request URL, through your public host name)\n`,
    );
  else if (slack) process.stdout.write('Slack: connected by Socket Mode\n');
}

/**
 * Not ready at once (the balancer stops sending), calls in flight finish within the grace, then sessions close so
 * their clients reconnect to another replica; then what serve started, in reverse.
 */
async function stopServe(log: Logger, parts: ServeParts, http: ServeHttp): Promise<void> {
  const { readiness, approvals, replicas, slack, watches, state, runtime } = parts;
  readiness.drain();
  log.info(`shutting down: finishing the calls in flight (at most ${DRAIN_GRACE_MS / 1000} s)`);
  approvals?.store.closeAll('forgeops is shutting down; nothing was changed.');
  const { unfinished } = await http.drain(DRAIN_GRACE_MS);
  if (unfinished > 0) log.warn(`shut down with ${unfinished} requests still running`);
  await replicas?.close();
  if (!slack) await watches.close();
  await slack?.bot.close();
  if (!slack) await state.store.close();
  await runtime.close();
  process.exit(0);
}

/**
 * OAuth mode's parts for serve: forgeops's authorization server and resource checks over serve's store, and the
 * service client of each signed-in person.
 */
async function oauthForServe(
  config: Config,
  runtime: Runtime,
  state: { store: StateStore; shared: boolean },
  log: Logger,
  listening: () => { host: string; port: number },
  otherCallback?: (req: IncomingMessage, res: ServerResponse) => Promise<boolean>,
) {
  const [{ serveSignIn }, { mcpSignIn }, { callerAddress }, { trustedProxyList }, { MCP_PATH }] = await Promise.all([
    import('../identity/serve-sign-in.js'),
    import('../mcp/http/sign-in.js'),
    import('../mcp/session-caps.js'),
    import('../http/addresses.js'),
    import('../mcp/http/routes.js'),
  ]);
  const proxies = config.server.trustedProxies.length ? trustedProxyList(config.server.trustedProxies) : undefined;
  const made = serveSignIn({
    config,
    runtime,
    store: state.store,
    sharedStore: state.shared,
    log,
    mcpPath: MCP_PATH,
    listening,
    address: (req) => callerAddress(req, proxies),
    otherCallback,
  });
  return {
    ...made,
    /** The HTTP server's part; a read-only sign-in may call the tools that only read (and the meta tools). */
    mcp: (tools: ReadonlyArray<{ name: string; effect: string }>) => {
      const writes = new Set(tools.filter((tool) => tool.effect !== 'read').map((tool) => tool.name));
      return mcpSignIn(made.parts, (name) => !writes.has(name));
    },
  };
}

/** The Slack bot's part of /oauth/callback, when it runs beside serve: a Connect sign-in's state, answered; else false. */
function slackCallback(
  slack: { bot: { connect?: { handleSlackConnectCallback(url: URL): Promise<Response | undefined> } } } | undefined,
) {
  const connect = slack?.bot.connect;
  if (!connect) return undefined;
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    const answer = await connect.handleSlackConnectCallback(new URL(req.url ?? '/', 'http://forgeops.invalid'));
    if (!answer) return false;
    await (await import('../slack/connect-pages.js')).writeResponse(res, answer);
    return true;
  };
}

/** The code host's redirect (identity/application.ts's CALLBACK_PATH), not imported here to keep the start light. */
const SIGN_IN_CALLBACK_PATH = '/oauth/callback';

/** The approval page on serve's own server; off loopback only with a passphrase and an address people can open. */
async function approvalPageForServe(config: Config, host: string, log: Logger) {
  if (!usesApprovalPage(config)) return undefined;
  const [{ isLoopback }, page, { ConfigError }] = await Promise.all([
    import('../mcp/http/guard.js'),
    import('../approval/page.js'),
    import('../config.js'),
  ]);
  const loopback = isLoopback(host);
  const problem = page.approvalPageProblem(loopback, config.approval);
  if (problem && config.approval.policy === 'page')
    throw new ConfigError(`invalid configuration: FORGEOPS_APPROVAL is page, and ${problem}`);
  if (problem) {
    log.warn(`no approval page: ${problem}; a client without form elicitation is refused destructive calls`);
    return undefined;
  }
  const { secret, publicUrl, openCommand } = config.approval;
  const mounted = page.createMountedApprovalPage({
    host,
    loopback,
    secret,
    publicUrl,
    log,
    replicaId: config.server.replicaId,
  });
  if (openCommand) mounted.store.onOpen(page.openCommandRunner(openCommand, log));
  return mounted;
}

/**
 * `forgeops serve` runs the Slack bot too when Slack is configured (SLACK_SIGNING_SECRET, or SLACK_APP_TOKEN for
 * Socket Mode), on serve's service and port: in HTTP mode its endpoint is mounted beside /mcp.
 */
async function startSlackBeside(
  config: Config,
  log: Logger,
  runtime: Runtime,
  approvals: ApprovalPageStore | undefined,
  publicUrl: () => string,
) {
  if (!config.slack.signingSecret && !config.slack.appToken) return undefined;
  const [{ startSlackBot }, { EVENTS_PATH }] = await Promise.all([
    import('../slack/main.js'),
    import('../slack/receiver.js'),
  ]);
  try {
    const bot = await startSlackBot(config, log, { runtime, listen: false, approvals, publicUrl });
    return { bot, handle: bot.handle, path: EVENTS_PATH };
  } catch (error) {
    await runtime.close();
    throw error;
  }
}
