// What the commands set up first: the configuration, the log that hides its secrets, the MCP tools offered, whether the
// approval page is needed, and a busy port in the words of its setting. What they use is imported lazily, when used.
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { Selectable } from '../mcp/toolsets.js';
import { fail, type ParsedOptions, stringOption } from './commands.js';

/** The password in a URL (Redis, a proxy), so that no log line can show it. */
function urlPassword(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return decodeURIComponent(new URL(url).password) || undefined;
  } catch {
    return undefined;
  }
}

export async function setup(
  envFile: string | undefined,
  quiet = false,
): Promise<{ config: Config; log: Logger; secrets: Array<string | undefined> }> {
  const { loadConfig } = await import('../config.js');
  const { createJsonLogger, createLogger } = await import('../log.js');
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

/**
 * The tools a server offers: --toolsets and --tools over their variables, checked before anything starts, so a
 * misspelt toolset stops start-up with the list of real ones instead of a server with no tools.
 */
export async function toolSelection(config: Config, values: ParsedOptions, tools: readonly Selectable[]) {
  const [{ selectTools, ToolSelectionError }, { splitList }] = await Promise.all([
    import('../mcp/toolsets.js'),
    import('../config.js'),
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

/** Whether a policy ever sends a human to the approval page (`elicit` does for clients with URL elicitation only). */
export function usesApprovalPage(config: Config): boolean {
  return config.approval.policy === 'elicit' || config.approval.policy === 'page';
}

/** A busy port in the words of the setting that chooses it, for every command that listens. */
export function listenError(error: unknown, host: string, port: number | undefined, setting: string): never {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') fail(`port ${port} on ${host} is in use; pick another with ${setting}`, 1);
  if (code === 'EADDRNOTAVAIL') fail(`cannot listen on ${host}: it is not an address of this machine`, 1);
  if (code === 'EACCES') fail(`no permission to listen on port ${port} of ${host}; pick a port above 1023`, 1);
  throw error;
}
