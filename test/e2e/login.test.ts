// The built CLI signed in by the device grant (the test plays the person at the code host), then used by the stdio
// MCP server and the terminal chat as that person, then signed out; HOME and XDG_CONFIG_HOME point at a temp dir.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { sandboxCliApplication, SANDBOX_CLIENT_IDS } from '../../src/runtime.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { approveDeviceCode } from '../helpers/sign-in-person.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const cli = `${root}dist/cli.js`;
let sandbox: Sandbox;
let home: string;
let env: Record<string, string>;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, applications: [sandboxCliApplication()] });
  home = mkdtempSync(join(tmpdir(), 'forgeops-login-e2e-'));
  env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'config'),
    TMPDIR: tmpdir(),
    NO_COLOR: '1',
    CODEHOST_URL: sandbox.url,
    FORGEOPS_CLI_CLIENT_ID: SANDBOX_CLIENT_IDS.cli,
  };
});
afterAll(async () => {
  await sandbox.close();
  rmSync(home, { recursive: true, force: true });
});

/** Asynchronously: the sandbox answers from this process, so a synchronous spawn would wait on itself. */
function run(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd: '/', env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`forgeops ${args.join(' ')} did not end: ${stdout}${stderr}`));
    }, 30_000);
    child.on('exit', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

test('login --device, then the stdio server and the chat act as the signed-in person, then logout', async () => {
  const child = spawn(process.execPath, [cli, 'login', '--device'], { cwd: '/', env });
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk) => {
    err += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const code = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no user code printed: ${out}${err}`)), 20_000);
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const found = /enter the code: (\S+)/.exec(out)?.[1];
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    });
  });
  await approveDeviceCode(sandbox, code, 'bob');
  expect(await exited).toBe(0);
  expect(out).toContain(`Signed in to ${sandbox.url} as @bob (scopes api)`);

  const who = await run(['whoami']);
  expect(who.status).toBe(0);
  expect(who.stdout).toContain(`Signed in to ${sandbox.url} as @bob with forgeops login`);

  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli, 'mcp'],
    cwd: '/',
    env,
    stderr: 'ignore',
  });
  const client = new Client({ name: 'login-e2e', version: '1.0.0' });
  await client.connect(transport);
  try {
    const result = await client.callTool({ name: 'get_current_user', arguments: {} });
    expect(result.isError).not.toBe(true);
    expect(JSON.stringify(result.structuredContent ?? result.content)).toContain('"username":"bob"');
  } finally {
    await client.close();
  }

  const chat = await run(['chat', 'user me', '--json']);
  expect(chat.status).toBe(0);
  expect(JSON.parse(chat.stdout).username).toBe('bob');

  const out2 = await run(['logout']);
  expect(out2.stdout).toContain(`Signed out of ${sandbox.url} (@bob): the tokens were revoked`);
  const after = await run(['whoami']);
  expect(after.status).toBe(1);
  expect(after.stdout).toContain('Not signed in');
}, 60_000);
