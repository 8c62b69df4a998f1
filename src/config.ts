// The environment (and an env file the operator named) → one validated Config object; a bad value names its variable.
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { z } from 'zod';
import { CaFileError, readCaFile } from './http/ca.js';
import { DEFAULT_LISTENER_TIMEOUTS } from './http/listener.js';
import {
  APPROVAL_POLICIES,
  DEFAULT_MAX_MESSAGE_BYTES,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_NUDGE_SPACING_MS,
  DEFAULT_REFUSED_WATCHES,
  DEFAULT_REFUSED_WATCHES_WINDOW_MS,
  MAX_NUDGE_SPACING_MS,
  REPLICA_NAME,
  type ApprovalPolicy,
} from './defaults.js';
import { trustedProxyList } from './http/addresses.js';
import { quotedUrl } from './text/shown-url.js';
import { splitList } from './text/split-list.js';

/** Below the 60 s most MCP clients wait for a tool call, so the model hears our words rather than a bare timeout. */
export const DEFAULT_CALL_TIMEOUT_MS = 45_000;

/** One wording for every bad value: the variable (added by parseConfig), what it must be, what it got. */
const got = (value: unknown) => `got '${String(value)}'`;

/** A choice among fixed words, e.g. refuse|allow; `spelled` is how the message lists them. */
const oneOf = <const T extends readonly [string, ...string[]]>(
  values: T,
  spelled = values.filter(Boolean).join(', '),
) => z.enum(values, { error: (issue) => `must be one of ${spelled}; ${got(issue.input)}` });

const flag = (name: string) =>
  oneOf(['true', 'false', '1', '0', 'yes', 'no', ''])
    .optional()
    .transform((v) => v === 'true' || v === '1' || v === 'yes')
    .describe(name);

/** A whole number of at least `min` (a count, a port, milliseconds), `fallback` when unset. */
const wholeNumber = (fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v.trim() === '') return fallback;
      const n = Number(v);
      if (!/^\s*\d+\s*$/.test(v) || !Number.isSafeInteger(n) || n < min || n > max) {
        const range = max === Number.MAX_SAFE_INTEGER ? `of ${min} or more` : `from ${min} to ${max}`;
        ctx.addIssue({ code: 'custom', message: `must be a whole number ${range}; ${got(v)}` });
        return z.NEVER;
      }
      return n;
    });

/**
 * A value that goes into a header or a URL as it is (a token, a client id): spaces or angle brackets mean a placeholder
 * such as '<your token>' was copied.
 */
const verbatim = (what: string, example = '') =>
  z
    .string()
    .optional()
    .refine((v) => v === undefined || !/[\s<>]/.test(v), {
      error: (issue) => `must be ${what}, not a placeholder or text with spaces${example}; ${got(issue.input)}`,
    });
const token = verbatim('a token', " (such as '<your token>')");

/**
 * An http(s) URL without credentials: a user name or password in it would be printed wherever the address is shown
 * (the banner, /readyz, doctor, logs), and the HTTP client refuses to send one anyway. `instead` says where they go.
 * The value is quoted without them.
 */
const httpUrl = (instead = 'leave them out') =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v.trim() === '') return undefined;
      let url: URL | undefined;
      try {
        url = new URL(v.trim());
      } catch {
        // the issue below
      }
      if (url && (url.protocol === 'http:' || url.protocol === 'https:')) {
        if (url.username === '' && url.password === '') return url.toString().replace(/\/+$/, '');
        ctx.addIssue({
          code: 'custom',
          message: `must not carry a user name or password (user:password@): ${instead}; got '${quotedUrl(v.trim())}'`,
        });
        return z.NEVER;
      }
      ctx.addIssue({
        code: 'custom',
        message: `must be an http(s) URL such as https://code.example.com, got '${quotedUrl(v)}'`,
      });
      return z.NEVER;
    });

export { splitList };

const list = z.string().optional().transform(splitList);

/** A Slack token of one kind, recognised by its prefix: a bot token pasted as the app token fails here, not at Slack. */
const slackToken = (prefix: string, what: string) =>
  token.refine((v) => v === undefined || v === '' || v.startsWith(prefix), {
    error: (issue) => `must be ${what} (starting ${prefix}); got '${String(issue.input).slice(0, prefix.length)}…'`,
  });

/** A secret that is unset, empty, or at least `chars` long: a short one fails at start, not at its first use. */
const secretOfAtLeast = (chars: number, hint = '') =>
  z
    .string()
    .optional()
    .refine((v) => v === undefined || v === '' || v.length >= chars, {
      error: (issue) => `must be at least ${chars} characters${hint}; got ${String(issue.input).length} characters`,
    });

/** A directory; a relative path is taken from the working directory at start. */
const directory = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : resolve(v.trim())));

/** One pre-registered MCP client (FORGEOPS_MCP_CLIENTS). */
export interface McpClientSetting {
  client_id: string;
  client_name?: string;
  redirect_uris: string[];
}

