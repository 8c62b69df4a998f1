// TLS with a private certificate authority (CODEHOST_CA_FILE): trusted when given, refused without it, by the API
// client and by the sign-in's OAuth requests alike (the server's, the terminal's refresh, revocation and account).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../../../src/http/client.js';
import { codeHostFetch } from '../../../src/http/code-host-fetch.js';
import { ApiError } from '../../../src/http/errors.js';
import { CodeHostOAuth } from '../../../src/identity/code-host-oauth.js';
import { fetchAccount, refreshTokens, revokeToken } from '../../../src/identity/terminal-login.js';

let dir: string;
let server: Server;
let baseUrl: string;

/** A throwaway CA and a server certificate for 127.0.0.1 signed by it, made with the openssl program. */
function makeCertificates(): void {
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=forgeops test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign',
  );
  openssl('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1');
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1\n');
  openssl(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '2',
    '-extfile',
    'san.ext',
  );
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'forgeops-tls-'));
  makeCertificates();
  server = createServer(
    { key: readFileSync(join(dir, 'server.key')), cert: readFileSync(join(dir, 'server.pem')) },
    (req, res) => {
      const json = (body: unknown) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      // The provider's answers, enough for a refresh, a revocation and whose token it is.
      if (req.url === '/oauth/token')
        return json({
          access_token: 'new-access',
          refresh_token: 'new-refresh',
          token_type: 'Bearer',
          expires_in: 7200,
        });
      if (req.url === '/oauth/revoke') return json({});
      if (req.url === '/api/v4/user') return json({ id: 7, username: 'erin' });
      json({ path: req.url });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe('private CA', () => {
  it('reaches an HTTPS service whose certificate the CA file vouches for', async () => {
    const client = new HttpClient({ baseUrl, caFile: join(dir, 'ca.pem'), retry: { maxRetries: 0 } });
    const res = await client.request({ method: 'GET', path: '/user', idempotent: true });
    expect(res.data).toMatchObject({ username: 'erin' });
    await client.close();
  });

  it('refuses the same service without the CA file, as a network error naming the certificate problem', async () => {
    const client = new HttpClient({ baseUrl, retry: { maxRetries: 0 } });
    const error = await client.request({ method: 'GET', path: '/user', idempotent: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(0);
    expect((error as ApiError).message).toMatch(/certificate/i);
    await client.close();
  });
});

describe('the sign-in behind a private CA', () => {
  const application = (url: string) => ({
    url,
    clientId: 'forgeops',
    redirectUri: 'http://127.0.0.1/cb',
    scopes: ['api'],
  });

  it("forgeops's own sign-in refreshes, revokes and reads the account through the CA file", async () => {
    const oauth = new CodeHostOAuth(application(baseUrl), { fetch: codeHostFetch({ caFile: join(dir, 'ca.pem') }) });
    expect((await oauth.refresh('old-refresh')).accessToken).toBe('new-access');
    await oauth.revoke('new-refresh');
    expect(await oauth.account('new-access')).toMatchObject({ id: 7, username: 'erin' });
    // Node's own fetch does not know the CA: what forgeops sent before.
    const unaided = new CodeHostOAuth(application(baseUrl));
    await expect(unaided.refresh('old-refresh')).rejects.toThrow();
  });

  it("the terminal's sign-in refreshes, revokes and reads the account through the CA file", async () => {
    const client = { host: baseUrl, clientId: 'forgeops-cli', fetch: codeHostFetch({ caFile: join(dir, 'ca.pem') }) };
    expect((await refreshTokens(client, 'old-refresh')).access_token).toBe('new-access');
    await revokeToken(client, 'new-refresh', 'refresh_token');
    expect(await fetchAccount(client, 'new-access')).toEqual({ id: 7, username: 'erin' });
    await expect(refreshTokens({ host: baseUrl, clientId: 'forgeops-cli' }, 'old-refresh')).rejects.toThrow();
  });
});
