// The built CLI as users run it: stdio MCP with no environment (in-process sandbox), ops --json, bad config.
import { spawnSync } from 'node:child_process';
import { gzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { operations } from '../../src/operations/index.js';
import { DEFAULT_OPERATIONS } from '../../src/mcp/toolsets.js';
import { META_TOOLS } from '../../src/mcp/meta.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const cli = `${root}dist/cli.js`;
/** A bare environment: no CODEHOST_* so the CLI must bring its own sandbox; the run's temp directory, so leftovers show. */
const bareEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', TMPDIR: tmpdir() };

function run(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [cli, ...args], {
    cwd: '/',
    env: { ...bareEnv, ...env },
    encoding: 'utf8',
    timeout: 20_000,
  });
}

describe('forgeops mcp (stdio, built CLI)', () => {
  it('serves the default tools against an in-process sandbox when no service is configured, and reaches the rest', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cli, 'mcp'],
      env: bareEnv,
      cwd: '/',
      stderr: 'pipe',
    });
    const mcp = new Client({ name: 'stdio-test', version: '1.0.0' });
    await mcp.connect(transport);
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      ...operations.filter((op) => DEFAULT_OPERATIONS.includes(op.name)).map((op) => op.name),
      ...META_TOOLS.map((t) => t.name),
    ]);
    // Not listed by default, but the meta tools reach it, so calling it by name works the same way.
    const me = await mcp.callTool({ name: 'get_current_user', arguments: {} });
    expect(me.isError).toBeFalsy();
    expect((me.structuredContent as { username: string }).username).toMatch(/\w+/);
    const projects = await mcp.callTool({ name: 'list_projects', arguments: { search: 'web' } });
    expect(
      (projects.structuredContent as { items: Array<{ path_with_namespace: string }> }).items.map(
        (p) => p.path_with_namespace,
      ),
    ).toContain('acme/web');
    await mcp.close();
  });
});

describe('forgeops mcp --toolsets', () => {
  it('offers every tool with --toolsets all', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cli, 'mcp', '--toolsets', 'all'],
      env: bareEnv,
      cwd: '/',
      stderr: 'pipe',
    });
    const mcp = new Client({ name: 'stdio-test', version: '1.0.0' });
    await mcp.connect(transport);
    expect((await mcp.listTools()).tools).toHaveLength(operations.length);
    await mcp.close();
  });

  it('stops before starting when a toolset or tool is unknown, naming it and the real ones', () => {
    const out = run(['mcp', '--toolsets', 'pipelines,rockets']);
    expect(out.status).toBe(2);
    expect(out.stderr).toMatch(
      /forgeops: unknown toolset\(s\) rockets \(FORGEOPS_TOOLSETS or --toolsets\); known: default, all, meta, application_settings, audit_events,/,
    );
    const tools = run(['mcp'], { FORGEOPS_TOOLS: 'retry_pipelines' });
    expect(tools.status).toBe(2);
    expect(tools.stderr).toContain('unknown tool(s) retry_pipelines (FORGEOPS_TOOLS or --tools)');
  });
});

describe('forgeops ops --json', () => {
  it('prints one JSON array with the route of every operation, as written in endpoints.tsv unless it says it is outside the spec', () => {
    const out = run(['ops', '--json']);
    expect(out.status).toBe(0);
    const rows = JSON.parse(out.stdout) as Array<{
      name: string;
      chat: string;
      area: string;
      method: string;
      path: string;
      effect: string;
      spec: boolean;
    }>;
    expect(rows).toHaveLength(operations.length);
    const spec = new Set(
      readFileSync(`${root}test/data/endpoints.tsv`, 'utf8')
        .trim()
        .split('\n')
        .slice(1)
        .map((line) => line.split('\t'))
        .map(([method, path]) => `${method} ${path}`),
    );
    for (const row of rows) {
      expect(Object.keys(row)).toEqual(
        expect.arrayContaining(['name', 'chat', 'area', 'method', 'path', 'effect', 'spec']),
      );
      if (row.spec) expect(spec.has(`${row.method} ${row.path}`), row.name).toBe(true);
      else expect(operations.find((op) => op.name === row.name)?.outsideSpec, row.name).toBeDefined();
    }
    // Every route of the spec is there, whatever is added beyond them.
    expect(new Set(rows.filter((row) => row.spec).map((row) => `${row.method} ${row.path}`))).toEqual(spec);
  });
});

describe('configuration errors', () => {
  it('stops start-up with one line naming the bad variable', () => {
    const out = run(['mcp'], { CODEHOST_URL: 'not a url' });
    expect(out.status).toBe(2);
    expect(out.stdout).toBe('');
    const lines = out.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^forgeops: invalid configuration: CODEHOST_URL/);
  });

  it('rejects an unknown command with usage and exit 2', () => {
    const out = run(['launch']);
    expect(out.status).toBe(2);
    expect(out.stderr).toMatch(/unknown command 'launch'/);
  });
});

