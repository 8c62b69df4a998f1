#!/usr/bin/env node
// The forgeops command: serve | mcp | chat | slack | sandbox | doctor | ops. Each mode imports only what it needs, to start fast.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from './config.js';
import type { Logger } from './log.js';
import type { Runtime } from './runtime.js';
import type { Selectable } from './mcp/toolsets.js';
import type { ApprovalPageStore } from './approval/page-store.js';
import type { McpServerOptions } from './mcp/server.js';
import type { SessionOwner } from './mcp/http/sessions.js';
import type { StateStore } from './state/store.js';
import { closest } from './text/suggest.js';

const VERSION = '0.1.0';

interface OptionSpec {
  /** 'string' options take a value (--port 8750 or --port=8750); 'flag' options take none. */
  kind: 'string' | 'flag';
  help: string;
}

interface CommandSpec {
  usage: string;
  summary: string;
  options: Record<string, OptionSpec>;
  /** Takes words besides its options (chat's command line), joined with spaces into `_`. */
  positional?: boolean;
}

const ENV_FILE: OptionSpec = { kind: 'string', help: 'read settings from this env file too (the environment wins)' };
/** --port and --host of a command that listens, each saying its default. */
function listenOptions(portDefault: string, hostDefault = '127.0.0.1'): Record<'port' | 'host', OptionSpec> {
  return {
    port: { kind: 'string', help: `port to listen on (default${portDefault})` },
    host: { kind: 'string', help: `address to bind to (default ${hostDefault})` },
  };
}
const TOOLSETS: OptionSpec = {
  kind: 'string',
  help: 'MCP tools to offer: default, all, meta and area names, comma-separated (FORGEOPS_TOOLSETS)',
};
const TOOLS: OptionSpec = {
  kind: 'string',
  help: 'single MCP tools to offer besides the toolsets, comma-separated (FORGEOPS_TOOLS)',
};

const COMMANDS: Record<string, CommandSpec> = {
  serve: {
    usage: 'forgeops serve [--port N] [--host H] [--toolsets T] [--tools T] [--env-file F]',
    summary:
      'MCP server over Streamable HTTP (what `npm start` runs); the Slack bot on /slack/events too when SLACK_SIGNING_SECRET is set',
    options: {
      ...listenOptions(' 8750, FORGEOPS_PORT', '127.0.0.1, FORGEOPS_HOST'),
      toolsets: TOOLSETS,
      tools: TOOLS,
      'env-file': ENV_FILE,
    },
  },
  mcp: {
    usage: 'forgeops mcp [--toolsets T] [--tools T] [--env-file F]',
    summary: 'MCP server over stdio, for clients that spawn it',
    options: { toolsets: TOOLSETS, tools: TOOLS, 'env-file': ENV_FILE },
  },
  doctor: {
    usage: 'forgeops doctor [--env-file F] [--scim-group G]',
    summary: 'check the configuration, the service and the tokens, each with its fix',
    options: {
      'env-file': ENV_FILE,
      'scim-group': { kind: 'string', help: 'group path to check CODEHOST_SCIM_TOKEN against' },
    },
  },
  chat: {
    usage: 'forgeops chat ["<command>"] [--json] [--yes] [--dry-run] [--env-file F]',
    summary: 'chat with the service in the terminal: a prompt, or one command and its exit status',
    positional: true,
    options: {
      json: { kind: 'flag', help: "print the operation's data as JSON instead of text" },
      yes: { kind: 'flag', help: 'one command without a terminal: approve in advance the call it would ask about' },
      'dry-run': { kind: 'flag', help: 'show what each command that changes something would send, and send nothing' },
      'env-file': ENV_FILE,
    },
  },
  slack: {
    usage: 'forgeops slack [--port N] [--host H] [--env-file F]',
    summary: 'the Slack bot: /forge commands on POST /slack/events, or Socket Mode with SLACK_APP_TOKEN',
    options: {
      ...listenOptions(' 3000'),
      'env-file': ENV_FILE,
    },
  },
  sandbox: {
    usage: 'forgeops sandbox [--port N] [--host H]',
    summary: 'run the embedded sandbox service alone and print its demo tokens',
    options: listenOptions(': a free one'),
  },
  login: {
    usage: 'forgeops login [--device | --browser] [--scopes api|read_api] [--env-file F]',
    summary:
      'sign the terminal in to the code host (CODEHOST_URL, FORGEOPS_CLI_CLIENT_ID); mcp, chat and serve then act as you',
    options: {
      device: {
        kind: 'flag',
        help: 'the device grant: a code to enter in any browser (default over SSH or with no display)',
      },
      browser: { kind: 'flag', help: 'a browser on this machine, back to a one-time listener on 127.0.0.1 (PKCE)' },
      scopes: { kind: 'string', help: 'api (default: read and write) or read_api (read only)' },
      'env-file': ENV_FILE,
    },
  },
  logout: {
    usage: 'forgeops logout [--env-file F]',
    summary: "revoke the terminal's sign-in at the code host and forget it",
    options: { 'env-file': ENV_FILE },
  },
  whoami: {
    usage: 'forgeops whoami [--env-file F]',
    summary: 'who calls to the code host run as, and with which credential',
    options: { 'env-file': ENV_FILE },
  },
  ops: {
    usage: 'forgeops ops [--json]',
    summary: 'list every operation (name, chat words, route, effect)',
    options: { json: { kind: 'flag', help: 'print JSON instead of a table' } },
  },
  help: { usage: 'forgeops help [command]', summary: "this text, or one command's", options: {} },
};