const MCP_CLIENT = z
  .object({
    client_id: z.string().min(1).max(200),
    client_name: z.string().max(200).optional(),
    redirect_uris: z.array(z.string().url().max(2000)).min(1).max(10),
  })
  .strict();

/** FORGEOPS_MCP_CLIENTS read, or undefined when it is not a JSON array of clients. */
export function parseMcpClients(text: string): McpClientSetting[] | undefined {
  try {
    const parsed = z.array(MCP_CLIENT).safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Every variable forgeops reads, with its meaning; docs/configuration.md's table is written from this. */
export const ENVIRONMENT = z.object({
  CODEHOST_URL: httpUrl('put the token in CODEHOST_TOKEN instead').describe(
    'Base URL of the code hosting service (the API is under /api/v4). Unset: the embedded sandbox.',
  ),
  CODEHOST_TOKEN: token.describe('Personal access token sent as PRIVATE-TOKEN.'),
  CODEHOST_SCIM_TOKEN: token.describe('Bearer token for the SCIM API.'),
  FORGEOPS_CLI_CLIENT_ID: verbatim('a client id').describe(
    'Client id of the public application registered at the code host for `forgeops login` (not confidential, scopes api and read_api, device grant on, redirect URI http://127.0.0.1/callback). Without CODEHOST_TOKEN, mcp, chat and serve act as the signed-in person.',
  ),
  CODEHOST_CA_FILE: z
    .string()
    .optional()
    .describe('PEM file of a private certificate authority to trust, for API calls and sign-in requests alike.'),
  CODEHOST_TIMEOUT_MS: wholeNumber(30_000, 1).describe('Per-request timeout in milliseconds (default 30000).'),
  CODEHOST_MAX_RETRIES: wholeNumber(3).describe(
    'Retries of reads on 429/502/503/504 and connection errors (default 3).',
  ),
  FORGEOPS_CALL_TIMEOUT_MS: wholeNumber(DEFAULT_CALL_TIMEOUT_MS, 1).describe(
    `Deadline of one tool call in milliseconds, retries and pages included (default ${DEFAULT_CALL_TIMEOUT_MS}, under MCP clients' usual 60 s).`,
  ),
  FORGEOPS_ENV_FILE: z
    .string()
    .optional()
    .describe(
      'Env file to read settings from (like --env-file); a .env in the working directory is never read by itself.',
    ),
  FORGEOPS_HOST: z.string().optional().default('127.0.0.1').describe('Address `serve` binds to (default 127.0.0.1).'),
  FORGEOPS_PORT: wholeNumber(8750, 0, 65535).describe('Port `serve` listens on (default 8750).'),
  FORGEOPS_MCP_TOKEN: z
    .string()
    .optional()
    .describe(
      'Bearer token MCP clients must send to `serve` in the token mode (FORGEOPS_MCP_AUTH=token, the default when this is set); required there when bound to a non-loopback address.',
    ),
  FORGEOPS_MCP_AUTH: oneOf(['oauth', 'token', ''], 'oauth, token')
    .optional()
    .describe(
      'How MCP clients of `serve` authenticate: oauth (people sign in through the code host from their MCP host; forgeops is the authorization server) or token (FORGEOPS_MCP_TOKEN as bearer, and each client may send its own X-Codehost-Token). Unset: token when FORGEOPS_MCP_TOKEN is set, else oauth on the embedded sandbox or with FORGEOPS_OAUTH_CLIENT_ID, else token.',
    ),
  FORGEOPS_MCP_CLIENTS: z
    .string()
    .optional()
    .refine((v) => v === undefined || v.trim() === '' || parseMcpClients(v) !== undefined, {
      error: () =>
        'must be a JSON array of clients, each {"client_id": "...", "redirect_uris": ["https://..."], "client_name": "..."}',
    })
    .describe(
      'MCP clients pre-registered with forgeops\'s authorization server (OAuth mode), as a JSON array of {"client_id", "redirect_uris", "client_name"}. Others come by a Client ID Metadata Document URL or register themselves (DCR).',
    ),
  FORGEOPS_MCP_MAX_REGISTERED_CLIENTS: wholeNumber(10_000, 0).describe(
    'MCP clients that may register themselves (DCR) and be kept at most, in OAuth mode (default 10000; 0 turns DCR off). Each address may register 20 an hour.',
  ),
  FORGEOPS_OAUTH_ALLOW_PRIVATE_CLIENT_URLS: flag(
    "Lets a Client ID Metadata Document be fetched over http and from private or loopback addresses (a closed network, tests). Off: https to public addresses only, so a client's URL cannot make forgeops probe its own network.",
  ),
  FORGEOPS_ALLOWED_ORIGINS: list.describe(
    'Browser origins besides loopback pages allowed to call /mcp of `serve`, CORS included (comma-separated).',
  ),
  FORGEOPS_ALLOWED_HOSTS: list.describe(
    'Extra Host headers `serve` on loopback accepts besides its own address (comma-separated host:port): the address clients use when a proxy on this machine, such as haproxy in front of several replicas, forwards to it.',
  ),
  FORGEOPS_MAX_SESSIONS: wholeNumber(DEFAULT_MAX_SESSIONS, 1).describe(
    `MCP sessions \`serve\` keeps open at most; more clients get 503 (default ${DEFAULT_MAX_SESSIONS}).`,
  ),
  FORGEOPS_MAX_SESSIONS_PER_CALLER: wholeNumber(0).describe(
    "MCP sessions one caller (its own X-Codehost-Token, checked with the service, else its address, see FORGEOPS_TRUSTED_PROXIES) may hold in `serve`; more get 429 and never take another caller's (default 0: a quarter of FORGEOPS_MAX_SESSIONS, at least 10). All callers of one address together hold at most half of FORGEOPS_MAX_SESSIONS.",
  ),
  FORGEOPS_TRUSTED_PROXIES: list
    .refine(
      (entries) => {
        try {
          trustedProxyList(entries);
          return true;
        } catch {
          return false;
        }
      },
      {
        error: (issue) =>
          `must be IP addresses or CIDR ranges, comma-separated (e.g. 127.0.0.1,10.0.0.0/8); got '${String(issue.input)}'`,
      },
    )
    .describe(
      'Addresses (or CIDR ranges) of the balancers in front of `serve` (comma-separated): a request from one of them is counted as the client its X-Forwarded-For names, for the per-caller and per-address caps and session binding. Unset: every client behind a balancer counts as the balancer.',
    ),
  FORGEOPS_REPLICA_ID: z
    .string()
    .optional()
    .refine((v) => v === undefined || v === '' || new RegExp(`^${REPLICA_NAME}$`).test(v), {
      error: (issue) =>
        `must be 1 to 32 lowercase letters, digits or dashes (it starts every MCP session id, for the balancer to route by); got '${String(issue.input)}'`,
    })
    .describe(
      'Name of this replica of `serve`, e.g. r1: every MCP session id it hands out starts with it and a dot (r1.…), so a balancer routes each session back to its replica (see docs/operations-guide.md, Running several replicas).',
    ),
  // Read again where each listener is made (src/http/listener.ts); checked here so that a bad value stops the start.
  FORGEOPS_HTTP_HEADERS_TIMEOUT_MS: wholeNumber(DEFAULT_LISTENER_TIMEOUTS.headersMs, 1).describe(
    `Milliseconds an HTTP listener (serve, the Slack bot, the approval page) waits for a request's headers before 408 and closing (default ${DEFAULT_LISTENER_TIMEOUTS.headersMs}).`,
  ),
  FORGEOPS_HTTP_REQUEST_TIMEOUT_MS: wholeNumber(DEFAULT_LISTENER_TIMEOUTS.requestMs, 1).describe(
    `Milliseconds an HTTP listener waits for a whole request, headers and body, before 408 and closing (default ${DEFAULT_LISTENER_TIMEOUTS.requestMs}); answers may take longer.`,
  ),
  FORGEOPS_MAX_MESSAGE_BYTES: wholeNumber(DEFAULT_MAX_MESSAGE_BYTES, 1).describe(
    `Largest MCP message in bytes, over stdio and HTTP (default ${DEFAULT_MAX_MESSAGE_BYTES}, 16 MiB).`,
  ),
  FORGEOPS_READ_ONLY: flag('Only read operations are offered and run.'),
  FORGEOPS_TOOLSETS: list.describe(
    'MCP tools to offer, comma-separated: presets default (the on-call core and the three meta tools that reach the rest), all, meta (only the meta tools), and API area names. Default: default.',
  ),
  FORGEOPS_TOOLS: list.describe(
    'Single MCP tools to offer besides FORGEOPS_TOOLSETS (comma-separated tool names); alone, only these.',
  ),
  FORGEOPS_APPS: oneOf(['on', 'off', 'true', 'false', '1', '0', 'yes', 'no', ''])
    .optional()
    .transform((v) => !['off', 'false', '0', 'no'].includes(v ?? ''))
    .describe(
      'The triage view for MCP hosts that render MCP Apps (Claude, ChatGPT, VS Code …): off hides it entirely (its resource, the _meta naming it on triage_project and get_pipeline, and the tools only it calls). Default: on.',
    ),
  FORGEOPS_APPROVAL: oneOf(APPROVAL_POLICIES)
    .optional()
    .describe(
      "How an MCP call that needs a human is approved: 'elicit' (default: the client's form, else URL elicitation to the approval page, else refuse), " +
        "'page' (always the approval page; its link goes to the stderr log and by URL elicitation, never to the model), " +
        "'refuse' (the client's form, else refuse) or 'allow' (the client's form, else run without asking).",
    ),
  FORGEOPS_CONFIRM_WITHOUT_ELICITATION: oneOf(['refuse', 'allow'])
    .optional()
    .describe(
      "Older spelling of FORGEOPS_APPROVAL: 'refuse' is FORGEOPS_APPROVAL=refuse, 'allow' is FORGEOPS_APPROVAL=allow.",
    ),
  FORGEOPS_APPROVAL_SECRET: secretOfAtLeast(12).describe(
    'Passphrase the approval page asks for before it approves a call, so its link alone approves nothing (required when `serve` is not on loopback).',
  ),
  FORGEOPS_APPROVAL_PORT: wholeNumber(0, 0, 65535).describe(
    'Port on 127.0.0.1 where `forgeops mcp` serves the approval page (default 0: a free one; `serve` uses its own port).',
  ),
  FORGEOPS_APPROVAL_URL: httpUrl().describe(
    'Base URL at which people open the approval page, when not the address forgeops listens on (a tunnel or reverse proxy).',
  ),
  FORGEOPS_APPROVAL_OPEN: z
    .string()
    .optional()
    .describe(
      "Command run with each approval page's link as its last argument, e.g. 'open' (macOS) or 'xdg-open' to show it in the browser.",
    ),
  FORGEOPS_MAX_RESULT_CHARS: wholeNumber(60_000).describe(
    'Cap on the size of one tool result in characters (default 60000).',
  ),
  FORGEOPS_WATCH_INTERVAL_MS: wholeNumber(30_000, 1_000).describe(
    "How often a watched branch is checked, in milliseconds (default 30000; up to a tenth more at random, and longer when the service's Retry-After asks).",
  ),
  FORGEOPS_MAX_WATCHES: wholeNumber(200, 1).describe('Branches watched in all, over every replica (default 200).'),
  FORGEOPS_MAX_WATCHES_PER_CHANNEL: wholeNumber(10, 1).describe('Branches one Slack channel may watch (default 10).'),
  FORGEOPS_MAX_REFUSED_WATCHES: wholeNumber(DEFAULT_REFUSED_WATCHES, 1).describe(
    `Watch attempts one Slack channel may make that the service refuses (a made-up or unreadable project) within FORGEOPS_REFUSED_WATCHES_WINDOW_MS; past them its watches are refused without asking the service (default ${DEFAULT_REFUSED_WATCHES}).`,
  ),
  FORGEOPS_REFUSED_WATCHES_WINDOW_MS: wholeNumber(DEFAULT_REFUSED_WATCHES_WINDOW_MS, 1_000).describe(
    `Milliseconds a refused watch attempt counts against its channel (default ${DEFAULT_REFUSED_WATCHES_WINDOW_MS}, 10 minutes).`,
  ),
  FORGEOPS_WEBHOOK_SECRET: secretOfAtLeast(16).describe(
    "Secret token of the service's pipeline webhooks: set, `serve` takes pipeline events on /hooks/pipeline (the X-Gitlab-Token header must match) and checks a watched branch at once.",
  ),
  FORGEOPS_WEBHOOK_SPACING_MS: wholeNumber(DEFAULT_NUDGE_SPACING_MS, 0, MAX_NUDGE_SPACING_MS).describe(
    `Least milliseconds between two checks of one project that pipeline webhooks ask for: a burst of events is one check at once and one when the spacing has passed (default ${DEFAULT_NUDGE_SPACING_MS}; 0: every event asks at once, though two checks of a project never overlap).`,
  ),
  FORGEOPS_LOG_LEVEL: oneOf(['error', 'warn', 'info', 'debug'])
    .optional()
    .default('info')
    .describe('Log level of the stderr log (default info).'),
  FORGEOPS_LOG_FORMAT: oneOf(['text', 'json'])
    .optional()
    .default('text')
    .describe(
      'Format of the stderr log: text (default, for a terminal) or json (one pino record a line: level, time, replica, msg; secrets masked alike).',
    ),
  FORGEOPS_DOWNLOAD_DIR: directory.describe(
    'Folder on this machine where MCP tools save binary results (archives, raw blobs) and cut file texts, returning the path; new files only, at most 500 files and 1 GiB in all. Binaries that fit the result size limit are attached either way.',
  ),
  FORGEOPS_DATA_DIR: directory.describe(
    "Directory of forgeops's state: the Slack bot's linked accounts, pending approvals and audit log, the terminal chat's history. Unset: memory only, lost on restart.",
  ),
  FORGEOPS_REDIS_URL: z
    .string()
    .optional()
    .refine((v) => v === undefined || v === '' || /^rediss?:\/\/[^\s]+$/.test(v), {
      error: () => 'must be a redis:// or rediss:// URL, e.g. redis://cache.internal:6379/0',
    })
    .describe(
      'Redis for the state replicas share (Slack links, pending approvals of Slack and of MCP 2026-07-28, seen Slack requests, approval answers handed between replicas): set it when more than one forgeops serves the same Slack app or MCP endpoint. Unset: the file under FORGEOPS_DATA_DIR, or memory (one process).',
    ),
  FORGEOPS_PUBLIC_URL: httpUrl()
    .refine((v) => v === undefined || new URL(v).origin === v, {
      error: (issue) =>
        `must be the address forgeops is reached at with no path (scheme, host and port): the sign-in's metadata lives under /.well-known/ at the host's root, so forgeops needs a host name of its own rather than a path under another site; ${got(issue.input)}`,
    })
    .describe(
      "forgeops's address as people's browsers reach it (a tunnel or reverse proxy in front): where the code host sends people back after signing in (<URL>/oauth/callback), where Slack's Connect links and MCP's sign-in pages live, and the MCP resource that tokens are bound to. Default: the address forgeops listens on (FORGEOPS_HOST, FORGEOPS_PORT; a wildcard address is reached on 127.0.0.1).",
    ),
  FORGEOPS_OAUTH_CLIENT_ID: verbatim('an application id').describe(
    "Application ID of forgeops's one application at the code host (Admin or user settings > Applications: confidential, redirect URI <FORGEOPS_PUBLIC_URL>/oauth/callback, scopes as FORGEOPS_OAUTH_SCOPES): people sign in through it from MCP hosts and Slack. Needs CODEHOST_URL; the embedded sandbox registers its own.",
  ),
  FORGEOPS_OAUTH_CLIENT_SECRET: token.describe('Secret of the application named by FORGEOPS_OAUTH_CLIENT_ID.'),
  FORGEOPS_OAUTH_SCOPES: z
    .string()
    .optional()
    .transform((v) => (v?.trim() ? v.trim().split(/[\s,]+/) : ['api']))
    .refine((scopes) => scopes.every((s) => /^[a-z_]+$/.test(s)), {
      error: (issue) =>
        `must be scope names separated by spaces or commas, e.g. 'api' or 'read_api'; ${got(issue.input)}`,
    })
    .describe(
      "Scopes forgeops asks the code host for when a person signs in (default 'api'; 'read_api' for read-only sign-ins). Add openid (tick it on the application too) and the code host's answer to the sign-in says who signed in (its ID token): one request to the code host fewer per sign-in than asking GET /api/v4/user. On the embedded sandbox forgeops asks for openid itself.",
    ),
  FORGEOPS_SECRET: secretOfAtLeast(32, ' (e.g. openssl rand -hex 32)').describe(
    'Key (32+ characters) that encrypts the service tokens Slack users link (without it `/forge login` is refused) and signs MCP 2026-07-28 approval state (without it replicas share a random key through Redis).',
  ),
  SLACK_SIGNING_SECRET: z
    .string()
    .optional()
    .describe(
      "Signing Secret of the Slack app (Basic Information); `forgeops slack` needs it to verify Slack's requests.",
    ),
  SLACK_BOT_TOKEN: slackToken('xoxb-', 'a bot token').describe(
    'Bot User OAuth Token of the Slack app (xoxb-…); `forgeops slack` needs it.',
  ),
  SLACK_APP_TOKEN: slackToken('xapp-', 'an app-level token').describe(
    'App-level token (xapp-…, scope connections:write): when set, the bot connects by Socket Mode instead of HTTP.',
  ),
  SLACK_API_URL: httpUrl().describe(
    "Base URL of Slack's Web API (default https://slack.com/api/); for a proxy or a test double.",
  ),
  SLACK_READ_ONLY_CHANNELS: list.describe('Slack channel ids where only read commands run (comma-separated).'),
  SLACK_SHARED_READ_TOKEN: token.describe(
    'Service token for the reads of Slack users who linked no account of their own (never used for writes).',
  ),
  SLACK_APPROVER: z
    .string()
    .optional()
    .refine((v) => v === undefined || v === '' || /^(?:T[A-Z0-9]{2,}:)?[UW][A-Z0-9]{2,}$/.test(v), {
      error: (issue) =>
        `must be a Slack user id such as U012AB3CD (in Slack: the person's profile, More, Copy member ID), optionally after its team id (T0123ABCD:U012AB3CD); got '${String(issue.input)}'`,
    })
    .describe(
      "Slack user id (or TEAM:USER) who is sent each MCP call waiting for approval, with a yes and a no button that say what they do (`serve` with the Slack bot); only that user of that team (default: the app's own) can answer.",
    ),
  SLACK_IN_CHANNEL_OPERATIONS: z
    .string()
    .optional()
    .describe(
      "Operations whose outcome is posted for the whole channel (comma-separated names; default create_release, retry_pipeline, cancel_pipeline, create_pipeline; 'none': every reply private).",
    ),
});

export type Environment = z.infer<typeof ENVIRONMENT>;

export interface Config {
  codehost: {
    /** Undefined: no service configured, so the embedded sandbox is used. */
    url?: string;
    token?: string;
    scimToken?: string;
    /** The terminal's public OAuth application at the code host (forgeops login). */
    cliClientId?: string;
    caFile?: string;
    timeoutMs: number;
    maxRetries: number;
  };
  server: {
    host: string;
    port: number;
    mcpToken?: string;
    allowedOrigins: string[];
    allowedHosts: string[];
    maxSessions: number;
    replicaId?: string;
    /** Undefined: the default share (see defaultMaxSessionsPerCaller). */
    maxSessionsPerCaller?: number;
    trustedProxies: string[];
    /** FORGEOPS_MCP_AUTH as set; undefined: chosen at start (see mcpAuthMode). */
    mcpAuth?: 'oauth' | 'token';
    /** Pre-registered MCP clients of the authorization server. */
    mcpClients: McpClientSetting[];
    maxRegisteredClients: number;
    allowPrivateClientUrls: boolean;
  };
  /** apps: the triage view for hosts that render MCP Apps (FORGEOPS_APPS). */
  policy: { readOnly: boolean; toolsets: string[]; tools: string[]; apps: boolean };
  approval: {
    policy: ApprovalPolicy;
    secret?: string;
    /** Port of the page `forgeops mcp` starts (0: any free one). */
    port: number;
    publicUrl?: string;
    /** Program and arguments run with each link appended. */
    openCommand?: string[];
  };
  /** Overall deadline of one tool call, in ms. */
  callTimeoutMs: number;
  /** HTTP(S)_PROXY and NO_PROXY as configured (upper or lower case), read nowhere else. */
  proxy: { httpProxy?: string; httpsProxy?: string; noProxy?: string };
  maxResultChars: number;
  /**
   * Watching branches: check interval, caps, the refused attempts a channel may make in their window, the webhook's
   * secret (unset: no webhook endpoint) and the spacing of the checks webhooks ask for.
   */
  watch: {
    intervalMs: number;
    maxWatches: number;
    maxPerChannel: number;
    maxRefused: number;
    refusedWindowMs: number;
    webhookSecret?: string;
    webhookSpacingMs: number;
  };
  /** Largest MCP message either transport accepts. */
  maxMessageBytes: number;
  logLevel: 'error' | 'warn' | 'info' | 'debug';
  logFormat: 'text' | 'json';
  /** Where MCP tools save binary results; undefined: small ones are attached, larger ones only described. */
  downloadDir?: string;
  /** Where state and the audit log live; undefined: memory only. */
  dataDir?: string;
  /** Shared state in Redis (several replicas); undefined: the file store or memory. */
  redisUrl?: string;
  /** The key material for tokens stored at rest. */
  secret?: string;
  /** Signing in through the code host: forgeops's address for browsers and its application there. */
  identity: {
    publicUrl?: string;
    clientId?: string;
    clientSecret?: string;
    scopes: string[];
  };
  slack: {
    signingSecret?: string;
    botToken?: string;
    appToken?: string;
    apiUrl?: string;
    readOnlyChannels: string[];
    sharedReadToken?: string;
    /** Who approves MCP calls in Slack. */
    approver?: string;
    /** As configured (operation names, or ['none']); undefined: the default list. */
    inChannelOperations?: string[];
  };
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Validates an environment; throws ConfigError whose message is one line naming the variable(s). */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const result = ENVIRONMENT.safeParse(env);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join('.')} ${i.message}`);
    throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  }
  const e = result.data;
  checkSignInApplication(e);
  return {
    codehost: {
      url: e.CODEHOST_URL,
      token: e.CODEHOST_TOKEN || undefined,
      scimToken: e.CODEHOST_SCIM_TOKEN || undefined,
      cliClientId: e.FORGEOPS_CLI_CLIENT_ID?.trim() || undefined,
      caFile: e.CODEHOST_CA_FILE || undefined,
      timeoutMs: e.CODEHOST_TIMEOUT_MS,
      maxRetries: e.CODEHOST_MAX_RETRIES,
    },
    server: {
      host: e.FORGEOPS_HOST,
      port: e.FORGEOPS_PORT,
      mcpToken: e.FORGEOPS_MCP_TOKEN || undefined,
      allowedOrigins: e.FORGEOPS_ALLOWED_ORIGINS,
      allowedHosts: e.FORGEOPS_ALLOWED_HOSTS.map((h) => h.toLowerCase()),
      maxSessions: e.FORGEOPS_MAX_SESSIONS,
      maxSessionsPerCaller: e.FORGEOPS_MAX_SESSIONS_PER_CALLER || undefined,
      trustedProxies: e.FORGEOPS_TRUSTED_PROXIES,
      replicaId: e.FORGEOPS_REPLICA_ID || undefined,
      mcpAuth: e.FORGEOPS_MCP_AUTH || undefined,
      mcpClients: e.FORGEOPS_MCP_CLIENTS?.trim() ? (parseMcpClients(e.FORGEOPS_MCP_CLIENTS) ?? []) : [],
      maxRegisteredClients: e.FORGEOPS_MCP_MAX_REGISTERED_CLIENTS,
      allowPrivateClientUrls: e.FORGEOPS_OAUTH_ALLOW_PRIVATE_CLIENT_URLS,
    },
    policy: {
      readOnly: e.FORGEOPS_READ_ONLY,
      toolsets: e.FORGEOPS_TOOLSETS,
      tools: e.FORGEOPS_TOOLS,
      apps: e.FORGEOPS_APPS,
    },
    approval: {
      policy: approvalPolicy(e.FORGEOPS_APPROVAL, e.FORGEOPS_CONFIRM_WITHOUT_ELICITATION),
      secret: e.FORGEOPS_APPROVAL_SECRET || undefined,
      port: e.FORGEOPS_APPROVAL_PORT,
      publicUrl: e.FORGEOPS_APPROVAL_URL,
      openCommand: e.FORGEOPS_APPROVAL_OPEN?.trim() ? e.FORGEOPS_APPROVAL_OPEN.trim().split(/\s+/) : undefined,
    },
    callTimeoutMs: e.FORGEOPS_CALL_TIMEOUT_MS,
    proxy: {
      httpProxy: env.HTTP_PROXY || env.http_proxy || undefined,
      httpsProxy: env.HTTPS_PROXY || env.https_proxy || undefined,
      noProxy: env.NO_PROXY ?? env.no_proxy,
    },
    maxResultChars: e.FORGEOPS_MAX_RESULT_CHARS,
    watch: {
      intervalMs: e.FORGEOPS_WATCH_INTERVAL_MS,
      maxWatches: e.FORGEOPS_MAX_WATCHES,
      maxPerChannel: e.FORGEOPS_MAX_WATCHES_PER_CHANNEL,
      maxRefused: e.FORGEOPS_MAX_REFUSED_WATCHES,
      refusedWindowMs: e.FORGEOPS_REFUSED_WATCHES_WINDOW_MS,
      webhookSecret: e.FORGEOPS_WEBHOOK_SECRET || undefined,
      webhookSpacingMs: e.FORGEOPS_WEBHOOK_SPACING_MS,
    },
    maxMessageBytes: e.FORGEOPS_MAX_MESSAGE_BYTES,
    logLevel: e.FORGEOPS_LOG_LEVEL,
    logFormat: e.FORGEOPS_LOG_FORMAT,
    downloadDir: e.FORGEOPS_DOWNLOAD_DIR,
    dataDir: e.FORGEOPS_DATA_DIR,
    redisUrl: e.FORGEOPS_REDIS_URL || undefined,
    secret: e.FORGEOPS_SECRET || undefined,
    identity: {
      publicUrl: e.FORGEOPS_PUBLIC_URL,
      clientId: e.FORGEOPS_OAUTH_CLIENT_ID?.trim() || undefined,
      clientSecret: e.FORGEOPS_OAUTH_CLIENT_SECRET || undefined,
      scopes: e.FORGEOPS_OAUTH_SCOPES,
    },
    slack: {
      signingSecret: e.SLACK_SIGNING_SECRET || undefined,
      botToken: e.SLACK_BOT_TOKEN || undefined,
      appToken: e.SLACK_APP_TOKEN || undefined,
      apiUrl: e.SLACK_API_URL,
      readOnlyChannels: e.SLACK_READ_ONLY_CHANNELS,
      sharedReadToken: e.SLACK_SHARED_READ_TOKEN || undefined,
      approver: e.SLACK_APPROVER || undefined,
      inChannelOperations: e.SLACK_IN_CHANNEL_OPERATIONS?.trim()
        ? e.SLACK_IN_CHANNEL_OPERATIONS.split(',')
            .map((v) => v.trim())
            .filter(Boolean)
        : undefined,
    },
  };
}

/**
 * forgeops's application at the code host is named in full or not at all: a secret without its id, or an id with no
 * code host to register it at, would fail only when the first person tries to sign in.
 */
function checkSignInApplication(e: z.infer<typeof ENVIRONMENT>): void {
  if (e.FORGEOPS_OAUTH_CLIENT_SECRET && !e.FORGEOPS_OAUTH_CLIENT_ID?.trim()) {
    throw new ConfigError(
      'invalid configuration: FORGEOPS_OAUTH_CLIENT_SECRET is set without FORGEOPS_OAUTH_CLIENT_ID',
    );
  }
  if (e.FORGEOPS_OAUTH_CLIENT_ID?.trim() && !e.CODEHOST_URL) {
    throw new ConfigError(
      'invalid configuration: FORGEOPS_OAUTH_CLIENT_ID needs CODEHOST_URL (the embedded sandbox registers its own application)',
    );
  }
}

/**
 * FORGEOPS_APPROVAL, or its older spelling; both set and disagreeing is a mistake worth stopping for, since one of
 * them would silently weaken (or strengthen) what a destructive call needs.
 */
function approvalPolicy(approval: ApprovalPolicy | undefined, older: 'refuse' | 'allow' | undefined): ApprovalPolicy {
  if (approval && older && approval !== older) {
    throw new ConfigError(
      `invalid configuration: FORGEOPS_APPROVAL is '${approval}' but FORGEOPS_CONFIRM_WITHOUT_ELICITATION (its older spelling) is '${older}'; set only FORGEOPS_APPROVAL`,
    );
  }
  return approval ?? older ?? 'elicit';
}

/** Where the configuration came from, for the start-up log line. */
export interface ConfigSource {
  /** The env file read, as an absolute path, and how many variables it set that the environment did not. */
  envFile?: { path: string; variables: number };
  /** A .env in the working directory that was left unread (no one named it). */
  ignoredDotenv?: string;
}

/** Above this an "env file" is not one (a log, a binary): refuse it rather than parse megabytes. */
const MAX_ENV_FILE_BYTES = 1024 * 1024;

/** Reads an env file the operator named; anything that is not a readable text file stops start-up naming it. */
function readEnvFile(path: string, named: string): Record<string, string> {
  const bad = (why: string) => new ConfigError(`invalid configuration: ${named} '${path}' ${why}`);
  let text: Buffer;
  try {
    if (statSync(path).isDirectory()) throw bad('is a directory, not an env file');
    if (statSync(path).size > MAX_ENV_FILE_BYTES)
      throw bad(`is larger than ${MAX_ENV_FILE_BYTES} bytes, not an env file`);
    text = readFileSync(path);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw bad(
      code === 'ENOENT'
        ? 'does not exist'
        : code === 'EACCES'
          ? 'cannot be read (permission denied)'
          : `cannot be read: ${(error as Error).message}`,
    );
  }
  if (text.includes(0)) throw bad('is binary, not an env file of KEY=value lines');
  const garbage = firstLineNotAssignment(text.toString('utf8'));
  // The line number only: the line itself may hold a secret.
  if (garbage !== undefined) throw bad(`line ${garbage} is not KEY=value (nor a comment)`);
  return parseDotenv(text);
}

const ASSIGNMENT = /^\s*(?:export\s+)?[A-Za-z_][A-Za-z0-9_.-]*\s*=\s*(.*)$/;

/**
 * The number of the first line that is neither blank, a comment, nor KEY=value (dotenv skips such lines
 * silently, so a mangled file would quietly lose its settings). A quoted value may run over several lines.
 */
function firstLineNotAssignment(text: string): number | undefined {
  const lines = text.split(/\r?\n/);
  let openQuote: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (openQuote) {
      if (line.includes(openQuote)) openQuote = undefined;
      continue;
    }
    if (/^\s*(#.*)?$/.test(line)) continue;
    const value = ASSIGNMENT.exec(line)?.[1];
    if (value === undefined) return i + 1;
    const quote = /^["'`]/.exec(value)?.[0];
    if (quote && !value.slice(1).includes(quote)) openQuote = quote;
  }
  return undefined;
}

