// The built CLI as users run it: stdio MCP with no environment (in-process sandbox), ops --json, bad config.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { operations } from '../../src/operations/index.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const cli = `${root}dist/cli.js`;
/** A bare environment: no CODEHOST_* so the CLI must bring its own sandbox. */
const bareEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' };

function run(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [cli, ...args], { cwd: '/', env: { ...bareEnv, ...env }, encoding: 'utf8', timeout: 20_000 });
}

describe('forgeops mcp (stdio, built CLI)', () => {
  it('serves every tool against an in-process sandbox when no service is configured', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [cli, 'mcp'], env: bareEnv, cwd: '/', stderr: 'pipe' });
    const mcp = new Client({ name: 'stdio-test', version: '1.0.0' });
    await mcp.connect(transport);
    const { tools } = await mcp.listTools();
    expect(tools).toHaveLength(operations.length);
    const me = await mcp.callTool({ name: 'get_current_user', arguments: {} });
    expect(me.isError).toBeFalsy();
    expect((me.structuredContent as { username: string }).username).toMatch(/\w+/);
    const projects = await mcp.callTool({ name: 'list_projects', arguments: { search: 'web' } });
    expect((projects.structuredContent as { items: Array<{ path_with_namespace: string }> }).items.map((p) => p.path_with_namespace)).toContain('acme/web');
    await mcp.close();
  });
});

describe('forgeops ops --json', () => {
  it('prints one JSON array with the route of every operation as written in endpoints.tsv', () => {
    const out = run(['ops', '--json']);
    expect(out.status).toBe(0);
    const rows = JSON.parse(out.stdout) as Array<{ name: string; chat: string; area: string; method: string; path: string; effect: string }>;
    expect(rows).toHaveLength(operations.length);
    const spec = new Set(readFileSync(`${root}test/data/endpoints.tsv`, 'utf8').trim().split('\n').slice(1)
      .map((line) => line.split('\t')).map(([method, path]) => `${method} ${path}`));
    for (const row of rows) {
      expect(Object.keys(row)).toEqual(expect.arrayContaining(['name', 'chat', 'area', 'method', 'path', 'effect']));
      expect(spec.has(`${row.method} ${row.path}`)).toBe(true);
    }
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
