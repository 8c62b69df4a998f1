// Config from the environment: defaults, and one clear line naming the variable when a value is bad.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_CALL_TIMEOUT_MS, ENVIRONMENT, loadConfig, parseConfig } from '../../src/config.js';

describe('parseConfig', () => {
  it('gives sane defaults with an empty environment (embedded sandbox, loopback, approval by elicitation)', () => {
    const config = parseConfig({});
    expect(config.codehost.url).toBeUndefined();
    expect(config.codehost.timeoutMs).toBe(30_000);
    expect(config.codehost.maxRetries).toBe(3);
    expect(config.server).toMatchObject({ host: '127.0.0.1', port: 8750, allowedOrigins: [] });
    expect(config.policy).toEqual({ readOnly: false, toolsets: [], tools: [], apps: true });
    expect(config.approval).toEqual({ policy: 'elicit', port: 0 });
  });

  it('refuses a replica id a balancer could not route by, and a Redis URL that is not one, naming the variable', () => {
    expect(() => parseConfig({ FORGEOPS_REPLICA_ID: 'R1.a' })).toThrow(
      /FORGEOPS_REPLICA_ID must be 1 to 32 lowercase letters, digits or dashes/,
    );
    expect(() => parseConfig({ FORGEOPS_REDIS_URL: 'cache.internal:6379' })).toThrow(
      /FORGEOPS_REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL/,
    );
  });

  it('reads the watch settings, with the current values as defaults, and refuses a bad one naming it', () => {
    expect(parseConfig({}).watch).toEqual({
      intervalMs: 30_000,
      maxWatches: 200,
      maxPerChannel: 10,
      maxRefused: 10,
      refusedWindowMs: 600_000,
      webhookSpacingMs: 5_000,
    });
    expect(
      parseConfig({
        FORGEOPS_MAX_REFUSED_WATCHES: '3',
        FORGEOPS_REFUSED_WATCHES_WINDOW_MS: '90000',
        FORGEOPS_WEBHOOK_SPACING_MS: '0',
      }).watch,
    ).toMatchObject({ maxRefused: 3, refusedWindowMs: 90_000, webhookSpacingMs: 0 });
    const refused: Array<[string, string, RegExp]> = [
      ['FORGEOPS_MAX_REFUSED_WATCHES', '0', /of 1 or more; got '0'/],
      ['FORGEOPS_MAX_REFUSED_WATCHES', 'ten', /of 1 or more; got 'ten'/],
      ['FORGEOPS_REFUSED_WATCHES_WINDOW_MS', '999', /of 1000 or more; got '999'/],
      ['FORGEOPS_REFUSED_WATCHES_WINDOW_MS', '10m', /of 1000 or more; got '10m'/],
      ['FORGEOPS_WEBHOOK_SPACING_MS', '-1', /from 0 to 600000; got '-1'/],
      ['FORGEOPS_WEBHOOK_SPACING_MS', '600001', /from 0 to 600000; got '600001'/],
      ['FORGEOPS_WEBHOOK_SPACING_MS', '5s', /from 0 to 600000; got '5s'/],
    ];
    for (const [name, value, why] of refused) {
      expect(() => parseConfig({ [name]: value }), `${name}=${value}`).toThrow(ConfigError);
      expect(() => parseConfig({ [name]: value }), `${name}=${value}`).toThrow(
        new RegExp(`^invalid configuration: ${name} must be a whole number ${why.source}`),
      );
    }
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
      FORGEOPS_ALLOWED_HOSTS: 'MCP.example.org:443',
      FORGEOPS_REPLICA_ID: 'r2',
      FORGEOPS_MAX_SESSIONS_PER_CALLER: '40',
      FORGEOPS_TRUSTED_PROXIES: '127.0.0.1, 10.0.0.0/8, fd00::/8',
      FORGEOPS_MCP_AUTH: 'token',
      FORGEOPS_MCP_CLIENTS: '[{"client_id":"desk","client_name":"Desk","redirect_uris":["https://desk.example/cb"]}]',
      FORGEOPS_MCP_MAX_REGISTERED_CLIENTS: '50',
      FORGEOPS_OAUTH_ALLOW_PRIVATE_CLIENT_URLS: 'yes',
      FORGEOPS_REDIS_URL: 'redis://cache.internal:6379/0',
      FORGEOPS_READ_ONLY: 'true',
      FORGEOPS_TOOLSETS: 'pipelines,releases',
      FORGEOPS_TOOLS: 'get_file',
      FORGEOPS_APPS: 'off',
      FORGEOPS_CONFIRM_WITHOUT_ELICITATION: 'allow',
    });
    expect(config.codehost).toEqual({
      url: 'https://code.example.com/code',
      token: 'tok-1234',
      scimToken: 'scim-5678',
      caFile: '/etc/ssl/corp.pem',
      timeoutMs: 5000,
      maxRetries: 0,
    });
    expect(config.server).toEqual({
      host: '0.0.0.0',
      port: 9000,
      mcpToken: 'mcp-secret',
      allowedOrigins: ['https://a.example', 'https://b.example'],
      maxSessions: 1000,
      allowedHosts: ['mcp.example.org:443'],
      replicaId: 'r2',
      maxSessionsPerCaller: 40,
      trustedProxies: ['127.0.0.1', '10.0.0.0/8', 'fd00::/8'],
      mcpAuth: 'token',
      mcpClients: [{ client_id: 'desk', client_name: 'Desk', redirect_uris: ['https://desk.example/cb'] }],
      maxRegisteredClients: 50,
      allowPrivateClientUrls: true,
    });
    expect(config.redisUrl).toBe('redis://cache.internal:6379/0');
    expect(config.policy).toEqual({
      readOnly: true,
      toolsets: ['pipelines', 'releases'],
      tools: ['get_file'],
      apps: false,
    });
    expect(config.approval.policy).toBe('allow');
  });

  it('names FORGEOPS_MCP_AUTH and FORGEOPS_MCP_CLIENTS when they are not what they must be', () => {
    expect(() => parseConfig({ FORGEOPS_MCP_AUTH: 'password' })).toThrow(
      /FORGEOPS_MCP_AUTH must be one of oauth, token; got 'password'/,
    );
    expect(() => parseConfig({ FORGEOPS_MCP_CLIENTS: '[{"client_id":"x"}]' })).toThrow(
      /FORGEOPS_MCP_CLIENTS must be a JSON array of clients/,
    );
    expect(() => parseConfig({ FORGEOPS_MCP_CLIENTS: 'desk=https://desk.example' })).toThrow(/FORGEOPS_MCP_CLIENTS/);
  });

  it('takes FORGEOPS_PUBLIC_URL as an address without a path, and names a path as the mistake', () => {
    expect(parseConfig({ FORGEOPS_PUBLIC_URL: 'https://forgeops.example.com/' }).identity.publicUrl).toBe(
      'https://forgeops.example.com',
    );
    expect(parseConfig({ FORGEOPS_PUBLIC_URL: 'http://127.0.0.1:8750' }).identity.publicUrl).toBe(
      'http://127.0.0.1:8750',
    );
    for (const wrong of ['https://tools.example.com/forgeops', 'https://forgeops.example.com/?x=1']) {
      expect(() => parseConfig({ FORGEOPS_PUBLIC_URL: wrong })).toThrow(
        /FORGEOPS_PUBLIC_URL must be the address forgeops is reached at with no path/,
      );
    }
  });

  it('reads the approval settings, and keeps FORGEOPS_CONFIRM_WITHOUT_ELICITATION as an older spelling', () => {
    expect(
      parseConfig({
        FORGEOPS_APPROVAL: 'page',
        FORGEOPS_APPROVAL_SECRET: 'correct horse battery',
        FORGEOPS_APPROVAL_PORT: '8751',
        FORGEOPS_APPROVAL_URL: 'https://forge.example/',
        FORGEOPS_APPROVAL_OPEN: 'notify-send  forgeops',
      }).approval,
    ).toEqual({
      policy: 'page',
      secret: 'correct horse battery',
      port: 8751,
      publicUrl: 'https://forge.example',
      openCommand: ['notify-send', 'forgeops'],
    });
    expect(parseConfig({ FORGEOPS_CONFIRM_WITHOUT_ELICITATION: 'refuse' }).approval.policy).toBe('refuse');
    expect(parseConfig({ SLACK_APPROVER: 'U012AB3CD' }).slack.approver).toBe('U012AB3CD');
    expect(parseConfig({ SLACK_APPROVER: 'T0123ABCD:U012AB3CD' }).slack.approver).toBe('T0123ABCD:U012AB3CD');
    expect(
      parseConfig({ FORGEOPS_APPROVAL: 'allow', FORGEOPS_CONFIRM_WITHOUT_ELICITATION: 'allow' }).approval.policy,
    ).toBe('allow');
  });

  it.each([
    [{ CODEHOST_URL: 'code.example.com' }, 'CODEHOST_URL'],
    [{ CODEHOST_URL: 'ftp://code.example.com' }, 'CODEHOST_URL'],
    [{ CODEHOST_TIMEOUT_MS: 'soon' }, 'CODEHOST_TIMEOUT_MS'],
    [{ FORGEOPS_PORT: '-1' }, 'FORGEOPS_PORT'],
    [{ FORGEOPS_READ_ONLY: 'maybe' }, 'FORGEOPS_READ_ONLY'],
    [{ FORGEOPS_CONFIRM_WITHOUT_ELICITATION: 'sometimes' }, 'FORGEOPS_CONFIRM_WITHOUT_ELICITATION'],
    [{ FORGEOPS_APPROVAL: 'ask' }, 'FORGEOPS_APPROVAL'],
    [
      { FORGEOPS_APPROVAL: 'page', FORGEOPS_CONFIRM_WITHOUT_ELICITATION: 'allow' },
      'FORGEOPS_CONFIRM_WITHOUT_ELICITATION',
    ],
    [{ FORGEOPS_APPROVAL_SECRET: 'short' }, 'FORGEOPS_APPROVAL_SECRET'],
    [{ FORGEOPS_APPROVAL_PORT: '70000' }, 'FORGEOPS_APPROVAL_PORT'],
    [{ SLACK_APPROVER: '@ana' }, 'SLACK_APPROVER'],
    [{ FORGEOPS_TRUSTED_PROXIES: '127.0.0.1,balancer.internal' }, 'FORGEOPS_TRUSTED_PROXIES'],
    [{ FORGEOPS_TRUSTED_PROXIES: '10.0.0.0/8/1' }, 'FORGEOPS_TRUSTED_PROXIES'],
    [{ FORGEOPS_MAX_SESSIONS_PER_CALLER: 'many' }, 'FORGEOPS_MAX_SESSIONS_PER_CALLER'],
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
  it('says how long a secret must be and how long the given one is, without showing it', () => {
    expect(() => parseConfig({ FORGEOPS_APPROVAL_SECRET: 'short' })).toThrow(
      /FORGEOPS_APPROVAL_SECRET must be at least 12 characters; got 5 characters/,
    );
    expect(() => parseConfig({ FORGEOPS_WEBHOOK_SECRET: 'twelve chars' })).toThrow(
      /FORGEOPS_WEBHOOK_SECRET must be at least 16 characters; got 12 characters/,
    );
    expect(() => parseConfig({ FORGEOPS_WEBHOOK_SECRET: 'sixteen chars ok' })).not.toThrow();
  });
});

