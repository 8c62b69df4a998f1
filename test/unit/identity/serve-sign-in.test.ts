// Which way `serve` lets MCP clients in (FORGEOPS_MCP_AUTH and its default), and the combinations refused at start.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config.js';
import { mcpAuthMode } from '../../../src/identity/serve-sign-in.js';

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
