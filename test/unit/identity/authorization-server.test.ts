// What forgeops's authorization server says of itself and asks people for: its RFC 8414 metadata, and the scopes of
// an authorization request as hosts send them (with words of their own, or none), and the one callback it shares with
// the other sign-ins of forgeops.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { authorizationServerMetadata, requestedScopes } from '../../../src/identity/authorization-server.js';
import { CodeHostOAuth } from '../../../src/identity/code-host-oauth.js';
import { createMcpSignInParts } from '../../../src/identity/mcp-sign-in.js';
import { personKey, TokenVault } from '../../../src/identity/token-vault.js';
import { silentLogger } from '../../../src/log.js';
import { MemoryStore } from '../../../src/state/store.js';

describe('authorizationServerMetadata', () => {
  it('names its endpoints under the issuer, S256 only, public clients, iss in answers and CIMD', () => {
    const meta = authorizationServerMetadata('https://forgeops.example');
    expect(meta).toMatchObject({
      issuer: 'https://forgeops.example',
      authorization_endpoint: 'https://forgeops.example/oauth/authorize',
      token_endpoint: 'https://forgeops.example/oauth/token',
      registration_endpoint: 'https://forgeops.example/oauth/register',
      revocation_endpoint: 'https://forgeops.example/oauth/revoke',
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      scopes_supported: ['api', 'read_api'],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
    });
  });

  it('leaves the registration endpoint out when dynamic registration is off', () => {
    expect(authorizationServerMetadata('https://forgeops.example', false)).not.toHaveProperty('registration_endpoint');
  });
});

describe('requestedScopes', () => {
  it("keeps forgeops's scopes, leaves out a host's own words, and asks for api when none of its own is named", () => {
    expect(requestedScopes('read_api')).toEqual(['read_api']);
    expect(requestedScopes('api read_api offline_access')).toEqual(['api', 'read_api']);
    expect(requestedScopes('openid offline_access')).toEqual(['api']);
    expect(requestedScopes(undefined)).toEqual(['api']);
  });
});

describe('the shared callback', () => {
  it("offers an answer that is no MCP sign-in's to the other sign-ins first, and refuses it when none takes it", async () => {
    const store = new MemoryStore();
    // Never asked on this path: the callback finds no MCP sign-in for these states.
    const oauth = new CodeHostOAuth({
      url: 'http://127.0.0.1:9',
      clientId: 'forgeops',
      redirectUri: 'http://127.0.0.1:9/oauth/callback',
      scopes: ['api'],
    });
    const parts = createMcpSignInParts({
      store,
      secret: 'x'.repeat(32),
      publicUrl: () => 'http://127.0.0.1:9',
      mcpPath: '/mcp',
      codeHost: oauth,
      vault: new TokenVault({ store, secret: 'x'.repeat(32), oauth }),
      personOf: personKey,
      clients: {},
      address: () => '127.0.0.1',
      log: silentLogger,
      async otherCallback(req: IncomingMessage, res: ServerResponse) {
        if (!req.url?.includes('state=slack-')) return false;
        res.writeHead(200, { 'content-type': 'text/plain' }).end('slack connect finished');
        return true;
      },
    });
    const server = createServer((req, res) => void parts.handlers['/oauth/'](req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    try {
      const slack = await fetch(`${base}/oauth/callback?code=c&state=slack-123`);
      expect(slack.status).toBe(200);
      expect(await slack.text()).toBe('slack connect finished');
      const stranger = await fetch(`${base}/oauth/callback?code=c&state=nobody`);
      expect(stranger.status).toBe(400);
      expect(await stranger.text()).toContain('Sign-in not started here');
    } finally {
      await new Promise((resolve) => server.close(resolve));
      await parts.close();
    }
  });
});
