// A host known by its Client ID Metadata Document: its client_id is the URL of a JSON document naming itself and its
// redirect URIs, which forgeops fetches (here on loopback, allowed by FORGEOPS_OAUTH_ALLOW_PRIVATE_CLIENT_URLS as a
// closed network would), shows on its consent page by the document's host, and signs the person in for. This serve
// asks the code host for read_api only (FORGEOPS_OAUTH_SCOPES): its sign-ins can only read, whatever the host asked.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAuthBrowser, signInAsPerson } from '../helpers/oauth-browser.js';
import {
  listWith,
  type OAuthServe,
  pkcePair,
  startOAuthServe,
  tokenRequest,
  pkceAuthorizeUrl,
} from '../helpers/oauth-serve.js';

const REDIRECT = 'http://127.0.0.1:1/cimd-host/callback';
let serve: OAuthServe;
let documents: Server;
let clientId: string;
let fetches = 0;

beforeAll(async () => {
  documents = createServer((req, res) => {
    if (req.url !== '/oauth/client.json') return void res.writeHead(404).end();
    fetches += 1;
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ client_id: clientId, client_name: 'Document host', redirect_uris: [REDIRECT] }));
  });
  await new Promise<void>((resolve) => documents.listen(0, '127.0.0.1', resolve));
  const address = documents.address();
  clientId = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/oauth/client.json`;
  serve = await startOAuthServe({
    FORGEOPS_OAUTH_ALLOW_PRIVATE_CLIENT_URLS: 'true',
    FORGEOPS_OAUTH_SCOPES: 'read_api',
  });
}, 60_000);

afterAll(async () => {
  serve?.stop();
  await new Promise((resolve) => documents?.close(resolve));
});

describe('a client known by its metadata document', () => {
  it('is fetched, named by its host on the consent page, and signs the person in', async () => {
    const pkce = pkcePair();
    const request = pkceAuthorizeUrl(serve.base, clientId, REDIRECT, pkce.challenge, {
      state: 'cimd-state',
      scope: 'api',
    });
    const consent = await new OAuthBrowser().fetch(request);
    expect(consent.status).toBe(200);
    expect(consent.html).toContain('“Document host”, published at <code>127.0.0.1:');
    const back = await signInAsPerson(new OAuthBrowser(), request, REDIRECT, { username: 'erin' });
    expect(back.searchParams.get('state')).toBe('cimd-state');
    const tokens = await tokenRequest(serve.base, {
      grant_type: 'authorization_code',
      client_id: clientId,
      code: back.searchParams.get('code')!,
      code_verifier: pkce.verifier,
      redirect_uri: REDIRECT,
      resource: serve.mcpUrl,
    });
    expect(tokens.status).toBe(200);
    // Asked for everything and allowed, but the code host's grant reads only: so does forgeops's.
    expect(tokens.data.scope).toBe('read_api');
    expect((await listWith(serve.mcpUrl, tokens.data.access_token)).status).toBe(200);
    // Fetched once for the whole sign-in (kept briefly), not at every step.
    expect(fetches).toBe(1);
  });

  it('refuses a redirect URI its document does not list', async () => {
    const page = await new OAuthBrowser().fetch(
      pkceAuthorizeUrl(serve.base, clientId, 'http://127.0.0.1:1/elsewhere', pkcePair().challenge),
    );
    expect(page.status).toBe(400);
    expect(page.html).toContain('is not one the client registered');
  });
});
