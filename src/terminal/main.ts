// `forgeops chat`: the terminal front end wired to the configured service (or the embedded sandbox) and the registry.
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { createDispatcher } from '../chat/dispatch.js';
import { operations } from '../operations/index.js';
import { createRuntime, type Runtime } from '../runtime.js';
import { runInteractive, runOneShot, type TerminalChatOptions } from './chat.js';
import { historyFile } from './history.js';
import { terminalWatch } from './watch.js';

interface ChatCliOptions {
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
  // Against the sandbox, `as <user>` switches to that demo user's token; otherwise the configured one is used.
  let actingToken: string | undefined;
  const dispatcher = createDispatcher({
    operations,
    policy: { readOnly: config.policy.readOnly },
    runContext: () => ({
      client: runtime.client,
      deadline: Date.now() + config.callTimeoutMs,
      ...(actingToken ? { token: actingToken } : {}),
    }),
    explain: {
      operations,
      deadline: { ms: config.callTimeoutMs, setting: CALL_TIMEOUT_SETTING },
      service: runtime.service,
    },
    defaultProject: {
      get: () => defaultProject,
      set: (project) => {
        defaultProject = project;
      },
    },
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
    ...(runtime.sandbox
      ? {
          local: (line: string) =>
            actAs(line, runtime, (token) => {
              actingToken = token;
            }),
        }
      : {}),
    usernames: (prefix: string) => usernamesStartingWith(runtime, prefix, actingToken),
    follow: terminalWatch({
      operations: () => operations,
      intervalMs: config.watch.intervalMs,
      runContext: () => ({
        client: runtime.client,
        deadline: Date.now() + config.callTimeoutMs,
        ...(actingToken ? { token: actingToken } : {}),
      }),
    }),
    // A SIGINT from outside the prompt (kill -INT, Ctrl+C when input is piped) stops the command, as Ctrl+C does.
    interrupts: (handler: () => void) => {
      process.on('SIGINT', handler);
      return () => process.off('SIGINT', handler);
    },
  };
  try {
    if (options.line !== undefined) return await runOneShot(options.line, session);
    process.stdout.write(
      `forgeops chat on ${runtime.serviceLabel} as ${await whoAmI(runtime, undefined)}. ` +
        'Type help for the commands, watch <project> to follow a branch, Tab to complete, Ctrl+C to stop a command, Ctrl+D to leave.\n',
    );
    if (runtime.sandbox) process.stdout.write(`Demo users: ${DEMO_USERS.join(', ')}; \`as <user>\` acts as another.\n`);
    if (options.dryRun)
      process.stdout.write('Dry run: commands that change something show what they would send; nothing is sent.\n');
    return await runInteractive(session);
  } finally {
    await runtime.close();
  }
}

/** The sandbox's demo users, by their usernames (the sandbox's own seed names them; see `forgeops sandbox`). */
const DEMO_USERS = ['root', 'alice', 'bob', 'carol', 'dave', 'erin'];

interface CurrentUser {
  username?: string;
  name?: string;
}

/** Who a token acts as, in words ("@alice (Alice Martin)"): asked of the service, since the token alone does not say. */
async function whoAmI(runtime: Runtime, token: string | undefined): Promise<string> {
  try {
    const { data } = await runtime.client.request<CurrentUser>({
      method: 'GET',
      path: '/user',
      idempotent: true,
      ...(token ? { token } : {}),
    });
    return data.username ? `@${data.username}${data.name ? ` (${data.name})` : ''}` : 'an unnamed account';
  } catch (error) {
    return `an account GET /user could not name (${(error as Error).message.split('\n')[0]})`;
  }
}

/**
 * `as <user>` (or `as @user`) against the sandbox: acts as that demo user from the next command on, with the
 * sandbox's token for them; the sandbox, and what was done in it, stays. Anything else is not this command.
 */
async function actAs(line: string, runtime: Runtime, use: (token: string) => void): Promise<string | undefined> {
  const match = /^as(?:\s+@?(\S+))?$/.exec(line);
  if (!match) return undefined;
  const wanted = match[1]?.toLowerCase();
  if (!wanted) return `Usage: as <user>, one of ${DEMO_USERS.join(', ')}.`;
  const { tokens } = await runtime.sandbox!();
  for (const [role, token] of Object.entries(tokens)) {
    if (role === 'scim') continue;
    const who = await whoAmI(runtime, token);
    if (who.startsWith(`@${wanted} `) || who === `@${wanted}` || role === wanted) {
      use(token);
      return `Now acting as ${who}, the sandbox's demo ${role}.`;
    }
  }
  return `No demo user "${match[1]}": one of ${DEMO_USERS.join(', ')}.`;
}

/** Usernames that start with `prefix`, from the service's user search (one page): Tab completion of people. */
async function usernamesStartingWith(runtime: Runtime, prefix: string, token: string | undefined): Promise<string[]> {
  const { data } = await runtime.client.request<CurrentUser[]>({
    method: 'GET',
    path: '/users',
    query: { ...(prefix ? { search: prefix } : {}), per_page: '20' },
    idempotent: true,
    ...(token ? { token } : {}),
  });
  const lower = prefix.toLowerCase();
  return (Array.isArray(data) ? data : [])
    .map((u) => u.username)
    .filter((u): u is string => typeof u === 'string' && u.toLowerCase().startsWith(lower));
}
