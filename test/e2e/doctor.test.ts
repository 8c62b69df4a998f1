// forgeops doctor: every check passes against a working service, and each way of getting the set-up wrong is named with its fix.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { runDoctor } from '../../src/doctor.js';
import { CredentialsFile } from '../../src/identity/credentials-file.js';
import { login } from '../../src/identity/login-commands.js';
import { SANDBOX_CLIENT_IDS, sandboxCliApplication } from '../../src/runtime.js';
import { startMcpHttpServer, type McpHttpServer } from '../../src/mcp/http/server.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { approveDeviceCode } from '../helpers/sign-in-person.js';

const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
let sandbox: Sandbox;
let website: Server;
let websiteUrl: string;
let forgeops: McpHttpServer;
let home: string;
/** The terminal's credentials file of these tests: never the user's own. */
let credentials: CredentialsFile;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'forgeops-doctor-'));
  credentials = new CredentialsFile(join(home, 'forgeops', 'credentials.json'));
  sandbox = await startSandbox({ port: 0, applications: [sandboxCliApplication()] });
  // An ordinary web server: HTML for everything, as a wrong CODEHOST_URL usually is.
  website = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end('<html><title>Welcome</title></html>'),
  );
  await new Promise<void>((resolve) => website.listen(0, '127.0.0.1', resolve));
  websiteUrl = `http://127.0.0.1:${(website.address() as AddressInfo).port}`;
  forgeops = await startMcpHttpServer({
    host: '127.0.0.1',
    port: 0,
    allowedOrigins: [],
    createSessionServer: () => {
      throw new Error('unused');
    },
  });
});
afterAll(async () => {
  await forgeops.close();
  await new Promise<void>((resolve) => website.close(() => resolve()));
  await sandbox.close();
  rmSync(home, { recursive: true, force: true });
});

async function doctor(env: Record<string, string>, scimGroup?: string): Promise<{ status: number; text: string }> {
  let text = '';
  const status = await runDoctor(
    parseConfig(env),
    {},
    {
      scimGroup,
      credentials,
      write: (line) => {
        text += line;
      },
    },
  );
  return { status, text };
}

