#!/usr/bin/env node
// The forgeops command: serve | mcp | chat | slack | sandbox | doctor | ops. Each mode imports only what it needs, to start fast.
import { fileURLToPath } from 'node:url';
import { closest } from './text/suggest.js';
import {
  COMMANDS,
  USAGE,
  UsageError,
  VERSION,
  commandHelp,
  commandOptions,
  endQuietlyOnClosedOutput,
  fail,
  type ParsedOptions,
  portOption,
  reportFailure,
  stringOption,
} from './cli/commands.js';
import { listenError, setup } from './cli/setup.js';
import { startFromCopy } from './cli/compiled-copy.js';
import { sizeHeapForLongSession } from './cli/mcp-stdio.js';

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

/** The compiled copy of `command`, beside this file (dist/cli.js) as tools/bundle.mjs builds it. */
function copyOf(command: 'mcp' | 'chat'): string {
  return fileURLToPath(new URL(`./${command}.cjs`, import.meta.url));
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
  // These two read their own options, run from their compiled copies beside this file (see src/cli/compiled-copy.ts).
  if (command === 'mcp') {
    // Set before the copy is compiled: V8 takes compiled code only made under the same flags.
    sizeHeapForLongSession();
    return startFromCopy(copyOf('mcp'), () => import('./cli/mcp-main.js'));
  }
  if (command === 'chat') return startFromCopy(copyOf('chat'), () => import('./cli/chat-main.js'));
  const values = commandOptions(command, rest);
  if (!values) return;
  switch (command) {
    case 'serve':
      return (await import('./cli/serve.js')).serveHttp(values);
    case 'slack':
      return runSlack(values);
    case 'sandbox':
      return runSandbox(values);
    case 'doctor':
      return runDoctorCommand(values);
    case 'ops':
      return listOperations(values.json === true);
    case 'login':
    case 'logout':
    case 'whoami':
      return runSignIn(command, values);
  }
}

endQuietlyOnClosedOutput();
main(process.argv.slice(2)).catch(reportFailure);
