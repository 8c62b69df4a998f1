#!/usr/bin/env node
// The forgeops command: serve | mcp | sandbox | ops. Each mode imports only what it needs, to start fast.
import { parseArgs } from 'node:util';
import type { Config } from './config.js';
import type { Logger } from './log.js';

const USAGE = `forgeops: act on a code hosting service from AI assistants, Slack and the terminal.

Usage:
  forgeops serve [--port N] [--host H] [--env-file F]  MCP server over Streamable HTTP (what \`npm start\` runs)
  forgeops mcp [--env-file F]                          MCP server over stdio, for clients that spawn it
  forgeops sandbox [--port N] [--host H]               run the embedded sandbox service alone and print its demo tokens
  forgeops ops [--json]                                list every operation (name, chat words, route, effect)
  forgeops help                                        this text

With no CODEHOST_URL set, serve and mcp start the embedded sandbox in the same process and use it.
Configuration comes from the environment, and from an env file only when one is named with --env-file
or FORGEOPS_ENV_FILE (a .env in the working directory is never read by itself); see the README.`;

class UsageError extends Error {}

function fail(message: string, code: number): never {
  process.stderr.write(`forgeops: ${message}\n`);
  process.exit(code);
}

function parseOptions(args: string[], allowed: { port?: boolean; host?: boolean; json?: boolean; envFile?: boolean }) {
  try {
    const { values, positionals } = parseArgs({
      args,
      strict: true,
      allowPositionals: true,
      options: {
        ...(allowed.port ? { port: { type: 'string' as const } } : {}),
        ...(allowed.host ? { host: { type: 'string' as const } } : {}),
        ...(allowed.json ? { json: { type: 'boolean' as const } } : {}),
        ...(allowed.envFile ? { 'env-file': { type: 'string' as const } } : {}),
      },
    });
    if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
    const port = values.port === undefined ? undefined : Number(values.port);
    if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) {
      throw new UsageError(`--port must be a number from 0 to 65535, got '${values.port}'`);
    }
    const envFile = values['env-file'] as string | undefined;
    if (envFile === '') throw new UsageError('--env-file needs the path of an env file');
    return { port, host: values.host as string | undefined, json: values.json === true, envFile };
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

async function setup(envFile: string | undefined): Promise<{ config: Config; log: Logger }> {
  const { loadConfig, ConfigError } = await import('./config.js');
  const { createLogger } = await import('./log.js');
  try {
    const { config, source } = loadConfig({ envFile });
    const log = createLogger(config.logLevel, [config.codehost.token, config.codehost.scimToken, config.server.mcpToken]);
    if (source.envFile) log.info(`configuration: the environment and ${source.envFile.path} (${source.envFile.variables} variables from the file)`);
    else log.info('configuration: the environment only');
    if (source.ignoredDotenv) {
      log.warn(`did not read ${source.ignoredDotenv}: forgeops reads an env file only when it is named (--env-file or FORGEOPS_ENV_FILE)`);
    }
    return { config, log };
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message, 2);
    throw error;
  }
}

async function listOperations(json: boolean): Promise<void> {
  const { operations } = await import('./operations/index.js');
  if (json) {
    const rows = operations.map((op) => ({
      name: op.name, chat: op.chat, area: op.area, method: op.method, path: op.path,
      effect: op.effect, idempotent: op.idempotent, title: op.title,
    }));
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return;
  }
  const width = Math.max(...operations.map((op) => op.name.length));
  for (const op of operations) {
    process.stdout.write(`${op.name.padEnd(width)}  ${op.effect.padEnd(11)}  ${op.method} ${op.path}\n`);
  }
  process.stdout.write(`${operations.length} operations\n`);
}

