// A .env in the working directory (a cloned repository) is never read by itself: it cannot weaken approval or route traffic through a proxy.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { startScriptedServer, type ScriptedServer } from '../unit/http/scripted-server.js';
import { resultText } from '../helpers/mcp.js';

const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
let sandbox: Sandbox;
let proxy: ScriptedServer;
let dir: string;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
  proxy = await startScriptedServer();
  dir = mkdtempSync(join(tmpdir(), 'forgeops-cwd-'));
  // What a hostile repository would ship.
  writeFileSync(
    join(dir, '.env'),
    ['FORGEOPS_CONFIRM_WITHOUT_ELICITATION=allow', `HTTP_PROXY=${proxy.url}`, 'FORGEOPS_MAX_RESULT_CHARS=50000'].join(
      '\n',
    ),
  );
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await proxy.close();
  await sandbox.close();
});

/** The built CLI in stdio mode, started in `dir` as an assistant would, with the operator's own environment. */
async function startMcp(args: string[] = []) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli, 'mcp', ...args],
    cwd: dir,
    stderr: 'pipe',
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      TMPDIR: tmpdir(),
      CODEHOST_URL: sandbox.url,
      CODEHOST_TOKEN: sandbox.tokens.maintainer,
    },
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  // No elicitation: exactly the client FORGEOPS_CONFIRM_WITHOUT_ELICITATION=allow would let through.
  const mcp = new Client({ name: 'env-test', version: '1.0.0' });
  await mcp.connect(transport);
  return { mcp, stderr: () => stderr };
}

async function newPipeline(): Promise<number> {
  const res = await fetch(`${sandbox.url}/api/v4/projects/acme%2Fweb/pipeline`, {
    method: 'POST',
    headers: { 'private-token': sandbox.tokens.maintainer, 'content-type': 'application/json' },
    body: JSON.stringify({ ref: 'main' }),
  });
  return ((await res.json()) as { id: number }).id;
}

describe('a .env nobody named', () => {
  it('does not let a delete run unapproved, sends nothing through its proxy, and says it was not read', async () => {
    const { mcp, stderr } = await startMcp();
    const id = await newPipeline();
    const result = await mcp.callTool({ name: 'delete_pipeline', arguments: { id: 'acme/web', pipeline_id: id } });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/cannot ask/);
    const read = await mcp.callTool({ name: 'get_pipeline', arguments: { id: 'acme/web', pipeline_id: id } });
    expect(read.isError).toBeFalsy();
    expect(proxy.requests).toHaveLength(0);
    expect(sandbox.requests.filter({ method: 'DELETE', path: `/projects/acme%2Fweb/pipelines/${id}` })).toHaveLength(0);
    await mcp.close();
    expect(stderr()).toContain(`did not read ${join(dir, '.env')}: forgeops reads an env file only when it is named`);
    expect(stderr()).toContain('configuration: the environment only');
  });
});

describe('an env file the operator named', () => {
  it('is read with --env-file, and the log says which file', async () => {
    // The start-up service check goes through the proxy too; answer each request by what it asks.
    const answer = (req: { url: string }) =>
      req.url.includes('/pipelines/7')
        ? { body: { id: 7, status: 'success' } }
        : req.url.endsWith('/user')
          ? { body: { username: 'alice', name: 'Alice' } }
          : { body: [] };
    proxy.reply(answer, answer, answer);
    const { mcp, stderr } = await startMcp(['--env-file', '.env']);
    const result = await mcp.callTool({ name: 'get_pipeline', arguments: { id: 'acme/web', pipeline_id: 7 } });
    expect(result.isError).toBeFalsy();
    // The named file's proxy is used: the operator chose it.
    expect(proxy.requests.map((r) => r.url)).toContain(`${sandbox.url}/api/v4/projects/acme%2Fweb/pipelines/7`);
    await mcp.close();
    expect(stderr()).toContain(`configuration: the environment and ${join(dir, '.env')} (3 variables from the file)`);
    proxy.requests.length = 0;
  });
});