describe('the command line, as a person types it', () => {
  it.each(['serve', 'mcp', 'sandbox', 'doctor', 'ops'])('prints help for %s with --help and -h, exit 0', (command) => {
    for (const flag of ['--help', '-h']) {
      const out = run([command, flag]);
      expect(out.status).toBe(0);
      expect(out.stdout).toMatch(new RegExp(`^usage: forgeops ${command}`));
      expect(out.stdout).toContain('--help, -h');
    }
  });

  it('prints the version', () => {
    expect(run(['--version']).stdout).toBe('forgeops 0.1.0\n');
  });

  it("names an unknown option, suggests the closest, and shows that command's usage line, exit 2", () => {
    const out = run(['serve', '--prot', '9000']);
    expect(out.status).toBe(2);
    expect(out.stdout).toBe('');
    expect(out.stderr).toBe(
      "forgeops: unknown option '--prot' for 'forgeops serve'; did you mean --port?\n" +
        'usage: forgeops serve [--port N] [--host H] [--toolsets T] [--tools T] [--env-file F]\n(forgeops serve --help shows its options)\n',
    );
  });

  it('names a missing value and a stray argument in its own words', () => {
    expect(run(['serve', '--port']).stderr).toMatch(/^forgeops: option --port needs a value\nusage: forgeops serve/);
    expect(run(['mcp', 'extra']).stderr).toMatch(
      /^forgeops: unexpected argument 'extra' for 'forgeops mcp'\nusage: forgeops mcp/,
    );
    expect(run(['sandbox', '--port', 'x']).stderr).toMatch(
      /^forgeops: --port must be a whole number from 0 to 65535, got 'x'/,
    );
  });

  it('suggests the closest command for a mistyped one', () => {
    const out = run(['serv']);
    expect(out.status).toBe(2);
    expect(out.stderr).toMatch(/^forgeops: unknown command 'serv'; did you mean 'serve'\?/);
  });

  it('ends quietly when its reader goes away (forgeops ops | head -1)', () => {
    const out = spawnSync('sh', ['-c', `"${process.execPath}" "${cli}" ops | head -1`], {
      encoding: 'utf8',
      timeout: 20_000,
      env: bareEnv,
    });
    expect(out.status).toBe(0);
    expect(out.stdout.split('\n')).toHaveLength(2);
    expect(out.stderr).toBe('');
  });

  it("says a busy port in the sandbox's words, as serve does", async () => {
    const { createServer } = await import('node:net');
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as { port: number }).port;
    const out = run(['sandbox', '--port', String(port)]);
    await new Promise<void>((resolve) => busy.close(() => resolve()));
    expect(out.status).toBe(1);
    expect(out.stderr.trim().split('\n').at(-1)).toBe(
      `forgeops: port ${port} on 127.0.0.1 is in use; pick another with --port`,
    );
  });

  it.each([
    [
      { CODEHOST_TIMEOUT_MS: '-5' },
      "forgeops: invalid configuration: CODEHOST_TIMEOUT_MS must be a whole number of 1 or more; got '-5'",
    ],
    [
      { FORGEOPS_READ_ONLY: 'maybe' },
      "forgeops: invalid configuration: FORGEOPS_READ_ONLY must be one of true, false, 1, 0, yes, no; got 'maybe'",
    ],
    [
      { CODEHOST_TOKEN: '<your token>' },
      "forgeops: invalid configuration: CODEHOST_TOKEN must be a token, not a placeholder or text with spaces (such as '<your token>'); got '<your token>'",
    ],
    [
      { CODEHOST_CA_FILE: '/nonexistent/ca.pem' },
      "forgeops: invalid configuration: CODEHOST_CA_FILE '/nonexistent/ca.pem' cannot be read: no such file",
    ],
    [
      { FORGEOPS_ENV_FILE: '/nonexistent/.env' },
      "forgeops: invalid configuration: FORGEOPS_ENV_FILE '/nonexistent/.env' does not exist",
    ],
  ])('stops on %o with one line: the variable, what it must be, what it got; exit 2', (env, line) => {
    const out = run(['mcp'], env);
    expect(out.status).toBe(2);
    expect(out.stderr).toBe(`${line}\n`);
  });
});

describe('forgeops chat (built CLI) uploads', () => {
  it("sends a file as a multipart form part: the bundle loads undici's FormData on the first upload", () => {
    // Not an export archive, so the sandbox refuses it; it can say so only after reading a file part of a multipart form.
    const file = gzipSync(Buffer.from('not a tar archive')).toString('base64');
    const out = run(['chat', `group import name=Uploaded path=uploaded-by-cli file=${file}`, '--yes']);
    expect(out.stdout + out.stderr).toMatch(/400 file is not a group export archive/);
    expect(out.status).not.toBe(0);
  });
});