const USAGE = [
  'forgeops: act on a code hosting service from AI assistants, Slack and the terminal.',
  '',
  'Usage:',
  ...Object.values(COMMANDS).map((c) => `  ${c.usage.padEnd(52)} ${c.summary}`),
  `  ${'forgeops --version'.padEnd(52)} the version`,
  '',
  'With no CODEHOST_URL set, serve, mcp, chat and doctor use the embedded sandbox in the same process.',
  'Configuration comes from the environment, and from an env file only when one is named with --env-file',
  'or FORGEOPS_ENV_FILE (a .env in the working directory is never read by itself); see docs/configuration.md.',
  'Without CODEHOST_TOKEN, mcp, chat and serve act as the person signed in with `forgeops login` (a file in',
  '~/.config/forgeops only you can read); an explicit CODEHOST_TOKEN wins.',
  'From a clone, run it as `npx forgeops …` (or `node dist/cli.js …`); `forgeops <command> --help` shows one command.',
].join('\n');

function commandHelp(name: string): string {
  const spec = COMMANDS[name];
  const options = Object.entries(spec.options).map(
    ([option, o]) => `  ${`--${option}${o.kind === 'string' ? ' <value>' : ''}`.padEnd(26)} ${o.help}`,
  );
  return [
    `usage: ${spec.usage}`,
    '',
    spec.summary,
    '',
    'Options:',
    ...options,
    `  ${'--help, -h'.padEnd(26)} this text`,
  ].join('\n');
}

/** A mistake in how the command was typed: reported with that command's usage line, exit status 2. */
class UsageError extends Error {
  constructor(
    message: string,
    readonly command?: string,
  ) {
    super(message);
  }
}

function fail(message: string, code: number): never {
  process.stderr.write(`forgeops: ${message}\n`);
  process.exit(code);
}

type ParsedOptions = Record<string, string | true>;

/** Reads `--name value`, `--name=value` and flags for one command, in forgeops's own words when something is off. */
function parseOptions(command: string, args: string[]): ParsedOptions | 'help' {
  const spec = COMMANDS[command];
  const values: ParsedOptions = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--help' || arg === '-h') return 'help';
    if (!arg.startsWith('--') && spec.positional) {
      values._ = typeof values._ === 'string' ? `${values._} ${arg}` : arg;
      continue;
    }
    if (!arg.startsWith('--')) throw new UsageError(`unexpected argument '${arg}' for 'forgeops ${command}'`, command);
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    const option = spec.options[name];
    if (!option) {
      const near = closest(name, Object.keys(spec.options)).map((n) => `--${n}`);
      const hint = near.length
        ? `; did you mean ${near.join(' or ')}?`
        : Object.keys(spec.options).length
          ? ''
          : ` (it takes no options)`;
      throw new UsageError(`unknown option '--${name}' for 'forgeops ${command}'${hint}`, command);
    }
    if (option.kind === 'flag') {
      if (eq !== -1) throw new UsageError(`option --${name} takes no value`, command);
      values[name] = true;
      continue;
    }
    const value = eq !== -1 ? arg.slice(eq + 1) : args[++i];
    if (value === undefined || value === '' || (eq === -1 && value.startsWith('--'))) {
      throw new UsageError(`option --${name} needs a value`, command);
    }
    values[name] = value;
  }
  return values;
}