describe('forgeops doctor', () => {
  it('passes every check against a working service, naming who the token acts as', async () => {
    const { status, text } = await doctor({
      CODEHOST_URL: sandbox.url,
      CODEHOST_TOKEN: sandbox.tokens.admin,
      CODEHOST_SCIM_TOKEN: sandbox.tokens.scim,
    });
    expect(status).toBe(0);
    expect(text).toContain(`✓ CODEHOST_URL ${sandbox.url} is reachable and answers as the service's API`);
    expect(text).toContain('✓ CODEHOST_TOKEN acts as root (Rosa Root), an administrator');
    // SCIM tokens belong to a group; without --scim-group there is nothing to check them against.
    expect(text).toContain(
      '- CODEHOST_SCIM_TOKEN is set; not checked (name its group: forgeops doctor --scim-group <group path>)',
    );
    expect(text).toContain('- proxy: none');
    expect(text).not.toContain('✗');
    expect(text).toMatch(/Everything needed works\.\n$/);
  });

  it('names a closed port as unreachable, with the fix', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const { status, text } = await doctor({ CODEHOST_URL: `http://127.0.0.1:${port}`, CODEHOST_TOKEN: 'x' });
    expect(status).toBe(1);
    expect(text).toContain(
      `✗ CODEHOST_URL http://127.0.0.1:${port} is not reachable (connect ECONNREFUSED 127.0.0.1:${port})`,
    );
    expect(text).toContain('fix: check the address and port in CODEHOST_URL, and that the service is running');
  });

  it('names a wrong path prefix', async () => {
    const { status, text } = await doctor({
      CODEHOST_URL: `${sandbox.url}/gitlab`,
      CODEHOST_TOKEN: sandbox.tokens.developer,
    });
    expect(status).toBe(1);
    expect(text).toContain(
      `✗ CODEHOST_URL ${sandbox.url}/gitlab does not look like the service: GET ${sandbox.url}/gitlab/api/v4/projects answered 404`,
    );
    expect(text).toContain('fix: check the path prefix in CODEHOST_URL');
  });

  it('names a web server that is not the service', async () => {
    const { status, text } = await doctor({ CODEHOST_URL: websiteUrl, CODEHOST_TOKEN: 'x' });
    expect(status).toBe(1);
    expect(text).toContain(
      `✗ CODEHOST_URL ${websiteUrl} does not look like the service: GET ${websiteUrl}/api/v4/projects answered text/html that is not the service's JSON`,
    );
  });

  it('names CODEHOST_URL pointed at forgeops itself', async () => {
    const base = forgeops.url.replace(/\/mcp$/, '');
    const { status, text } = await doctor({ CODEHOST_URL: base, CODEHOST_TOKEN: 'x' });
    expect(status).toBe(1);
    expect(text).toContain(`✗ CODEHOST_URL ${base} is a forgeops MCP server, not the code hosting service`);
  });

  it('names a refused token, with the fix', async () => {
    const { status, text } = await doctor({ CODEHOST_URL: sandbox.url, CODEHOST_TOKEN: 'fo-wrong-token' });
    expect(status).toBe(1);
    expect(text).toMatch(/✗ CODEHOST_TOKEN is refused: 401 /);
    expect(text).toContain('fix: create a new personal access token and set CODEHOST_TOKEN');
  });

  it('warns, without failing, when no token is set', async () => {
    const { status, text } = await doctor({ CODEHOST_URL: sandbox.url });
    expect(status).toBe(0);
    expect(text).toContain(
      '! CODEHOST_TOKEN is not set and nobody is signed in (forgeops login): only public data can be read',
    );
  });

  it('checks the terminal sign-in when there is one, as the token it is', async () => {
    const env = { CODEHOST_URL: sandbox.url, FORGEOPS_CLI_CLIENT_ID: SANDBOX_CLIENT_IDS.cli };
    let printed = '';
    await login(
      parseConfig(env),
      { mode: 'device' },
      {
        out: (text) => {
          printed += text;
        },
        file: credentials,
        sleep: async () => approveDeviceCode(sandbox, /enter the code: (\S+)/.exec(printed)?.[1] as string, 'bob'),
      },
    );
    try {
      const { status, text } = await doctor(env);
      expect(status).toBe(0);
      expect(text).toMatch(/✓ the sign-in of @bob \(forgeops login\) acts as bob/);
      expect(text).not.toContain('CODEHOST_TOKEN is not set');
    } finally {
      await credentials.remove(new URL(sandbox.url).origin);
    }
  });

  it('names what the MCP sign-in needs: the redirect URI to register, the public address and the secret', async () => {
    const { text } = await doctor({
      CODEHOST_URL: sandbox.url,
      CODEHOST_TOKEN: sandbox.tokens.maintainer,
      FORGEOPS_OAUTH_CLIENT_ID: 'forgeops-app',
      FORGEOPS_OAUTH_CLIENT_SECRET: 'a-secret',
    });
    expect(text).toContain('its redirect URI there must be http://127.0.0.1:8750/oauth/callback');
    expect(text).toMatch(/! FORGEOPS_PUBLIC_URL is not set/);
    expect(text).toMatch(/! FORGEOPS_SECRET is not set: every restart signs everybody out/);
    const wrong = await doctor({
      CODEHOST_URL: sandbox.url,
      CODEHOST_TOKEN: sandbox.tokens.maintainer,
      FORGEOPS_MCP_AUTH: 'oauth',
    });
    expect(wrong.status).toBe(1);
    expect(wrong.text).toMatch(/✗ MCP sign-in: FORGEOPS_MCP_AUTH is oauth, but forgeops has no application/);
  });

  it('runs from the built CLI against the embedded sandbox with exit status 0', () => {
    const out = spawnSync(process.execPath, [cli, 'doctor'], {
      cwd: '/',
      encoding: 'utf8',
      timeout: 30_000,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TMPDIR: tmpdir() },
    });
    expect(out.stderr).toBe('');
    expect(out.status).toBe(0);
    expect(out.stdout).toMatch(/^forgeops doctor\n✓ configuration: the environment only\n/);
    expect(out.stdout).toMatch(/✓ the embedded sandbox http:\/\/127\.0\.0\.1:\d+ \(no CODEHOST_URL set\) is reachable/);
    expect(out.stdout).toContain("✓ the sandbox's demo token acts as alice (Alice Martin), not an administrator");
  });
});
