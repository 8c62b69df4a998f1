// The built `forgeops mcp` starts from the catalog embedded at build time: it answers initialize and tools/list as the
// live server does, loads neither the registry, undici, ajv, Bolt nor the sandbox before its first call, and that call
// builds the schemas of its own area only.
import { spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { APPS_EXTENSION_ID, VIEW_MIME_TYPE } from '../../src/apps/triage-app.js';
import { PassThrough } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { connectInMemory, testServerOptions, useSandbox } from '../helpers/mcp.js';
import { answerShape, feedShape, SHAPES } from '../helpers/stdio-shapes.js';
import { cliStdioTransport } from '../helpers/stdio-cli.js';
import { bareEnv } from '../helpers/terminal-session.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
// FORGEOPS_TEST_CLI runs the same checks against another build (an older one, to see what they catch).
const cli = process.env.FORGEOPS_TEST_CLI ?? `${root}dist/cli.js`;
const env = useSandbox();
const hookDir = mkdtempSync(join(tmpdir(), 'forgeops-fast-start-'));
afterAll(() => rmSync(hookDir, { recursive: true, force: true }));

/** What the log has in place of an answer the CLI wrote to stdout: `> ` and the answer's id. */
const ANSWER_MARK = '> ';

/**
 * A module hook for the spawned CLI: each file it loads from dist/ is appended to `log` before it is evaluated, with a
 * synchronous write, so every file a request needed is in the log by the time its answer arrives; and each answer it
 * writes to stdout is marked there too (ANSWER_MARK and its id), so the log tells what was loaded before it.
 */
function loadTracer(log: string): string {
  const hooks = join(hookDir, 'hooks.mjs');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  if (url.startsWith('file:') && url.includes('/dist/')) appendFileSync(${JSON.stringify(log)}, url + '\\n');
  return next(url, context);
}\n`,
  );
  const register = join(hookDir, 'register.mjs');
  writeFileSync(
    register,
    `import { register } from 'node:module';
import { appendFileSync } from 'node:fs';
register(${JSON.stringify(`file://${hooks}`)});
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, ...rest) => {
  for (const line of String(chunk).split('\\n').filter(Boolean)) {
    const id = JSON.parse(line).id;
    if (id !== undefined) appendFileSync(${JSON.stringify(log)}, ${JSON.stringify(ANSWER_MARK)} + JSON.stringify(id) + '\\n');
  }
  return write(chunk, ...rest);
};\n`,
  );
  return register;
}

/** Declared by a host that renders MCP Apps views: it is listed the view's tools and _meta. */
const RENDERS_VIEWS = { extensions: { [APPS_EXTENSION_ID]: { mimeTypes: [VIEW_MIME_TYPE] } } };

/** Spawns the built CLI over stdio, the way an assistant does, with the service set to the test's sandbox. */
async function spawnCli(
  extraEnv: Record<string, string> = {},
  nodeArgs: string[] = [],
  capabilities: Record<string, unknown> = {},
) {
  const transport = cliStdioTransport(env.sandbox, { nodeArgs, env: extraEnv, cli });
  const mcp = new Client({ name: 'fast-start-test', version: '1.0.0' }, { capabilities });
  await mcp.connect(transport);
  return mcp;
}

/**
 * A temporary directory whose forgeops cache folder others may write to: the CLI trusts no compiled code there and
 * runs `mcp` from its ES modules, each a file the tracer sees (the compiled copy is one file, its modules lazy inside).
 */
function untrustedTmp(): string {
  const base = mkdtempSync(join(hookDir, 'untrusted-'));
  const mine = join(base, `forgeops-${process.getuid!()}`);
  mkdirSync(mine);
  chmodSync(mine, 0o777);
  return base;
}

/** The built CLI over stdio, from its ES modules, with the load tracer writing to a fresh log named `logName`. */
async function spawnTracedCli(logName: string) {
  const log = join(hookDir, logName);
  writeFileSync(log, '');
  return { log, mcp: await spawnCli({ TMPDIR: untrustedTmp() }, ['--import', loadTracer(log)]) };
}

/** The sources (as the bundle's source maps name them) of every dist file loaded so far, or before answer `untilId`. */
function loadedSources(log: string, untilId?: string | number): string[] {
  const lines = readFileSync(log, 'utf8').split('\n').filter(Boolean);
  const until = untilId === undefined ? -1 : lines.indexOf(`${ANSWER_MARK}${JSON.stringify(untilId)}`);
  if (untilId !== undefined) expect(until, `the answer ${untilId} is in the log`).toBeGreaterThanOrEqual(0);
  const files = lines
    .slice(0, until === -1 ? undefined : until)
    .filter((line) => !line.startsWith(ANSWER_MARK))
    .map((url) => fileURLToPath(url));
  return files.flatMap((file) => (JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[] }).sources);
}

describe('forgeops mcp from the built bundle', () => {
  it.each([
    ['the default preset', {}, { toolsets: [] }],
    ['every tool', { FORGEOPS_TOOLSETS: 'all' }, {}],
    ['the meta tools', { FORGEOPS_TOOLSETS: 'meta' }, { toolsets: ['meta'] }],
    [
      'read-only, two toolsets',
      { FORGEOPS_READ_ONLY: 'true', FORGEOPS_TOOLSETS: 'pipelines,releases' },
      { readOnly: true, toolsets: ['pipelines', 'releases'] },
    ],
    ['every tool, to a host that renders views', { FORGEOPS_TOOLSETS: 'all' }, { renders: true }],
    ['the default preset, to a host that renders views', {}, { toolsets: [], renders: true }],
    ['the default preset, views off', { FORGEOPS_APPS: 'off' }, { toolsets: [], apps: false, renders: true }],
  ])('lists exactly what the live registry lists: %s', async (_, cliEnv, serverOptions) => {
    const { renders, ...options } = serverOptions as typeof serverOptions & { renders?: boolean };
    const capabilities = renders ? RENDERS_VIEWS : {};
    const built = await spawnCli(cliEnv, [], capabilities);
    const live = await connectInMemory({ client: env.client, ...options, clientCapabilities: capabilities });
    try {
      const [fromBundle, fromRegistry] = await Promise.all([built.listTools(), live.client.listTools()]);
      expect(fromBundle.tools.length).toBeGreaterThan(0);
      expect(fromBundle.tools).toEqual(fromRegistry.tools);
    } finally {
      await built.close();
      await live.close();
    }
  });

  it.each([
    ['the default preset (meta tools)', {}, { toolsets: [] }],
    ['every tool (no meta tools)', { FORGEOPS_TOOLSETS: 'all' }, {}],
  ])('answers initialize as the live server does: %s', async (_, cliEnv, serverOptions) => {
    const built = await spawnCli(cliEnv);
    // As the CLI makes it: status subscriptions offered.
    const live = await connectInMemory({ client: env.client, ...serverOptions, watches: async () => ({}) as never });
    try {
      expect(built.getServerCapabilities()).toEqual(live.client.getServerCapabilities());
      expect(built.getInstructions()).toBe(live.client.getInstructions());
      expect(built.getServerVersion()).toEqual(live.client.getServerVersion());
    } finally {
      await built.close();
      await live.close();
    }
  });

  it('starts with no registry, HTTP client, ajv, Bolt or sandbox; warms the registry up once tools/list is answered; never loads ajv, Bolt, the sandbox, Redis, metrics or the 2026 server', async () => {
    const { log, mcp } = await spawnTracedCli('loaded.log');
    try {
      // Initialized: what the start cost.
      const atStart = loadedSources(log);
      expect(atStart.some((source) => source.endsWith('src/cli.ts'))).toBe(true);
      // Nor what only serve or several replicas need: Redis, metrics, the JSON log, the 2026-07-28 server.
      const never = [
        /node_modules\/ajv\//,
        /node_modules\/@slack\//,
        /src\/sandbox\//,
        /zod\/v4\/locales\/(?!en\.js$|index\.js$)/,
        /node_modules\/(ioredis|prom-client|pino)\//,
        /node_modules\/@modelcontextprotocol\/(server|core)\//,
        /src\/mcp\/stateless\.ts$/,
      ];
      const unwanted = [/src\/operations\/areas\/pipelines\.ts$/, /node_modules\/undici\//, ...never];
      expect(atStart.filter((source) => unwanted.some((pattern) => pattern.test(source)))).toEqual([]);

      // The tool list comes from the built-in catalog; once it is answered the registry loads, with no call made.
      expect((await mcp.listTools()).tools.length).toBeGreaterThan(0);
      const registryLoaded = () =>
        loadedSources(log).some((source) => /src\/operations\/areas\/pipelines\.ts$/.test(source));
      // Bounded: 200 checks of 25 ms.
      for (let i = 0; i < 200 && !registryLoaded(); i++) await new Promise((resolve) => setTimeout(resolve, 25));
      expect(registryLoaded()).toBe(true);

      const result = await mcp.callTool({ name: 'list_pipelines', arguments: { id: 'acme/web', per_page: 2 } });
      expect(result.isError).toBeFalsy();
      const afterCall = loadedSources(log);
      expect(afterCall.some((source) => /node_modules\/undici\//.test(source))).toBe(true);
      expect(afterCall.filter((source) => never.some((pattern) => pattern.test(source)))).toEqual([]);
    } finally {
      await mcp.close();
    }
  });

  it("builds the schemas of a first call's own area only, when the call comes before any tool list", async () => {
    const { log, mcp } = await spawnTracedCli('first-call.log');
    try {
      const result = await mcp.callTool({ name: 'list_pipelines', arguments: { id: 'acme/web', per_page: 2 } });
      expect(result.isError).toBeFalsy();
      const operationSources = loadedSources(log)
        .filter((source) => /src\/operations\/[a-z/-]+\.ts$/.test(source))
        .map((source) => source.replace(/.*src\/operations\//, ''));
      expect(operationSources).toContain('areas/pipelines.ts');
      // Neither another area nor the whole registry (index.ts).
      for (const other of [
        'index.ts',
        'areas/scim.ts',
        'areas/members.ts',
        'areas/groups.ts',
        'areas/repository-files.ts',
        'composed/triage.ts',
      ])
        expect(operationSources).not.toContain(other);
    } finally {
      await mcp.close();
    }
  });

  /** One invalid value per setting the configuration checks: each must stop the start before anything is answered. */
  const INVALID_SETTINGS: Record<string, string> = {
    FORGEOPS_APPROVAL: 'off',
    FORGEOPS_READ_ONLY: 'maybe',
    FORGEOPS_APPS: 'sideways',
    FORGEOPS_TOOLSETS: 'nope',
    FORGEOPS_MAX_MESSAGE_BYTES: '-1',
    FORGEOPS_MAX_RESULT_CHARS: 'many',
    FORGEOPS_CALL_TIMEOUT_MS: 'abc',
    FORGEOPS_LOG_LEVEL: 'chatty',
    FORGEOPS_LOG_FORMAT: 'xml',
    CODEHOST_URL: 'notaurl',
    CODEHOST_TIMEOUT_MS: '0',
    CODEHOST_MAX_RETRIES: 'lots',
    FORGEOPS_HTTP_REQUEST_TIMEOUT_MS: 'soon',
    FORGEOPS_HTTP_HEADERS_TIMEOUT_MS: '0',
    FORGEOPS_MAX_REFUSED_WATCHES: '0',
    FORGEOPS_REFUSED_WATCHES_WINDOW_MS: 'ten minutes',
    FORGEOPS_WEBHOOK_SPACING_MS: '-5',
  };

  it.each(Object.entries(INVALID_SETTINGS))(
    'answers nothing and exits 2 under an invalid %s, even to a client that already sent initialize',
    async (name, value) => {
      const child = spawn(process.execPath, [cli, 'mcp'], {
        cwd: '/',
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TMPDIR: tmpdir(), CODEHOST_TOKEN: 'x', [name]: value },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString('utf8');
      });
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
      });
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      const initialize = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } };
      child.stdin.on('error', () => undefined);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: initialize })}\n`);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })}\n`);
      expect(await exited).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toContain(name);
    },
  );

  it.each(Object.entries(SHAPES))('answers as the SDK path does: %s', async (_, shape) => {
    const child = spawn(process.execPath, [cli, 'mcp'], {
      cwd: '/',
      stdio: ['pipe', 'pipe', 'ignore'],
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        TMPDIR: tmpdir(),
        CODEHOST_URL: env.sandbox.url,
        CODEHOST_TOKEN: env.sandbox.tokens.maintainer,
      },
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    let fromCli: unknown[];
    try {
      // The CLI ends once its input is closed and what it read is answered: its exit, not a fixed while (its start-up
      // alone took over 2 s on a loaded machine), says every answer is out. One that never ended fails on the timeout.
      fromCli = (await feedShape(shape, child.stdin, child.stdout, () => exited)).map(answerShape);
    } finally {
      child.kill();
    }
    const input = new PassThrough();
    const output = new PassThrough();
    const server = createMcpServer({ ...testServerOptions(env.client), watches: async () => ({}) as never });
    await server.connect(new StdioServerTransport(input, output));
    try {
      // Nothing ends this server's input but the test: it has answered once it wrote as many messages as the CLI
      // did (bounded; a short while more shows one it wrote beyond them).
      const settled = async (written: readonly unknown[]) => {
        for (let i = 0; i < 200 && written.length < fromCli.length; i++) await new Promise((r) => setTimeout(r, 25));
        await new Promise((resolve) => setTimeout(resolve, 100));
      };
      expect(fromCli).toEqual((await feedShape(shape, input, output, settled)).map(answerShape));
    } finally {
      await server.close();
    }
  });
});

describe("forgeops mcp's compiled copy (src/cli/compiled-copy.ts)", () => {
  /** Runs `forgeops mcp` with TMPDIR at `base` for one tools/list and one call, until the process has exited. */
  async function session(base: string, extraEnv: Record<string, string> = {}) {
    const transport = cliStdioTransport(env.sandbox, { env: { TMPDIR: base, ...extraEnv }, cli });
    const mcp = new Client({ name: 'compiled-copy-test', version: '1.0.0' });
    await mcp.connect(transport);
    const pid = transport.pid!;
    try {
      const { tools } = await mcp.listTools();
      const call = await mcp.callTool({ name: 'list_pipelines', arguments: { id: 'acme/web', per_page: 2 } });
      expect(call.isError).toBeFalsy();
      return tools.map((tool) => tool.name);
    } finally {
      await mcp.close();
      // Bounded: 200 checks of 25 ms; the compiled code is written as the process exits at the latest.
      const alive = () => {
        try {
          process.kill(pid, 0);
          return true;
        } catch {
          return false;
        }
      };
      for (let i = 0; i < 200 && alive(); i++) await new Promise((resolve) => setTimeout(resolve, 25));
      expect(alive()).toBe(false);
    }
  }

  const cacheDir = (base: string) => join(base, `forgeops-${process.getuid!()}`, 'code-cache');
  /** The compiled code kept under `base`: its one file's path, bytes and inode (a file written anew is renamed in). */
  function kept(base: string) {
    const files = readdirSync(cacheDir(base));
    expect(files).toHaveLength(1);
    const path = join(cacheDir(base), files[0]);
    return { path, bytes: readFileSync(path), ino: statSync(path).ino };
  }

  it('keeps the code V8 compiled on its first start and starts from it after, without writing it again', async () => {
    const base = mkdtempSync(join(hookDir, 'private-'));
    const first = await session(base);
    const made = kept(base);
    expect(made.bytes.length).toBeGreaterThan(100_000);
    expect(statSync(cacheDir(base)).mode & 0o777).toBe(0o700);
    expect(statSync(made.path).mode & 0o777).toBe(0o600);

    // Started from it: the same tools, and the file left as it was (code V8 refused would be written anew).
    expect(await session(base)).toEqual(first);
    const after = kept(base);
    expect(after.bytes.equals(made.bytes)).toBe(true);
    expect(after.ino).toBe(made.ino);
  });

  it('replaces compiled code that V8 refuses (damaged, or made by another V8) and still serves', async () => {
    const base = mkdtempSync(join(hookDir, 'damaged-'));
    const tools = await session(base);
    const { path } = kept(base);
    const damaged = Buffer.alloc(4096, 7);
    writeFileSync(path, damaged);
    expect(await session(base)).toEqual(tools);
    const replaced = kept(base);
    expect(replaced.path).toBe(path);
    expect(replaced.bytes.equals(damaged)).toBe(false);
    expect(replaced.bytes.length).toBeGreaterThan(100_000);
  });

  it("keeps a file for each set of Node's flags: hosts starting it differently do not undo each other's", async () => {
    const base = mkdtempSync(join(hookDir, 'flags-'));
    await session(base);
    const plain = kept(base);
    await session(base, { NODE_OPTIONS: '--max-old-space-size=512' });
    const files = readdirSync(cacheDir(base));
    expect(files).toHaveLength(2);
    // The first start's file untouched; a start with the same flags again reads it as it is.
    expect(statSync(plain.path).ino).toBe(plain.ino);
    await session(base);
    expect(readFileSync(plain.path).equals(plain.bytes)).toBe(true);
    expect(statSync(plain.path).ino).toBe(plain.ino);
  });

  it('starts forgeops chat from its own copy the same way, answering as its ES modules do', async () => {
    const chat = (base: string) =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, [cli, 'chat', 'pipeline list acme/web', '--json'], {
          env: {
            ...bareEnv,
            TMPDIR: base,
            CODEHOST_URL: env.sandbox.url,
            CODEHOST_TOKEN: env.sandbox.tokens.maintainer,
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        child.stdout.on('data', (chunk) => {
          out += chunk;
        });
        child.once('error', reject);
        child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`chat exited ${code}`))));
      });
    const base = mkdtempSync(join(hookDir, 'chat-'));
    const first = await chat(base);
    const [file] = readdirSync(cacheDir(base));
    expect(file).toMatch(/^chat-/);
    const made = statSync(join(cacheDir(base), file)).ino;
    expect(await chat(base)).toBe(first);
    expect(statSync(join(cacheDir(base), file)).ino).toBe(made);
    // The ES modules, where no cache folder is trusted, answer the same.
    expect(await chat(untrustedTmp())).toBe(first);
    expect((JSON.parse(first) as unknown[]).length).toBeGreaterThan(0);
  });

  it("keeps the four files of a copy's compiled code used last, and clears writes abandoned an hour ago", async () => {
    const base = mkdtempSync(join(hookDir, 'pruned-'));
    await session(base);
    const { path: used } = kept(base);
    // Older builds' code, written days ago; the one in use was read back an hour after them.
    const dir = cacheDir(base);
    const daysAgo = (days: number) => (Date.now() - days * 24 * 3600_000) / 1000;
    for (let i = 1; i <= 5; i++) {
      writeFileSync(join(dir, `mcp-old-build-${i}.v8`), 'old');
      utimesSync(join(dir, `mcp-old-build-${i}.v8`), daysAgo(10 + i), daysAgo(10 + i));
    }
    writeFileSync(join(dir, 'chat-old-build.v8'), 'old');
    utimesSync(join(dir, 'chat-old-build.v8'), daysAgo(30), daysAgo(30));
    writeFileSync(join(dir, '.mcp-abandoned.v8.4242'), 'half');
    utimesSync(join(dir, '.mcp-abandoned.v8.4242'), daysAgo(1), daysAgo(1));
    utimesSync(used, daysAgo(20), daysAgo(20));

    // Read back (not rewritten), the file in use counts as used now; a write by other flags then prunes.
    await session(base);
    await session(base, { NODE_OPTIONS: '--max-old-space-size=512' });
    const left = readdirSync(dir).sort();
    expect(left.filter((name) => name.startsWith('mcp-'))).toHaveLength(4);
    expect(left).toContain(basename(used));
    expect(left).toEqual(expect.arrayContaining(['mcp-old-build-1.v8', 'mcp-old-build-2.v8', 'chat-old-build.v8']));
    expect(left).not.toContain('.mcp-abandoned.v8.4242');
  });

  it('trusts no cache folder others may write to: it serves from its ES modules, making nothing there', async () => {
    const base = untrustedTmp();
    expect((await session(base)).length).toBeGreaterThan(0);
    expect(existsSync(cacheDir(base))).toBe(false);
  });
});