function portOption(values: ParsedOptions, command: string): number | undefined {
  const text = values.port;
  if (typeof text !== 'string') return undefined;
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535)
    throw new UsageError(`--port must be a whole number from 0 to 65535, got '${text}'`, command);
  return port;
}

function stringOption(values: ParsedOptions, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

/** The password in a URL (Redis, a proxy), so that no log line can show it. */
function urlPassword(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return decodeURIComponent(new URL(url).password) || undefined;
  } catch {
    return undefined;
  }
}

async function setup(
  envFile: string | undefined,
  quiet = false,
): Promise<{ config: Config; log: Logger; secrets: Array<string | undefined> }> {
  const { loadConfig } = await import('./config.js');
  const { createJsonLogger, createLogger } = await import('./log.js');
  const { config, source } = loadConfig({ envFile });
  // A quiet mode (the chat) shares the terminal with a person: only warnings, unless debugging was asked for.
  const level = quiet && config.logLevel === 'info' ? 'warn' : config.logLevel;
  const secrets = [
    config.codehost.token,
    config.codehost.scimToken,
    config.server.mcpToken,
    config.secret,
    config.approval.secret,
    config.slack.signingSecret,
    config.slack.botToken,
    config.slack.appToken,
    config.slack.sharedReadToken,
    config.watch.webhookSecret,
    urlPassword(config.redisUrl),
    urlPassword(config.proxy.httpProxy),
    urlPassword(config.proxy.httpsProxy),
  ];
  // JSON for a log pipeline; never for the chat, whose stderr is a person's terminal.
  const log =
    config.logFormat === 'json' && !quiet
      ? await createJsonLogger(level, secrets, { replica: config.server.replicaId })
      : createLogger(level, secrets);
  if (source.envFile)
    log.info(
      `configuration: the environment and ${source.envFile.path} (${source.envFile.variables} variables from the file)`,
    );
  else log.info('configuration: the environment only');
  if (source.ignoredDotenv) {
    log.warn(
      `did not read ${source.ignoredDotenv}: forgeops reads an env file only when it is named (--env-file or FORGEOPS_ENV_FILE)`,
    );
  }
  return { config, log, secrets };
}

/** A busy port in the words of the setting that chooses it, for every command that listens. */
function listenError(error: unknown, host: string, port: number | undefined, setting: string): never {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') fail(`port ${port} on ${host} is in use; pick another with ${setting}`, 1);
  if (code === 'EADDRNOTAVAIL') fail(`cannot listen on ${host}: it is not an address of this machine`, 1);
  if (code === 'EACCES') fail(`no permission to listen on port ${port} of ${host}; pick a port above 1023`, 1);
  throw error;
}

async function listOperations(json: boolean): Promise<void> {
  const { operations } = await import('./operations/index.js');
  if (json) {
    const rows = operations.map((op) => ({
      name: op.name,
      chat: op.chat,
      area: op.area,
      method: op.method,
      path: op.path,
      effect: op.effect,
      idempotent: op.idempotent,
      title: op.title,
      spec: op.outsideSpec === undefined,
    }));
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return;
  }
  const width = Math.max(...operations.map((op) => op.name.length));
  for (const op of operations) {
    const outside = op.outsideSpec === undefined ? '' : '  (outside the spec)';
    process.stdout.write(`${op.name.padEnd(width)}  ${op.effect.padEnd(11)}  ${op.method} ${op.path}${outside}\n`);
  }
  const beyond = operations.filter((op) => op.outsideSpec !== undefined).length;
  process.stdout.write(`${operations.length} operations${beyond > 0 ? `, ${beyond} of them outside the spec` : ''}\n`);
}

