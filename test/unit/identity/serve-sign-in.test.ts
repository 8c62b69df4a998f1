// Which way `serve` lets MCP clients in (FORGEOPS_MCP_AUTH and its default), and the combinations refused at start.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config.js';
import { mcpAuthMode, serveSignIn } from '../../../src/identity/serve-sign-in.js';
import { silentLogger } from '../../../src/log.js';
import type { Runtime } from '../../../src/runtime.js';
import { MemoryStore } from '../../../src/state/store.js';

describe('mcpAuthMode', () => {
  it('defaults to OAuth on the embedded sandbox and with an application at the code host, else token', () => {
    expect(mcpAuthMode(parseConfig({}))).toBe('oauth');
    expect(
      mcpAuthMode(
        parseConfig({
          CODEHOST_URL: 'https://code.example.com',
          FORGEOPS_OAUTH_CLIENT_ID: 'app',
          FORGEOPS_OAUTH_CLIENT_SECRET: 's',
        }),
      ),
    ).toBe('oauth');
    expect(mcpAuthMode(parseConfig({ CODEHOST_URL: 'https://code.example.com', CODEHOST_TOKEN: 'tok' }))).toBe('token');
  });

  it('keeps the token mode wherever FORGEOPS_MCP_TOKEN is set, or when asked for', () => {
    expect(mcpAuthMode(parseConfig({ FORGEOPS_MCP_TOKEN: 'shared-bearer' }))).toBe('token');
    expect(mcpAuthMode(parseConfig({ FORGEOPS_MCP_AUTH: 'token' }))).toBe('token');
  });

  it('refuses OAuth without an application to sign in through, or beside a shared bearer, naming the settings', () => {
    expect(() =>
      mcpAuthMode(parseConfig({ FORGEOPS_MCP_AUTH: 'oauth', CODEHOST_URL: 'https://code.example.com' })),
    ).toThrow(/FORGEOPS_OAUTH_CLIENT_ID/);
    expect(() => mcpAuthMode(parseConfig({ FORGEOPS_MCP_AUTH: 'oauth', FORGEOPS_MCP_TOKEN: 'shared' }))).toThrow(
      /FORGEOPS_MCP_TOKEN .* unset one of them/,
    );
  });
});

describe('serveSignIn', () => {
  it('refuses replicas sharing a store without FORGEOPS_SECRET: each would sign and encrypt with a key of its own', () => {
    const start = (env: Record<string, string>, sharedStore: boolean) =>
      serveSignIn({
        config: parseConfig(env),
        runtime: {} as Runtime,
        store: new MemoryStore(),
        sharedStore,
        log: silentLogger,
        mcpPath: '/mcp',
        listening: () => ({ host: '127.0.0.1', port: 8750 }),
        address: () => '127.0.0.1',
      });
    expect(() => start({}, true)).toThrow(/FORGEOPS_REDIS_URL needs FORGEOPS_SECRET/);
    expect(start({}, false).publicUrl()).toBe('http://127.0.0.1:8750');
    expect(
      start({ FORGEOPS_SECRET: 'x'.repeat(32), FORGEOPS_PUBLIC_URL: 'https://forgeops.example' }, true).publicUrl(),
    ).toBe('https://forgeops.example');
  });
});
