// The MCP clients forgeops's authorization server knows: pre-registered ones, Client ID Metadata Documents fetched with
// care (their own URL, size cap, no private addresses unless allowed) and DCR under a total cap and a rate per address.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPrivateAddress } from '../../../src/identity/client-metadata-fetch.js';
import { checkRedirectUri, McpClients } from '../../../src/identity/mcp-clients.js';
import { OAuthError } from '../../../src/identity/oauth-http.js';
import { MemoryStore } from '../../../src/state/store.js';
import { rejectionOf } from '../../helpers/rejection.js';

let server: Server;
let origin: string;
/** What the metadata server answers, by path. */
const documents = new Map<string, () => { status?: number; body: string }>();

beforeAll(async () => {
  server = createServer((req, res) => {
    const answer = documents.get(req.url ?? '')?.();
    if (!answer) return void res.writeHead(404).end();
    res.writeHead(answer.status ?? 200, { 'content-type': 'application/json' }).end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const refusal = (promise: Promise<unknown>) => rejectionOf(promise, OAuthError);

const registration = (redirect = 'http://127.0.0.1:33418/callback') => ({
  client_name: 'Host',
  redirect_uris: [redirect],
});

describe('dynamic registration (RFC 7591)', () => {
  it('registers a public client that is then found by its id', async () => {
    const clients = new McpClients({ store: new MemoryStore() });
    const answer = await clients.register(registration(), '10.0.0.1');
    expect(answer).toMatchObject({
      token_endpoint_auth_method: 'none',
      redirect_uris: ['http://127.0.0.1:33418/callback'],
    });
    const found = await clients.find(answer.client_id as string);
    expect(found).toMatchObject({ kind: 'dynamic', client_name: 'Host' });
  });

  it('names the bad field: no redirect URIs, a script URI, http off loopback, unknown grant types', async () => {
    const clients = new McpClients({ store: new MemoryStore() });
    expect((await refusal(clients.register({ client_name: 'x' }, 'a'))).message).toContain('redirect_uris');
    expect((await refusal(clients.register(registration('javascript:alert(1)'), 'a'))).message).toContain(
      'javascript: scheme',
    );
    expect((await refusal(clients.register(registration('http://evil.example/cb'), 'a'))).message).toContain(
      'http is allowed on loopback only',
    );
    const grants = await refusal(clients.register({ ...registration(), grant_types: ['client_credentials'] }, 'a'));
    expect(grants).toMatchObject({ error: 'invalid_client_metadata' });
    expect(grants.message).toContain('grant_types');
    // A native app's private-use scheme is a redirect URI like any other.
    expect(checkRedirectUri('cursor://anysphere.cursor-mcp/oauth/callback')).toBe(
      'cursor://anysphere.cursor-mcp/oauth/callback',
    );
  });

  it('caps registrations per address per hour, and in all', async () => {
    const store = new MemoryStore();
    const clients = new McpClients({ store, registrationsPerAddressPerHour: 2, maxDynamicClients: 3 });
    await clients.register(registration(), '10.0.0.1');
    await clients.register(registration(), '10.0.0.1');
    const rated = await refusal(clients.register(registration(), '10.0.0.1'));
    expect(rated.status).toBe(429);
    expect(rated.headers['retry-after']).toBe('3600');
    await clients.register(registration(), '10.0.0.2');
    const full = await refusal(clients.register(registration(), '10.0.0.3'));
    expect(full.status).toBe(503);
    expect(full.message).toContain('maximum of 3');
  });

  it('is off with a cap of 0, saying what to use instead', async () => {
    const clients = new McpClients({ store: new MemoryStore(), maxDynamicClients: 0 });
    expect(clients.dynamicRegistration).toBe(false);
    expect((await refusal(clients.register(registration(), 'a'))).message).toContain('client metadata document URL');
  });
});

describe('pre-registered clients', () => {
  it('are found by their id, and an unknown id is refused by name', async () => {
    const clients = new McpClients({
      store: new MemoryStore(),
      registered: [{ client_id: 'desk', client_name: 'Desk', redirect_uris: ['https://desk.example/cb'] }],
    });
    expect(await clients.find('desk')).toMatchObject({ kind: 'registered', client_name: 'Desk' });
    expect((await refusal(clients.find('nobody'))).message).toContain("client_id 'nobody' is not registered here");
  });
});

describe('client metadata documents', () => {
  it('fetches the document at the client_id URL, which must name itself', async () => {
    const url = `${origin}/good/client.json`;
    documents.set('/good/client.json', () => ({
      body: JSON.stringify({ client_id: url, client_name: 'Doc host', redirect_uris: ['https://doc.example/cb'] }),
    }));
    const clients = new McpClients({ store: new MemoryStore(), allowPrivateClientUrls: true });
    expect(await clients.find(url)).toMatchObject({
      kind: 'metadata-document',
      redirect_uris: ['https://doc.example/cb'],
    });

    const other = `${origin}/liar/client.json`;
    documents.set('/liar/client.json', () => ({
      body: JSON.stringify({
        client_id: 'https://someone-else.example/c.json',
        redirect_uris: ['https://doc.example/cb'],
      }),
    }));
    expect((await refusal(clients.find(other))).message).toContain('names another client_id');
  });

  it('refuses a loopback or private address unless allowed, and never fetches it', async () => {
    let fetched = 0;
    documents.set('/private/client.json', () => {
      fetched += 1;
      return { body: '{}' };
    });
    const clients = new McpClients({ store: new MemoryStore() });
    const error = await refusal(clients.find(`${origin}/private/client.json`));
    expect(error.error).toBe('invalid_client');
    expect(fetched).toBe(0);
    expect(isPrivateAddress('169.254.169.254')).toBe(true);
    expect(isPrivateAddress('10.1.2.3')).toBe(true);
    expect(isPrivateAddress('::1')).toBe(true);
    expect(isPrivateAddress('::ffff:127.0.0.1')).toBe(true);
    expect(isPrivateAddress('::ffff:93.184.215.14')).toBe(false);
    expect(isPrivateAddress('93.184.215.14')).toBe(false);
  });

  it('refuses a document over the size cap, an error answer, and JSON that is not an object', async () => {
    const clients = new McpClients({ store: new MemoryStore(), allowPrivateClientUrls: true });
    documents.set('/big/client.json', () => ({ body: JSON.stringify({ padding: 'x'.repeat(10_000) }) }));
    expect((await refusal(clients.find(`${origin}/big/client.json`))).message).toContain('larger than');
    documents.set('/gone/client.json', () => ({ status: 500, body: '{}' }));
    expect((await refusal(clients.find(`${origin}/gone/client.json`))).message).toContain('answered 500');
    documents.set('/list/client.json', () => ({ body: '[]' }));
    expect((await refusal(clients.find(`${origin}/list/client.json`))).message).toContain('not a JSON object');
  });
});