async function serveHttp(args: string[]): Promise<void> {
  const opts = parseOptions(args, { port: true, host: true, envFile: true });
  const { config, log } = await setup(opts.envFile);
  const host = opts.host ?? config.server.host;
  const port = opts.port ?? config.server.port;
  const [{ createRuntime }, { operations }, { createMcpServer }, { startMcpHttpServer }] = await Promise.all([
    import('./runtime.js'), import('./operations/index.js'), import('./mcp/server.js'), import('./mcp/http.js'),
  ]);
  const runtime = await createRuntime(config, log);
  let http;
  try {
    http = await startMcpHttpServer({
      host, port, mcpToken: config.server.mcpToken, allowedOrigins: config.server.allowedOrigins, log,
      maxSessions: config.server.maxSessions, maxMessageBytes: config.maxMessageBytes,
      createSessionServer: ({ token }) => createMcpServer({
        operations, client: runtime.client, token, log, readOnly: config.policy.readOnly, toolsets: config.policy.toolsets,
        confirmWithoutElicitation: config.policy.confirmWithoutElicitation, maxResultChars: config.maxResultChars,
        callTimeoutMs: config.callTimeoutMs,
      }),
    });
  } catch (error) {
    await runtime.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') fail(`port ${port} on ${host} is in use; pick another with --port or FORGEOPS_PORT`, 1);
    fail((error as Error).message, 1);
  }
  const { bannerText } = await import('./banner.js');
  const sandbox = runtime.sandbox ? await runtime.sandbox() : undefined;
  process.stdout.write(bannerText({ mcpUrl: http.url, serviceLabel: runtime.serviceLabel, sandbox, config }));
  const stop = async () => {
    await http.close();
    await runtime.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

async function serveStdio(args: string[]): Promise<void> {
  const { config, log } = await setup(parseOptions(args, { envFile: true }).envFile);
  const [{ createRuntime }, { operations }, { createMcpServer }, { LimitedStdioTransport }] = await Promise.all([
    import('./runtime.js'), import('./operations/index.js'), import('./mcp/server.js'), import('./mcp/stdio.js'),
  ]);
  const runtime = await createRuntime(config, log);
  const server = createMcpServer({
    operations, client: runtime.client, log, readOnly: config.policy.readOnly, toolsets: config.policy.toolsets,
    confirmWithoutElicitation: config.policy.confirmWithoutElicitation, maxResultChars: config.maxResultChars,
        callTimeoutMs: config.callTimeoutMs,
  });
  const transport = new LimitedStdioTransport({ maxMessageBytes: config.maxMessageBytes, log });
  let closing = false;
  const stop = async () => {
    if (closing) return;
    closing = true;
    await server.close().catch(() => undefined);
    await runtime.close();
    process.exit(0);
  };
  // The client ends a stdio server by closing our stdin.
  process.stdin.once('end', stop);
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await server.connect(transport);
  log.info(`mcp stdio ready: ${operations.length} operations against ${runtime.serviceLabel}`);
}

async function runSandbox(args: string[]): Promise<void> {
  const opts = parseOptions(args, { port: true, host: true });
  const { runSandboxCli } = await import('./sandbox/main.js');
  await runSandboxCli({ port: opts.port, host: opts.host });
}

async function main(argv: string[]): Promise<void> {
  const [command = 'help', ...rest] = argv;
  switch (command) {
    case 'serve': return serveHttp(rest);
    case 'mcp': return serveStdio(rest);
    case 'sandbox': return runSandbox(rest);
    case 'ops': return listOperations(parseOptions(rest, { json: true }).json);
    case 'help': case '--help': case '-h':
      process.stdout.write(`${USAGE}\n`);
      return;
    case '--version': case '-v':
      process.stdout.write('forgeops 0.1.0\n');
      return;
    default:
      throw new UsageError(`unknown command '${command}'`);
  }
}

main(process.argv.slice(2)).catch((error) => {
  if (error instanceof UsageError) fail(`${error.message}\n\n${USAGE}`, 2);
  fail(error instanceof Error ? error.message : String(error), 1);
});