describe('credentials in a URL setting', () => {
  // Every http(s) URL setting; FORGEOPS_REDIS_URL is the one whose password belongs in it (and is never shown).
  const urlSettings = Object.keys(ENVIRONMENT.shape).filter(
    (name) => name.endsWith('_URL') && name !== 'FORGEOPS_REDIS_URL',
  );

  it('covers every URL setting', () => {
    expect(urlSettings).toEqual(expect.arrayContaining(['CODEHOST_URL', 'FORGEOPS_APPROVAL_URL', 'SLACK_API_URL']));
  });

  it.each(urlSettings)(
    '%s with a user name or password stops start-up in one line that names it and shows neither',
    (name) => {
      for (const value of [
        'https://deploy-bot:s3cr3t-pass@code.example.com',
        'https://glpat-s3cr3t-pass@code.example.com/',
        'https://deploy-bot:s3cr3t/pass@code.example.com',
      ]) {
        let message = '';
        try {
          parseConfig({ [name]: value });
        } catch (error) {
          expect(error).toBeInstanceOf(ConfigError);
          message = (error as Error).message;
        }
        expect(message).toContain(name);
        expect(message).not.toContain('\n');
        expect(message).not.toMatch(/s3cr3t|deploy-bot/);
        if (/:\/\/[^/]*@/.test(value)) expect(message).toContain('must not carry a user name or password');
      }
    },
  );

  it('says where the token goes instead for CODEHOST_URL', () => {
    expect(() => parseConfig({ CODEHOST_URL: 'https://user:pass@code.example.com' })).toThrow(
      "CODEHOST_URL must not carry a user name or password (user:password@): put the token in CODEHOST_TOKEN instead; got 'https://***@code.example.com'",
    );
  });
});