/**
 * The configuration: the process environment, plus the env file named by `envFile` (--env-file) or
 * FORGEOPS_ENV_FILE; the environment wins where both set a variable. A .env that merely sits in the working
 * directory is never read: assistants start servers inside cloned repositories, and a file nobody chose must
 * not weaken approval, read-only mode or bind address, swap tokens, or redirect traffic (URL, proxy, CA).
 * Nothing is written to process.env, and nothing is printed (stdout is the MCP channel in stdio mode).
 */
export function loadConfig(options: { envFile?: string; env?: NodeJS.ProcessEnv; cwd?: string } = {}): {
  config: Config;
  source: ConfigSource;
} {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const named = options.envFile !== undefined ? '--env-file' : 'FORGEOPS_ENV_FILE';
  const chosen = options.envFile ?? (env.FORGEOPS_ENV_FILE || undefined);
  const source: ConfigSource = {};
  let merged: Record<string, string | undefined> = env;
  if (chosen !== undefined) {
    const path = resolve(cwd, chosen);
    const fromFile = readEnvFile(path, named);
    const added = Object.keys(fromFile).filter((key) => env[key] === undefined);
    merged = { ...fromFile, ...env };
    source.envFile = { path, variables: added.length };
  } else {
    const dotenv = resolve(cwd, '.env');
    try {
      if (statSync(dotenv).isFile()) source.ignoredDotenv = dotenv;
    } catch {
      // no .env here: nothing to mention
    }
  }
  const config = parseConfig(merged);
  if (config.codehost.caFile) {
    try {
      readCaFile(resolve(cwd, config.codehost.caFile));
    } catch (error) {
      if (error instanceof CaFileError)
        throw new ConfigError(`invalid configuration: CODEHOST_CA_FILE '${error.path}' ${error.reason}`);
      throw error;
    }
  }
  return { config, source };
}
