// What `forgeops serve` (npm start) prints: the MCP URL, the service, how to connect, and the terminal chat to try.
import { describe, expect, it } from 'vitest';
import { bannerText } from '../../src/banner.js';
import { parseConfig } from '../../src/config.js';

describe('bannerText', () => {
  const sandbox = {
    url: 'http://127.0.0.1:4000',
    tokens: { maintainer: 'fo-maintainer-sandbox-token', developer: 'fo-developer-sandbox-token' },
  };

  /** The banner of `serve` on the embedded sandbox, its MCP endpoint on port 8750. */
  const onSandbox = (extra: Partial<Parameters<typeof bannerText>[0]> = {}) =>
    bannerText({
      mcpUrl: 'http://127.0.0.1:8750/mcp',
      serviceLabel: 'the embedded sandbox',
      sandbox,
      config: parseConfig({}),
      ...extra,
    });

  it('on the embedded sandbox: its tokens, and the terminal chat both on its own sandbox and on this one', () => {
    const text = onSandbox();
    expect(text).toContain('forgeops MCP server: http://127.0.0.1:8750/mcp');
    expect(text).toContain('  maintainer  fo-maintainer-sandbox-token');
    expect(text).toContain(
      'No client? Try the same operations in the terminal chat (`triage acme/web` is a good start):',
    );
    expect(text).toMatch(/^ {2}npx forgeops chat +its own fresh sandbox$/m);
    expect(text).toContain(
      '  CODEHOST_URL=http://127.0.0.1:4000 CODEHOST_TOKEN=fo-maintainer-sandbox-token npx forgeops chat',
    );
  });

  it('on a configured service: the chat as it is, with no token printed', () => {
    const config = parseConfig({
      CODEHOST_URL: 'https://code.example.com',
      CODEHOST_TOKEN: 'glpat-secret-token-value',
    });
    const text = bannerText({ mcpUrl: 'http://127.0.0.1:8750/mcp', serviceLabel: 'https://code.example.com', config });
    expect(text).toMatch(/^ {2}npx forgeops chat$/m);
    expect(text).not.toContain('glpat-secret-token-value');
  });

  it('in OAuth mode: people sign in from their clients, and no shared bearer is asked for', () => {
    const text = onSandbox({ signIn: true });
    expect(text).toContain('MCP clients sign in through the sandbox');
    expect(text).toContain('Each person signs in from their client (OAuth)');
    expect(text).toContain('the chat acts as the sandbox maintainer');
    expect(text).not.toContain('FORGEOPS_MCP_TOKEN');
  });
});