describe('the call deadline and the proxy', () => {
  it('defaults the call deadline below the 60 s MCP clients wait, and reads it', () => {
    expect(parseConfig({}).callTimeoutMs).toBe(DEFAULT_CALL_TIMEOUT_MS);
    expect(DEFAULT_CALL_TIMEOUT_MS).toBeLessThan(60_000);
    expect(parseConfig({ FORGEOPS_CALL_TIMEOUT_MS: '1500' }).callTimeoutMs).toBe(1500);
    expect(() => parseConfig({ FORGEOPS_CALL_TIMEOUT_MS: '0' })).toThrow(/FORGEOPS_CALL_TIMEOUT_MS/);
  });

  it('reads the proxy from the configuration it was given, upper or lower case', () => {
    expect(parseConfig({ HTTPS_PROXY: 'http://p:1', no_proxy: 'internal' }).proxy).toEqual({
      httpProxy: undefined,
      httpsProxy: 'http://p:1',
      noProxy: 'internal',
    });
  });
});

describe('loadConfig: env files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'forgeops-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(
    join(dir, '.env'),
    '# settings\nFORGEOPS_READ_ONLY=true\nexport FORGEOPS_PORT=9100\nNOTES="two\nlines"\n',
  );

  it('never reads a .env that merely sits in the working directory, and reports it', () => {
    const { config, source } = loadConfig({ env: {}, cwd: dir });
    expect(config.policy.readOnly).toBe(false);
    expect(source).toEqual({ ignoredDotenv: join(dir, '.env') });
  });

  it('reads the file named by --env-file or FORGEOPS_ENV_FILE, the environment winning', () => {
    const named = loadConfig({ envFile: '.env', env: { FORGEOPS_PORT: '9200' }, cwd: dir });
    expect(named.config.policy.readOnly).toBe(true);
    expect(named.config.server.port).toBe(9200);
    expect(named.source).toEqual({ envFile: { path: join(dir, '.env'), variables: 2 } });
    const byVariable = loadConfig({ env: { FORGEOPS_ENV_FILE: join(dir, '.env') }, cwd: '/' });
    expect(byVariable.config.server.port).toBe(9100);
  });

  it.each([
    ['missing', () => join(dir, 'nope.env'), /--env-file '.*nope\.env' does not exist/],
    [
      'a directory',
      () => {
        mkdirSync(join(dir, 'sub'), { recursive: true });
        return join(dir, 'sub');
      },
      /is a directory, not an env file/,
    ],
    [
      'binary',
      () => {
        writeFileSync(join(dir, 'bin.env'), Buffer.from([0x41, 0x3d, 0x00, 0xff]));
        return join(dir, 'bin.env');
      },
      /is binary, not an env file/,
    ],
    [
      'garbage',
      () => {
        writeFileSync(join(dir, 'junk.env'), 'A=1\nthis is not a setting\n');
        return join(dir, 'junk.env');
      },
      /junk\.env' line 2 is not KEY=value/,
    ],
  ])('stops with one line naming a named env file that is %s', (_what, make, message) => {
    const path = make();
    expect(() => loadConfig({ envFile: path, env: {}, cwd: dir })).toThrow(ConfigError);
    expect(() => loadConfig({ envFile: path, env: {}, cwd: dir })).toThrow(message);
  });
});
