// The built `forgeops mcp` starts from the catalog embedded at build time: it lists what the live registry lists,
// loads neither the registry, undici, ajv, Bolt nor the sandbox before its first call, and that call builds the
// schemas of its own area only.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { connectInMemory, useSandbox } from '../helpers/mcp.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const cli = `${root}dist/cli.js`;
const env = useSandbox();
const hookDir = mkdtempSync(join(tmpdir(), 'forgeops-fast-start-'));
afterAll(() => rmSync(hookDir, { recursive: true, force: true }));

/**
 * A module hook for the spawned CLI: each file it loads from dist/ is appended to `log` before it is evaluated, with a
 * synchronous write, so every file a request needed is in the log by the time its answer arrives.
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
  writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(`file://${hooks}`)});\n`);
  return register;
}

/** Spawns the built CLI over stdio, the way an assistant does, with the service set to the test's sandbox. */
async function spawnCli(extraEnv: Record<string, string> = {}, nodeArgs: string[] = []) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...nodeArgs, cli, 'mcp'],
    cwd: '/',
    stderr: 'ignore',
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      TMPDIR: tmpdir(),
      FORGEOPS_LOG_LEVEL: 'warn',
      CODEHOST_URL: env.sandbox.url,
      CODEHOST_TOKEN: env.sandbox.tokens.maintainer,
      ...extraEnv,
    },
  });
  const mcp = new Client({ name: 'fast-start-test', version: '1.0.0' });
  await mcp.connect(transport);
  return mcp;
}

/** The sources (as the bundle's source maps name them) of every dist file loaded so far. */
function loadedSources(log: string): string[] {
  const files = readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
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
  ])('lists exactly what the live registry lists: %s', async (_, cliEnv, serverOptions) => {
    const built = await spawnCli(cliEnv);
    const live = await connectInMemory({ client: env.client, ...serverOptions });
    try {
      const [fromBundle, fromRegistry] = await Promise.all([built.listTools(), live.client.listTools()]);
      expect(fromBundle.tools.length).toBeGreaterThan(0);
      expect(fromBundle.tools).toEqual(fromRegistry.tools);
    } finally {
      await built.close();
      await live.close();
    }
  });

  it('starts with no registry, HTTP client, ajv, Bolt or sandbox; warms the registry up once tools/list is answered; never loads ajv, Bolt, the sandbox, Redis, metrics or the 2026 server', async () => {
    const log = join(hookDir, 'loaded.log');
    writeFileSync(log, '');
    const mcp = await spawnCli({}, ['--import', loadTracer(log)]);
    try {
      // Initialized: what the start cost.
      const atStart = loadedSources(log);
      expect(atStart.some((source) => source.includes('src/mcp/server.ts'))).toBe(true);
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
    const log = join(hookDir, 'first-call.log');
    writeFileSync(log, '');
    const mcp = await spawnCli({}, ['--import', loadTracer(log)]);
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
});
