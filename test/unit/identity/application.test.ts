// Which application at the code host forgeops signs people in through, and the settings that name it.
import { describe, expect, test } from 'vitest';
import { parseConfig } from '../../../src/config.js';
import { codeHostApplication, publicUrlOf } from '../../../src/identity/application.js';
import type { SandboxInfo } from '../../../src/identity/application.js';

const sandbox: SandboxInfo = {
  url: 'http://127.0.0.1:4100',
  tokens: {},
  applications: {
    forgeops: {
      name: 'forgeops',
      client_id: 'forgeops-sandbox',
      client_secret: 's3cret',
      redirect_uris: ['http://127.0.0.1/oauth/callback'],
      scopes: ['api', 'read_api', 'read_user'],
    },
    cli: { name: 'forgeops-cli', client_id: 'forgeops-cli-sandbox', redirect_uris: [], scopes: ['api'] },
  },
};

describe('settings', () => {
  test('an application id needs a code host, and a secret needs its id', () => {
    expect(() => parseConfig({ FORGEOPS_OAUTH_CLIENT_ID: 'abc' })).toThrow(
      /FORGEOPS_OAUTH_CLIENT_ID needs CODEHOST_URL/,
    );
    expect(() => parseConfig({ CODEHOST_URL: 'https://code.example', FORGEOPS_OAUTH_CLIENT_SECRET: 'x' })).toThrow(
      /FORGEOPS_OAUTH_CLIENT_SECRET is set without FORGEOPS_OAUTH_CLIENT_ID/,
    );
    expect(() => parseConfig({ FORGEOPS_OAUTH_SCOPES: 'api; drop' })).toThrow(
      /FORGEOPS_OAUTH_SCOPES must be scope names/,
    );
    expect(parseConfig({ FORGEOPS_OAUTH_SCOPES: 'read_api, read_user' }).identity.scopes).toEqual([
      'read_api',
      'read_user',
    ]);
    expect(parseConfig({}).identity.scopes).toEqual(['api']);
  });

  test('the public URL is the setting without a trailing slash, else the listening address', () => {
    expect(publicUrlOf(parseConfig({ FORGEOPS_PUBLIC_URL: 'https://forgeops.ops.example/' }))).toBe(
      'https://forgeops.ops.example',
    );
    expect(publicUrlOf(parseConfig({ FORGEOPS_HOST: '0.0.0.0', FORGEOPS_PORT: '8080' }))).toBe('http://127.0.0.1:8080');
  });
});

describe('the application', () => {
  test("on the sandbox: its pre-registered application, the callback at forgeops's address, scopes it allows", () => {
    const config = parseConfig({ FORGEOPS_OAUTH_SCOPES: 'api admin_mode' });
    expect(codeHostApplication(config, 'http://127.0.0.1:39999', sandbox)).toEqual({
      url: sandbox.url,
      clientId: 'forgeops-sandbox',
      clientSecret: 's3cret',
      redirectUri: 'http://127.0.0.1:39999/oauth/callback',
      scopes: ['api'],
    });
  });

  test('on a configured code host: the named application, or none', () => {
    const named = parseConfig({
      CODEHOST_URL: 'https://code.example',
      FORGEOPS_OAUTH_CLIENT_ID: 'app-1',
      FORGEOPS_OAUTH_CLIENT_SECRET: 'secret-1',
      FORGEOPS_OAUTH_SCOPES: 'read_api',
    });
    expect(codeHostApplication(named, 'https://ops.example')).toEqual({
      url: 'https://code.example',
      clientId: 'app-1',
      clientSecret: 'secret-1',
      redirectUri: 'https://ops.example/oauth/callback',
      scopes: ['read_api'],
    });
    expect(codeHostApplication(parseConfig({ CODEHOST_URL: 'https://code.example' }), 'https://ops.example')).toBe(
      undefined,
    );
  });
});