/**
 * The tools a server offers: --toolsets and --tools over their variables, checked before anything starts, so a
 * misspelt toolset stops start-up with the list of real ones instead of a server with no tools.
 */
async function toolSelection(config: Config, values: ParsedOptions, tools: readonly Selectable[]) {
  const [{ selectTools, ToolSelectionError }, { splitList }] = await Promise.all([
    import('./mcp/toolsets.js'),
    import('./config.js'),
  ]);
  const option = (name: string) => {
    const value = stringOption(values, name);
    return value === undefined ? undefined : splitList(value);
  };
  const selection = {
    toolsets: option('toolsets') ?? config.policy.toolsets,
    tools: option('tools') ?? config.policy.tools,
    readOnly: config.policy.readOnly,
    apps: config.policy.apps,
  };
  try {
    selectTools(tools, selection);
  } catch (error) {
    if (error instanceof ToolSelectionError) fail(error.message, 2);
    throw error;
  }
  return selection;
}

/** How long a stopping `serve` lets calls in flight finish: under the usual 30 s an orchestrator waits after SIGTERM. */
const DRAIN_GRACE_MS = 25_000;

async function serveHttp(values: ParsedOptions): Promise<void> {
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
    import('./runtime.js'),
    import('./http/addresses.js'),
    import('./operations/index.js'),
    import('./mcp/catalog.js'),
    import('./identity/serve-sign-in.js'),
  ]);
  // One catalog for every session: each tool's descriptor is built once, not per session.
  const catalog = catalogOf(operations);
  const selection = await toolSelection(config, values, operations);
  const approvals = await approvalPageForServe(config, where.host, log);
  // The sandbox's "forgeops" application sends people back to this server's callback.
  const runtime = await createRuntime(config, log, {
    publicUrl: config.identity.publicUrl ?? forgeopsUrl(where.host, where.port),
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
      import('./health.js'),
      import('./metrics.js'),
      import('./state/store.js'),
      import('./operations/index.js'),
    ]);
  await metrics.enableMetrics();
  const state = slack?.bot.state ?? (await openConfiguredStore({ redisUrl: config.redisUrl }));
  const readiness = new ReadinessProbe([
    serviceCheck(runtime.client, runtime.service.address),
    ...(slack || state.shared ? [storeCheck(state)] : []),
  ]);
  const replicas = approvals
    ? await (await import('./approval/page-store.js')).joinReplicas(
        approvals.store,
        state,
        config.server.replicaId,
        log,
      )
    : undefined;
  const watches =
    slack?.bot.watches ??
    (await (await import('./watch/start.js')).startWatchHub({ config, log, runtime, state, operations }));
  readiness.add(watchCheck(watches));
  return { state, readiness, replicas, watches };
}

/** A call acts with the configured token, a client's own X-Codehost-Token, or a signed-in person's code host token. */
async function sessionOptionsFor(config: Config, log: Logger, secrets: McpServerOptions['secrets'], parts: ServeParts) {
  const { attributedLogger } = await import('./log.js');
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
    ? (await import('./watch/webhook.js')).configuredPipelineWebhook(config.watch, { watches, log })
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
    import('./mcp/server.js'),
    import('./mcp/http/server.js'),
  ]);
  const { slack, runtime, signIn, readiness, catalog, state } = parts;
  const sessionOptions = await sessionOptionsFor(config, log, secrets, parts);
  // One memory of the tokens the service accepted, for the sessions' caps and the 2026-07-28 questions alike.
  const tokenChecker = (await import('./mcp/token-check.js')).serviceTokenChecker(runtime.client);
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
        (await import('./mcp/stateless.js')).createStatelessEndpoint({
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
    import('./metrics.js'),
    import('./doctor.js'),
    import('./banner.js'),
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
    import('./identity/serve-sign-in.js'),
    import('./mcp/http/sign-in.js'),
    import('./mcp/session-caps.js'),
    import('./http/addresses.js'),
    import('./mcp/http/routes.js'),
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
    await (await import('./slack/connect-pages.js')).writeResponse(res, answer);
    return true;
  };
}

