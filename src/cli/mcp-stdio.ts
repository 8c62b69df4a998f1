// `forgeops mcp`: the MCP server over stdio that an assistant's host spawns for a session, run from its compiled copy
// (src/cli/compiled-copy.ts; its entry is src/cli/mcp-main.ts), which holds only what the stdio server needs.
import { setFlagsFromString } from 'node:v8';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { commandOptions, type ParsedOptions, fail, stringOption } from './commands.js';
import { setup, toolSelection, usesApprovalPage } from './setup.js';

/** The approval page of `forgeops mcp` on 127.0.0.1: listening from the start for `page`, else once first needed. */
async function approvalPageForStdio(config: Config, log: Logger) {
  if (!usesApprovalPage(config)) return undefined;
  const page = await import('../approval/page.js');
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
 * microseconds of a call either way. Set first thing, not by NODE_OPTIONS or a re-spawn (which would double the start),
 * and before the compiled copy is read, since V8 takes compiled code only made under the same flags; each flag only
 * steers V8's sizing or compiling, none changes what the code does.
 */
export function sizeHeapForLongSession(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
  setFlagsFromString('--optimize-for-size');
  setFlagsFromString('--liftoff-only');
}

/** `forgeops mcp`: starts from the tool catalog built into the bundle; the registry, undici and the check come later. */
export async function serveStdio(values: ParsedOptions): Promise<void> {
  // zod compiles a parser (new Function) for an object schema on its first parse; a stdio server parses most of its
  // schemas a few times at most, so compiling costs more than it saves. zod reads this when a schema is made: first.
  (await import('zod/v4/core')).config({ jitless: true });
  const { config, log, secrets } = await setup(stringOption(values, 'env-file'));
  const [{ createRuntime }, { startupCatalog }, { createMcpServer }, { LimitedStdioTransport }] = await Promise.all([
    import('../runtime.js'),
    import('../mcp/catalog.js'),
    import('../mcp/server.js'),
    import('../mcp/stdio.js'),
  ]);
  const catalog = await startupCatalog();
  const selection = await toolSelection(config, values, catalog.tools);
  const approvals = await approvalPageForStdio(config, log);
  const runtime = await createRuntime(config, log);
  // Made on the first status subscription, in this process's memory: most stdio sessions never subscribe.
  let hub: Promise<import('../watch/hub.js').WatchHub> | undefined;
  const watches = () =>
    (hub ??= (async () => {
      const [{ startWatchHub }, { openConfiguredStore }, { operations }] = await Promise.all([
        import('../watch/start.js'),
        import('../state/store.js'),
        import('../operations/index.js'),
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
    void import('../doctor.js').then(({ checkServiceAtStart }) =>
      checkServiceAtStart(config, (line) => log.warn(line)),
    );
  }, STDIO_SERVICE_CHECK_DELAY_MS).unref();
}

/** `forgeops mcp [options]` read and run: its help printed, a usage mistake reported as the CLI reports it. */
export async function runMcpCommand(args: string[]): Promise<void> {
  const values = commandOptions('mcp', args);
  if (values) await serveStdio(values);
}
