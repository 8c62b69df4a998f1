// Service errors that name the fix: the setting behind an unreachable address, a wrong prefix, a refused token; and the start-up check.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { HttpClient } from '../../src/http/client.js';
import { connectInMemory, resultText, useSandbox } from '../helpers/mcp.js';

const env = useSandbox();
const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function callWith(baseUrl: string, token: string, sessionToken?: string) {
  const client = new HttpClient({ baseUrl, token, retry: { maxRetries: 0 } });
  const mcp = await connectInMemory({
    client,
    token: sessionToken,
    service: { address: `CODEHOST_URL (${baseUrl})`, tokenSource: 'CODEHOST_TOKEN' },
  });
  const result = await mcp.client.callTool({ name: 'get_current_user', arguments: {} });
  await mcp.close();
  await client.close();
  return resultText(result);
}

describe('errors name the setting to fix', () => {
  it('names CODEHOST_URL and the address when the connection is refused', async () => {
    const port = await closedPort();
    const text = await callWith(`http://127.0.0.1:${port}`, 'x');
    expect(text).toBe(
      `network error: connect ECONNREFUSED 127.0.0.1:${port} (service at http://127.0.0.1:${port}) ` +
        `(check CODEHOST_URL (http://127.0.0.1:${port}): is the address right, and the service running?)`,
    );
  });

  it("says an answer that is not the service's own looks like a wrong path prefix", async () => {
    const text = await callWith(`${env.sandbox.url}/prefix`, env.sandbox.tokens.developer);
    // The sandbox answers unknown paths outside /api/v4 as a plain web server would.
    expect(text).toMatch(
      /^404 .*\(this answer did not come from the service's API: check that CODEHOST_URL \(.*\/prefix\) is the service's address, with the right path prefix; the API must answer under \/api\/v4\)$/,
    );
  });

  it("names CODEHOST_TOKEN on a 401, and a session's own token when that was used", async () => {
    expect(await callWith(env.sandbox.url, 'fo-wrong')).toMatch(
      /^401 .*\(CODEHOST_TOKEN is missing, wrong or expired: create a new personal access token\)$/,
    );
    expect(await callWith(env.sandbox.url, env.sandbox.tokens.developer, 'fo-wrong')).toMatch(
      /\(the X-Codehost-Token this session was opened with is missing, wrong or expired/,
    );
  });
});

describe('the service check at start', () => {
  it('logs one warning naming the fix, without delaying the tools', async () => {
    const port = await closedPort();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cli, 'mcp'],
      cwd: '/',
      stderr: 'pipe',
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        TMPDIR: tmpdir(),
        CODEHOST_URL: `http://127.0.0.1:${port}`,
        CODEHOST_TOKEN: 'fo-x',
      },
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const mcp = new Client({ name: 'start-check', version: '1' });
    await mcp.connect(transport);
    expect((await mcp.listTools()).tools.length).toBeGreaterThan(0);
    for (let i = 0; i < 100 && !stderr.includes('service check:'); i++) await new Promise((r) => setTimeout(r, 50));
    await mcp.close();
    const warnings = stderr.split('\n').filter((line) => line.includes('service check:'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(
      `warn service check: CODEHOST_URL http://127.0.0.1:${port} is not reachable (connect ECONNREFUSED 127.0.0.1:${port}); ` +
        'fix: check the address and port in CODEHOST_URL, and that the service is running (forgeops doctor shows the full report)',
    );
  });
});
