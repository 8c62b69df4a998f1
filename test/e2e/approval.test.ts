// The approval page where users meet it: mounted on `serve`'s port beside /mcp, and started by the built `forgeops mcp` over stdio.
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fetch } from 'undici';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createMountedApprovalPage } from '../../src/approval/page.js';
import type { Logger } from '../../src/log.js';
import { resultText, useSandbox, startMcpHttpOn } from '../helpers/mcp.js';
import { answerPage, openPage, PROJECT, createPipeline } from '../helpers/approval.js';

const env = useSandbox();
const SECRET = 'correct horse battery staple';
const root = fileURLToPath(new URL('../..', import.meta.url));
const cli = `${root}dist/cli.js`;
const bareEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', TMPDIR: tmpdir() };

/** Waits (bounded) for a line in a growing log text; answers its first group. */
async function lineIn(log: () => string, pattern: RegExp): Promise<string> {
  for (let i = 0; i < 500; i++) {
    const found = pattern.exec(log())?.[1];
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no line like ${pattern} in the log: ${log()}`);
}

const linkIn = (log: () => string) => lineIn(log, /approval needed for \w+: open (\S+) /);

/** What the human does: open the page, then press a button (with the passphrase when asked). */
async function decide(link: string, decision: 'approve' | 'deny', secret?: string): Promise<number> {
  const { nonce = '' } = await openPage(link);
  return (await answerPage(link, { nonce, decision, ...(secret && { secret }) })).status;
}

describe('the approval page on the Streamable HTTP server', () => {
  it('is served beside /mcp, where a client without elicitation waits for it', async () => {
    let log = '';
    const record = (line: string) => {
      log += `${line}\n`;
    };
    const logger: Logger = { error: record, warn: record, info: record, debug: record };
    const page = createMountedApprovalPage({ host: '127.0.0.1', loopback: true, log: logger });
    const server = await startMcpHttpOn(env.client, {
      session: { approval: 'page', approvals: page.store },
      http: { log: logger, mounts: { [page.path]: page.handle } },
    });
    page.listening(Number(new URL(server.url).port));
    const mcp = new Client({ name: 'no-elicitation', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    const pipeline = await createPipeline(mcp);

    const call = mcp.callTool({ name: 'delete_pipeline', arguments: { id: PROJECT, pipeline_id: pipeline } });
    const link = await linkIn(() => log);
    expect(new URL(link).origin).toBe(new URL(server.url).origin);
    expect(await decide(link, 'approve')).toBe(200);
    expect((await call).isError).toBeFalsy();
    const gone = await mcp.callTool({ name: 'get_pipeline', arguments: { id: PROJECT, pipeline_id: pipeline } });
    expect(resultText(gone)).toMatch(/^404/);
    // Paths beside the page are still /mcp's business.
    expect((await fetch(new URL('/approvals', server.url))).status).toBe(404);
    await mcp.close();
    await server.close();
  });
});

describe('forgeops mcp (built CLI) with FORGEOPS_APPROVAL=page', () => {
  it('starts the page on 127.0.0.1, writes each link to stderr only, and runs the call once approved with the passphrase', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cli, 'mcp'],
      cwd: '/',
      stderr: 'pipe',
      env: { ...bareEnv, FORGEOPS_APPROVAL: 'page', FORGEOPS_APPROVAL_SECRET: SECRET },
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const mcp = new Client({ name: 'claude-desktop-like', version: '1.0.0' });
    await mcp.connect(transport);
    await lineIn(() => stderr, /approval page: (http:\/\/127\.0\.0\.1:\d+)/);
    const pipeline = await createPipeline(mcp);

    const call = mcp.callTool({ name: 'delete_pipeline', arguments: { id: PROJECT, pipeline_id: pipeline } });
    const link = await linkIn(() => stderr);
    expect(new URL(link).hostname).toBe('127.0.0.1');
    expect(await decide(link, 'approve', 'a wrong passphrase')).toBe(403);
    expect(await decide(link, 'approve', SECRET)).toBe(200);
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(JSON.stringify(result)).not.toContain(new URL(link).pathname);
    expect(stderr).not.toContain(SECRET);
    const gone = await mcp.callTool({ name: 'get_pipeline', arguments: { id: PROJECT, pipeline_id: pipeline } });
    expect(resultText(gone)).toMatch(/^404/);
    await mcp.close();
  });

  it('refuses to serve the page to the network without a passphrase and a public address', () => {
    const out = spawnSync(process.execPath, [cli, 'serve', '--host', '0.0.0.0', '--port', '0'], {
      cwd: '/',
      env: { ...bareEnv, FORGEOPS_APPROVAL: 'page', FORGEOPS_MCP_TOKEN: 'mcp-token-for-this-test' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(out.status).toBe(2);
    expect(out.stderr).toMatch(/invalid configuration: FORGEOPS_APPROVAL is page, and .*FORGEOPS_APPROVAL_SECRET/);
  });
});
