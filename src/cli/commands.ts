// The forgeops command line's words: its commands and their options, how they are read, and how a failure is reported.
// Shared by the CLI and the stdio server's compiled copy (src/cli/mcp-main.ts), so both read and fail alike.
import { closest } from '../text/suggest.js';

export const VERSION = '0.1.0';

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

export const COMMANDS: Record<string, CommandSpec> = {
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

export const USAGE = [
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

export function commandHelp(name: string): string {
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
export class UsageError extends Error {
  constructor(
    message: string,
    readonly command?: string,
  ) {
    super(message);
  }
}

export function fail(message: string, code: number): never {
  process.stderr.write(`forgeops: ${message}\n`);
  process.exit(code);
}

export type ParsedOptions = Record<string, string | true>;

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

export function portOption(values: ParsedOptions, command: string): number | undefined {
  const text = values.port;
  if (typeof text !== 'string') return undefined;
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535)
    throw new UsageError(`--port must be a whole number from 0 to 65535, got '${text}'`, command);
  return port;
}

export function stringOption(values: ParsedOptions, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * A command's options, or undefined after printing its help (`--help`). A usage mistake throws a UsageError, which
 * `reportFailure` turns into the command's usage line.
 */
export function commandOptions(command: string, args: string[]): ParsedOptions | undefined {
  const values = parseOptions(command, args);
  if (values !== 'help') return values;
  process.stdout.write(`${commandHelp(command)}\n`);
  return undefined;
}

/** Ends the process for a command that failed: a usage mistake or bad configuration with status 2, the rest with 1. */
export function reportFailure(error: unknown): never {
  if (error instanceof UsageError) {
    const usage = error.command
      ? `usage: ${COMMANDS[error.command].usage}\n(forgeops ${error.command} --help shows its options)`
      : 'forgeops help lists the commands';
    fail(`${error.message}\n${usage}`, 2);
  }
  // Bad configuration is the operator's to fix: one line naming the variable, exit status 2.
  if (error instanceof Error && error.name === 'ConfigError') fail(error.message, 2);
  fail(error instanceof Error ? error.message : String(error), 1);
}

let endsQuietly = false;

/** A reader that goes away (`forgeops ops | head -1`) is not an error worth a stack trace. Once per process. */
export function endQuietlyOnClosedOutput(): void {
  if (endsQuietly) return;
  endsQuietly = true;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    fail(`cannot write the output: ${error.message}`, 1);
  });
}