/** The code host's redirect (identity/application.ts's CALLBACK_PATH), not imported here to keep the start light. */
const SIGN_IN_CALLBACK_PATH = '/oauth/callback';

/** Whether a policy ever sends a human to the approval page (`elicit` does for clients with URL elicitation only). */
function usesApprovalPage(config: Config): boolean {
  return config.approval.policy === 'elicit' || config.approval.policy === 'page';
}

/** The approval page on serve's own server; off loopback only with a passphrase and an address people can open. */
async function approvalPageForServe(config: Config, host: string, log: Logger) {
  if (!usesApprovalPage(config)) return undefined;
  const [{ isLoopback }, page, { ConfigError }] = await Promise.all([
    import('./mcp/http/guard.js'),
    import('./approval/page.js'),
    import('./config.js'),
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

/** The approval page of `forgeops mcp` on 127.0.0.1: listening from the start for `page`, else once first needed. */
async function approvalPageForStdio(config: Config, log: Logger) {
  if (!usesApprovalPage(config)) return undefined;
  const page = await import('./approval/page.js');
  const { secret, publicUrl, openCommand, port } = config.approval;
  const local = page.createLocalApprovalPage({ port, secret, publicUrl, log });
  if (openCommand) local.store.onOpen(page.openCommandRunner(openCommand, log));
  if (config.approval.policy === 'page') {
    const base = await local.start().catch((error: Error) => fail(error.message, 1));
    log.info(`approval page: ${base} (links to each waiting call go to this log)`);
  }
  return local;
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
    import('./slack/main.js'),
    import('./slack/receiver.js'),
  ]);
  try {
    const bot = await startSlackBot(config, log, { runtime, listen: false, approvals, publicUrl });
    return { bot, handle: bot.handle, path: EVENTS_PATH };
  } catch (error) {
    await runtime.close();
    throw error;
  }
}

/**
 * The start-up service check loads the HTTP client (undici), which a stdio server otherwise loads on its first
 * call: it waits until the client has had its handshake and tool list, so that a warning never delays them.
 */
const STDIO_SERVICE_CHECK_DELAY_MS = 500;

/**
 * A stdio server lives as long as the assistant's session and serves one client: V8's defaults size its heap for
 * throughput instead, the young generation growing to 32 MiB and the old one left to fill with garbage up to several
 * times what lives, so that RSS went from 74 MiB after the first call to 122 MiB after 10,000 while heap snapshots
 * at 1,000 and 10,000 calls held the same objects. Sized for memory instead (see docs/mcp.md, A long session): the young
 * generation keeps its first size and the old one is collected sooner. And undici's HTTP parser (WebAssembly) stays
 * on V8's baseline compiler: optimizing it, some 20 calls in, took 30 MiB for a moment, for parsing that is a few
 * microseconds of a call either way. Set first thing, not by NODE_OPTIONS or a re-spawn (which would double the start);
 * each flag only steers V8's sizing or compiling, none changes what the code does.
 */
async function sizeHeapForLongSession(): Promise<void> {
  const { setFlagsFromString } = await import('node:v8');
  setFlagsFromString('--semi-space-growth-factor=1');
  setFlagsFromString('--optimize-for-size');
  setFlagsFromString('--liftoff-only');
}

/** `forgeops mcp`: starts from the tool catalog built into the bundle; the registry, undici and the check come later. */
async function serveStdio(values: ParsedOptions): Promise<void> {
  await sizeHeapForLongSession();
  // zod compiles a parser (new Function) for an object schema on its first parse; a stdio server parses most of its
  // schemas a few times at most, so compiling costs more than it saves. zod reads this when a schema is made: first.
  (await import('zod/v4/core')).config({ jitless: true });
  const { config, log, secrets } = await setup(stringOption(values, 'env-file'));
  const [{ createRuntime }, { startupCatalog }, { createMcpServer }, { LimitedStdioTransport }] = await Promise.all([
    import('./runtime.js'),
    import('./mcp/catalog.js'),
    import('./mcp/server.js'),
    import('./mcp/stdio.js'),
  ]);
  const catalog = await startupCatalog();
  const selection = await toolSelection(config, values, catalog.tools);
  const approvals = await approvalPageForStdio(config, log);
  const runtime = await createRuntime(config, log);
  // Made on the first status subscription, in this process's memory: most stdio sessions never subscribe.
  let hub: Promise<import('./watch/hub.js').WatchHub> | undefined;
  const watches = () =>
    (hub ??= (async () => {
      const [{ startWatchHub }, { openConfiguredStore }, { operations }] = await Promise.all([
        import('./watch/start.js'),
        import('./state/store.js'),
        import('./operations/index.js'),
      ]);
      return startWatchHub({ config, log, runtime, state: await openConfiguredStore({}), operations });
    })().catch((error: unknown) => {
      hub = undefined;
      throw error;
    }));
  const server = createMcpServer({
    operations: catalog,
    client: runtime.client,
    log,
    secrets,
    ...selection,
    warmUpAfterToolsList: true,
    approval: config.approval.policy,
    approvals: approvals?.store,
    maxResultChars: config.maxResultChars,
    downloadDir: config.downloadDir,
    callTimeoutMs: config.callTimeoutMs,
    service: runtime.service,
    watches,
  });
  const transport = new LimitedStdioTransport({ maxMessageBytes: config.maxMessageBytes, log });
  let closing = false;
  const stop = async () => {
    if (closing) return;
    closing = true;
    await approvals?.close();
    await server.close().catch(() => undefined);
    await (await hub?.catch(() => undefined))?.close();
    await runtime.close();
    process.exit(0);
  };
  // The client ends a stdio server by closing our stdin.
  process.stdin.once('end', stop);
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await server.connect(transport);
  log.info(`mcp stdio ready: ${catalog.tools.length} operations against ${runtime.serviceLabel}`);
  setTimeout(() => {
    void import('./doctor.js').then(({ checkServiceAtStart }) => checkServiceAtStart(config, (line) => log.warn(line)));
  }, STDIO_SERVICE_CHECK_DELAY_MS).unref();
}

/** Slack reaches the bot through the operator's public host (a reverse proxy or tunnel); loopback is the safe default. */
const SLACK_DEFAULT_PORT = 3000;

async function runSlack(values: ParsedOptions): Promise<void> {
  const { config, log } = await setup(stringOption(values, 'env-file'));
  const host = stringOption(values, 'host') ?? '127.0.0.1';
  const port = portOption(values, 'slack') ?? SLACK_DEFAULT_PORT;
  const [{ startSlackBot }, { enableMetrics }] = await Promise.all([import('./slack/main.js'), import('./metrics.js')]);
  await enableMetrics();
  const bot = await startSlackBot(config, log, { port, host }).catch((error: unknown) =>
    listenError(error, host, port, '--port'),
  );
  if (bot.url)
    process.stdout.write(
      `forgeops slack: Slack's requests go to ${bot.url} (the app's Request URL, through your public host name)\n`,
    );
  else process.stdout.write('forgeops slack: connected to Slack by Socket Mode\n');
  const stop = async () => {
    await bot.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

async function runSandbox(values: ParsedOptions): Promise<void> {
  const host = stringOption(values, 'host');
  const port = portOption(values, 'sandbox');
  const [{ runSandboxCli }, { sandboxCliApplication }] = await Promise.all([
    import('./sandbox/main.js'),
    import('./runtime.js'),
  ]);
  await runSandboxCli({ port, host, cliApplication: sandboxCliApplication() }).catch((error: unknown) =>
    listenError(error, host ?? '127.0.0.1', port, '--port'),
  );
}

async function runChat(values: ParsedOptions): Promise<void> {
  const { config, log } = await setup(stringOption(values, 'env-file'), true);
  const { runChatCli } = await import('./terminal/main.js');
  process.exitCode = await runChatCli(config, log, {
    line: stringOption(values, '_'),
    json: values.json === true,
    yes: values.yes === true,
    dryRun: values['dry-run'] === true,
  });
}

async function runDoctorCommand(values: ParsedOptions): Promise<void> {
  const { loadConfig } = await import('./config.js');
  const { runDoctor } = await import('./doctor.js');
  const { config, source } = loadConfig({ envFile: stringOption(values, 'env-file') });
  process.stdout.write('forgeops doctor\n');
  const status = await runDoctor(config, source, {
    scimGroup: stringOption(values, 'scim-group'),
    write: (line) => process.stdout.write(line),
  });
  process.exit(status);
}

/** login, logout and whoami: the terminal's sign-in; Ctrl-C stops a sign-in that waits for the person. */
async function runSignIn(command: 'login' | 'logout' | 'whoami', values: ParsedOptions): Promise<void> {
  if (values.device === true && values.browser === true)
    throw new UsageError('choose one of --device and --browser', command);
  const { loadConfig } = await import('./config.js');
  const { config } = loadConfig({ envFile: stringOption(values, 'env-file') });
  const commands = await import('./identity/login-commands.js');
  const { CredentialsFileError } = await import('./identity/credentials-file.js');
  const controller = new AbortController();
  const interrupt = () => controller.abort();
  process.once('SIGINT', interrupt);
  const io = { out: (text: string) => process.stdout.write(text), signal: controller.signal };
  try {
    if (command === 'login') {
      const mode = values.device === true ? 'device' : values.browser === true ? 'browser' : undefined;
      await commands.login(config, { mode, scopes: stringOption(values, 'scopes') }, io);
    } else if (command === 'logout') await commands.logout(config, io);
    else process.exitCode = await commands.whoami(config, io);
  } catch (error) {
    if (error instanceof commands.LoginSetupError) fail(error.message, 2);
    if (error instanceof commands.LoginError || error instanceof CredentialsFileError)
      fail(error.message, controller.signal.aborted ? 130 : 1);
    throw error;
  } finally {
    process.off('SIGINT', interrupt);
  }
}

async function main(argv: string[]): Promise<void> {
  const [command = 'help', ...rest] = argv;
  if (command === '--version' || command === '-v' || command === 'version') {
    process.stdout.write(`forgeops ${VERSION}\n`);
    return;
  }
  if (command === 'help' || command === '--help' || command === '-h') {
    const topic = rest[0];
    process.stdout.write(`${topic && topic in COMMANDS ? commandHelp(topic) : USAGE}\n`);
    return;
  }
  if (!(command in COMMANDS)) {
    const near = closest(command, Object.keys(COMMANDS));
    throw new UsageError(
      `unknown command '${command}'${near.length ? `; did you mean '${near.join("' or '")}'?` : ''}`,
    );
  }
  const values = parseOptions(command, rest);
  if (values === 'help') {
    process.stdout.write(`${commandHelp(command)}\n`);
    return;
  }
  switch (command) {
    case 'serve':
      return serveHttp(values);
    case 'mcp':
      return serveStdio(values);
    case 'slack':
      return runSlack(values);
    case 'sandbox':
      return runSandbox(values);
    case 'doctor':
      return runDoctorCommand(values);
    case 'ops':
      return listOperations(values.json === true);
    case 'chat':
      return runChat(values);
    case 'login':
    case 'logout':
    case 'whoami':
      return runSignIn(command, values);
  }
}

// A reader that goes away (`forgeops ops | head -1`) is not an error worth a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  fail(`cannot write the output: ${error.message}`, 1);
});

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError) {
    const usage = error.command
      ? `usage: ${COMMANDS[error.command].usage}\n(forgeops ${error.command} --help shows its options)`
      : 'forgeops help lists the commands';
    fail(`${error.message}\n${usage}`, 2);
  }
  // Bad configuration is the operator's to fix: one line naming the variable, exit status 2.
  if (error instanceof Error && error.name === 'ConfigError') fail(error.message, 2);
  fail(error instanceof Error ? error.message : String(error), 1);
});
