// Config from the environment: defaults, and one clear line naming the variable when a value is bad.
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config.js';

describe('parseConfig', () => {
  it('gives sane defaults with an empty environment (embedded sandbox, loopback, refuse without elicitation)', () => {
    const config = parseConfig({});
    expect(config.codehost.url).toBeUndefined();
    expect(config.codehost.timeoutMs).toBe(30_000);
    expect(config.codehost.maxRetries).toBe(3);
    expect(config.server).toMatchObject({ host: '127.0.0.1', port: 8750, allowedOrigins: [] });
    expect(config.policy).toEqual({ readOnly: false, toolsets: [], confirmWithoutElicitation: 'refuse' });
  });

  it('reads every variable', () => {
    const config = parseConfig({
      CODEHOST_URL: 'https://code.example.com/code/',
      CODEHOST_TOKEN: 'tok-1234',
      CODEHOST_SCIM_TOKEN: 'scim-5678',
      CODEHOST_CA_FILE: '/etc/ssl/corp.pem',
      CODEHOST_TIMEOUT_MS: '5000',
      CODEHOST_MAX_RETRIES: '0',
      FORGEOPS_HOST: '0.0.0.0',
      FORGEOPS_PORT: '9000',
      FORGEOPS_MCP_TOKEN: 'mcp-secret',
      FORGEOPS_ALLOWED_ORIGINS: 'https://a.example, https://b.example',
      FORGEOPS_READ_ONLY: 'true',
      FORGEOPS_TOOLSETS: 'pipelines,releases',
      FORGEOPS_CONFIRM_WITHOUT_ELICITATION: 'allow',
    });
    expect(config.codehost).toEqual({
      url: 'https://code.example.com/code', token: 'tok-1234', scimToken: 'scim-5678',
      caFile: '/etc/ssl/corp.pem', timeoutMs: 5000, maxRetries: 0,
    });
    expect(config.server).toEqual({
      host: '0.0.0.0', port: 9000, mcpToken: 'mcp-secret', allowedOrigins: ['https://a.example', 'https://b.example'],
    });
    expect(config.policy).toEqual({ readOnly: true, toolsets: ['pipelines', 'releases'], confirmWithoutElicitation: 'allow' });
  });

  it.each([
    [{ CODEHOST_URL: 'code.example.com' }, 'CODEHOST_URL'],
    [{ CODEHOST_URL: 'ftp://code.example.com' }, 'CODEHOST_URL'],
    [{ CODEHOST_TIMEOUT_MS: 'soon' }, 'CODEHOST_TIMEOUT_MS'],
    [{ FORGEOPS_PORT: '-1' }, 'FORGEOPS_PORT'],
    [{ FORGEOPS_READ_ONLY: 'maybe' }, 'FORGEOPS_READ_ONLY'],
    [{ FORGEOPS_CONFIRM_WITHOUT_ELICITATION: 'sometimes' }, 'FORGEOPS_CONFIRM_WITHOUT_ELICITATION'],
    [{ FORGEOPS_TOOLSETS: 'pipelines,rockets' }, 'FORGEOPS_TOOLSETS'],
  ])('rejects %o with one line naming %s', (env, variable) => {
    let error: unknown;
    try {
      parseConfig(env);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toContain(variable);
    expect(message).not.toContain('\n');
  });
});
