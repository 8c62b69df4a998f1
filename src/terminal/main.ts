// `forgeops chat`: the terminal front end wired to the configured service (or the embedded sandbox) and the registry.
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { createDispatcher } from '../chat/dispatch.js';
import { operations } from '../operations/index.js';
import { createRuntime } from '../runtime.js';
import { runInteractive, runOneShot, type TerminalChatOptions } from './chat.js';
import { historyFile } from './history.js';

export interface ChatCliOptions {
  /** One shot: this line, then exit; undefined: the prompt. */
  line?: string;
  json: boolean;
  yes: boolean;
  /** Preview every change instead of sending it. */
  dryRun?: boolean;
}

/** The setting named when a call runs out of time. */
const CALL_TIMEOUT_SETTING = 'FORGEOPS_CALL_TIMEOUT_MS';

/** Colour only for a person at a terminal who did not turn it off (https://no-color.org). */
function wantsColor(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv): boolean {
  return stream.isTTY === true && env.NO_COLOR === undefined && env.TERM !== 'dumb';
}

/** Runs the chat and returns the exit status. */
export async function runChatCli(config: Config, log: Logger, options: ChatCliOptions): Promise<number> {
  const runtime = await createRuntime(config, log);
  let defaultProject: string | undefined;
  const dispatcher = createDispatcher({
    operations,
    policy: { readOnly: config.policy.readOnly },
    runContext: () => ({ client: runtime.client, deadline: Date.now() + config.callTimeoutMs }),
    explain: { operations, deadline: { ms: config.callTimeoutMs, setting: CALL_TIMEOUT_SETTING }, service: runtime.service },
    defaultProject: { get: () => defaultProject, set: (project) => { defaultProject = project; } },
    ...(config.codehost.url ? { baseUrl: config.codehost.url } : {}),
    dryRun: options.dryRun === true,
  });
  const session: TerminalChatOptions = {
    dispatcher,
    operations,
    input: process.stdin,
    output: process.stdout,
    errors: process.stderr,
    color: wantsColor(process.stdout, process.env),
    json: options.json,
    yes: options.yes,
    // History goes to disk only where the operator chose a place for state (FORGEOPS_DATA_DIR).
    ...(config.dataDir ? { history: historyFile(config.dataDir) } : {}),
    prompt: () => `forgeops${defaultProject ? ` ${defaultProject}` : ''}> `,
  };
  try {
    if (options.line !== undefined) return await runOneShot(options.line, session);
    process.stdout.write(`forgeops chat on ${runtime.serviceLabel}${runtime.sandbox ? ' (as its demo maintainer)' : ''}. ` +
      'Type help for the commands, Tab to complete, Ctrl+D to leave.\n');
    if (options.dryRun) process.stdout.write('Dry run: commands that change something show what they would send; nothing is sent.\n');
    return await runInteractive(session);
  } finally {
    await runtime.close();
  }
}
