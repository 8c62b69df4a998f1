// Tests of HttpClient (src/http/client.ts) against scripted servers on 127.0.0.1: wire format, auth, errors, retries, proxy, CA.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HttpClient, type HttpClientOptions } from '../../../src/http/client.js';
import { ApiError } from '../../../src/http/errors.js';
import { type Script, startScriptedServer, type ScriptedServer } from './scripted-server.js';
import { rejectionOf } from '../../helpers/rejection.js';

const TOKEN = 'glpat-main-token-123456';
const SCIM_TOKEN = 'scim-token-abcdef';

let server: ScriptedServer;
let waits: number[];
const clients: HttpClient[] = [];

function makeClient(options: Partial<HttpClientOptions> = {}): HttpClient {
  const client = new HttpClient({
    baseUrl: server.url,
    token: TOKEN,
    scimToken: SCIM_TOKEN,
    ...options,
    retry: {
      minDelayMs: 1,
      maxDelayMs: 2,
      sleep: async (ms) => {
        waits.push(ms);
      },
      ...options.retry,
    },
  });
  clients.push(client);
  return client;
}

const failure = (promise: Promise<unknown>) => rejectionOf(promise, ApiError);

beforeEach(async () => {
  server = await startScriptedServer();
  waits = [];
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await server.close();
});

describe('addresses', () => {
  it('puts the API under a base URL path prefix, tolerating a trailing slash', async () => {
    const client = makeClient({ baseUrl: `${server.url}/code/` });
    expect(client.baseUrl).toBe(`${server.url}/code`);
    server.reply({ body: { id: 1 } });
    const res = await client.request({ method: 'GET', path: '/projects/group%2Fsub%2Fapp', idempotent: true });
    expect(res).toMatchObject({ status: 200, data: { id: 1 } });
    expect(server.requests[0].url).toBe('/code/api/v4/projects/group%2Fsub%2Fapp');
  });

  it('reads a base URL that already ends in /api/v4 as the service above it', () => {
    expect(makeClient({ baseUrl: `${server.url}/api/v4/` }).baseUrl).toBe(server.url);
  });

  it('rejects an invalid base URL at construction', () => {
    expect(() => new HttpClient({ baseUrl: 'not a url' })).toThrow("baseUrl 'not a url' is not a valid URL");
    expect(() => new HttpClient({ baseUrl: 'ftp://example.com' })).toThrow('must start with https:// or http://');
    expect(() => new HttpClient({ baseUrl: 'https://example.com/?a=1' })).toThrow(
      'must not carry credentials, a query',
    );
  });

  it('names a bad timeout or connection count', async () => {
    expect(() => new HttpClient({ baseUrl: server.url, timeoutMs: 0 })).toThrow('timeoutMs must be a positive number');
    expect(() => new HttpClient({ baseUrl: server.url, connections: -1 })).toThrow(
      'connections must be a positive number',
    );
    await expect(makeClient().request({ method: 'GET', path: '/x', idempotent: true, timeoutMs: -5 })).rejects.toThrow(
      'timeoutMs must be a positive number, got -5',
    );
    expect(server.requests).toHaveLength(0);
  });

  it('sends array and hash queries in bracket notation', async () => {
    server.reply({ body: [] });
    await makeClient().request({
      method: 'GET',
      path: '/projects/1/issues',
      idempotent: true,
      query: { labels: ['bug', 'to do'], not: { labels: 'x' }, confidential: false, search: undefined },
    });
    expect(server.requests[0].url).toBe(
      '/api/v4/projects/1/issues?labels[]=bug&labels[]=to%20do&not[labels]=x&confidential=false',
    );
  });

  it('refuses paths with dot segments', async () => {
    await expect(makeClient().request({ method: 'GET', path: '/projects/../users', idempotent: true })).rejects.toThrow(
      "must not contain '.' or '..' segments",
    );
    expect(server.requests).toHaveLength(0);
  });
});

describe('authentication', () => {
  it('sends PRIVATE-TOKEN on API paths', async () => {
    server.reply({ body: {} });
    await makeClient().request({ method: 'GET', path: '/user', idempotent: true });
    expect(server.requests[0].headers['private-token']).toBe(TOKEN);
    expect(server.requests[0].headers.authorization).toBeUndefined();
  });

  it("sends a request's own OAuth access token as Authorization: Bearer, never as PRIVATE-TOKEN", async () => {
    server.reply({ body: {} });
    await makeClient().request({
      method: 'GET',
      path: '/user',
      idempotent: true,
      token: 'oauth-access-token',
      tokenScheme: 'bearer',
    });
    expect(server.requests[0].headers.authorization).toBe('Bearer oauth-access-token');
    expect(server.requests[0].headers['private-token']).toBeUndefined();
  });

  it('sends the SCIM bearer token and application/scim+json on SCIM paths', async () => {
    server.reply({ status: 201, body: { id: 'u1' } });
    const res = await makeClient({ baseUrl: `${server.url}/code` }).request({
      method: 'POST',
      path: '/api/scim/v2/groups/acme/Users',
      idempotent: false,
      body: { userName: 'ada' },
    });
    expect(res.status).toBe(201);
    const sent = server.requests[0];
    expect(sent.url).toBe('/code/api/scim/v2/groups/acme/Users');
    expect(sent.headers.authorization).toBe(`Bearer ${SCIM_TOKEN}`);
    expect(sent.headers['private-token']).toBeUndefined();
    expect(sent.headers['content-type']).toBe('application/scim+json');
    expect(JSON.parse(sent.body)).toEqual({ userName: 'ada' });
  });

  it('lets a request override the configured token', async () => {
    server.reply({ body: {} });
    await makeClient().request({ method: 'GET', path: '/user', idempotent: true, token: 'session-token-999' });
    expect(server.requests[0].headers['private-token']).toBe('session-token-999');
  });

  it('sends no auth header without a token', async () => {
    server.reply({ body: [] }, { body: {} });
    const client = makeClient({ token: undefined, scimToken: undefined });
    await client.request({ method: 'GET', path: '/projects', idempotent: true });
    await client.request({ method: 'GET', path: '/api/scim/v2/groups/acme/Users', idempotent: true });
    expect(server.requests.map((r) => r.url)).toEqual(['/api/v4/projects', '/api/scim/v2/groups/acme/Users']);
    for (const sent of server.requests) {
      expect(sent.headers['private-token']).toBeUndefined();
      expect(sent.headers.authorization).toBeUndefined();
    }
  });
});

describe('bodies and responses', () => {
  it('sends JSON by default and forms when asked', async () => {
    server.reply({ status: 201, body: { id: 1 } }, { status: 201, body: { id: 2 } });
    const client = makeClient();
    await client.request({
      method: 'POST',
      path: '/projects/1/issues',
      idempotent: false,
      body: { title: 'Bug', labels: ['a'] },
    });
    await client.request({
      method: 'POST',
      path: '/projects/1/repository/commits',
      idempotent: false,
      bodyType: 'form',
      body: { branch: 'main', actions: [{ action: 'create', file_path: 'a.txt' }] },
    });
    expect(server.requests[0].headers['content-type']).toBe('application/json');
    expect(JSON.parse(server.requests[0].body)).toEqual({ title: 'Bug', labels: ['a'] });
    expect(server.requests[1].headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(server.requests[1].body).toBe('branch=main&actions[][action]=create&actions[][file_path]=a.txt');
  });

  it('sends multipart bodies with their boundary', async () => {
    server.reply({ status: 202, body: { message: '202 Accepted' } });
    const form = new FormData();
    form.append('name', 'Imported');
    form.append('file', new Blob(['archive-bytes']), 'export.tar.gz');
    await makeClient().request({
      method: 'POST',
      path: '/groups/import',
      idempotent: false,
      bodyType: 'multipart',
      body: form,
    });
    expect(server.requests[0].headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(server.requests[0].body).toContain('filename="export.tar.gz"');
    expect(server.requests[0].body).toContain('archive-bytes');
  });

  it('refuses a body on GET without sending anything', async () => {
    await expect(makeClient().request({ method: 'GET', path: '/x', idempotent: true, body: { a: 1 } })).rejects.toThrow(
      'a GET request cannot carry a body',
    );
    expect(server.requests).toHaveLength(0);
  });

  it('returns HEAD headers, lower-cased, with data null', async () => {
    server.reply({ headers: { 'X-Svc-Blob-Id': 'abc123', 'X-Svc-Size': '42' } });
    const res = await makeClient().request({
      method: 'HEAD',
      path: '/projects/1/repository/files/a.txt',
      idempotent: true,
    });
    expect(res.data).toBeNull();
    expect(res.headers['x-svc-blob-id']).toBe('abc123');
    expect(res.headers['x-svc-size']).toBe('42');
  });

  it('reads bytes, text, none, empty JSON and non-JSON success bodies', async () => {
    const bytes = Buffer.from([0x1f, 0x8b, 0x00, 0xff, 0x10]);
    server.reply(
      { headers: { 'content-type': 'application/gzip' }, body: bytes },
      { body: 'line 1\nline 2' },
      { body: 'ignored' },
      { status: 204 },
      { body: 'plain, not JSON' },
    );
    const client = makeClient();
    const get = (responseType: 'bytes' | 'text' | 'none' | 'json') =>
      client.request({ method: 'GET', path: '/x', idempotent: true, responseType });
    const raw = await get('bytes');
    expect(Buffer.isBuffer(raw.data)).toBe(true);
    expect((raw.data as Buffer).equals(bytes)).toBe(true);
    expect((await get('text')).data).toBe('line 1\nline 2');
    expect((await get('none')).data).toBeNull();
    const empty = await get('json');
    expect(empty).toMatchObject({ status: 204, data: null });
    expect((await get('json')).data).toBe('plain, not JSON');
  });
});

describe('errors', () => {
  it('turns a status >= 400 into an ApiError with the service words', async () => {
    server.reply(
      { status: 404, body: { message: '404 Project Not Found' } },
      { status: 400, body: { message: { title: ["can't be blank"] } } },
      { status: 400, body: { message: 'Sorry, we cannot revert this commit automatically.', error_code: 'empty' } },
    );
    const client = makeClient();
    const notFound = await failure(client.request({ method: 'GET', path: '/projects/9?x=1', idempotent: true }));
    expect(notFound).toMatchObject({
      message: '404 Project Not Found',
      status: 404,
      kind: 'http',
      method: 'GET',
      path: '/api/v4/projects/9',
    });
    const invalid = await failure(
      client.request({ method: 'POST', path: '/projects/1/issues', idempotent: false, body: {} }),
    );
    expect(invalid.message).toBe("400 title can't be blank");
    expect(invalid.fieldErrors).toEqual({ title: ["can't be blank"] });
    const revert = await failure(
      client.request({
        method: 'POST',
        path: '/projects/1/repository/commits/abc/revert',
        idempotent: false,
        body: { branch: 'main' },
      }),
    );
    expect(revert.errorCode).toBe('empty');
  });

  it('never shows a token, even when the server echoes it back', async () => {
    server.reply(
      (req) => ({ status: 401, body: { message: `401 token ${String(req.headers['private-token'])} is unknown` } }),
      (req) => ({ status: 403, body: `no access for ${String(req.headers.authorization)}` }),
    );
    const client = makeClient();
    const apiError = await failure(client.request({ method: 'GET', path: '/user', idempotent: true }));
    const scimError = await failure(
      client.request({ method: 'GET', path: '/api/scim/v2/groups/a/Users', idempotent: true }),
    );
    expect(server.requests[0].headers['private-token']).toBe(TOKEN);
    expect(apiError.message).toBe('401 token [redacted] is unknown');
    expect(scimError.message).toBe('403 no access for Bearer [redacted]');
    for (const error of [apiError, scimError]) {
      const shown = `${error.message} ${error.stack} ${JSON.stringify(error)}`;
      expect(shown).not.toContain(TOKEN);
      expect(shown).not.toContain(SCIM_TOKEN);
    }
  });

  it('reports a refused connection as a network error naming the service', async () => {
    const closed = await startScriptedServer();
    await closed.close();
    const client = makeClient({ baseUrl: closed.url, retry: { maxRetries: 0 } });
    const error = await failure(client.request({ method: 'GET', path: '/projects', idempotent: true }));
    expect(error).toMatchObject({ kind: 'network', status: 0, code: 'ECONNREFUSED' });
    expect(error.message).toBe(
      `network error: connect ECONNREFUSED 127.0.0.1:${closed.port} (service at ${closed.url})`,
    );
  });

  it('times out with kind timeout, naming the service', async () => {
    server.reply({ hang: true });
    const client = makeClient({ timeoutMs: 50, retry: { maxRetries: 0 } });
    const error = await failure(client.request({ method: 'GET', path: '/slow', idempotent: true }));
    expect(error).toMatchObject({
      kind: 'timeout',
      status: 0,
      message: `timeout: no answer from the service at ${server.url} within 50 ms`,
    });
  });

  it("ends an attempt at the call's deadline and starts no retry past it", async () => {
    server.reply({ hang: true }, { hang: true });
    const client = makeClient({ timeoutMs: 10_000, retry: { maxRetries: 3, minDelayMs: 1, maxDelayMs: 1 } });
    const before = server.requests.length;
    const events: string[] = [];
    const error = await failure(
      client.request({
        method: 'GET',
        path: '/slow',
        idempotent: true,
        deadline: Date.now() + 150,
        onProgress: (e) => events.push(e.kind),
      }),
    );
    expect(error).toMatchObject({
      kind: 'timeout',
      code: 'DEADLINE',
      message: `timeout: no answer from the service at ${server.url} before the call's deadline`,
    });
    // The one attempt used the whole deadline: a retry could not have started before it.
    expect(server.requests.length - before).toBe(1);
    expect(events).toEqual([]);
  });

  it('tells onProgress of each retry it waits for', async () => {
    server.reply({ status: 503 }, { status: 200, body: [] });
    const client = makeClient({ retry: { maxRetries: 3, minDelayMs: 1, maxDelayMs: 1 } });
    const events: unknown[] = [];
    await client.request({ method: 'GET', path: '/flaky', idempotent: true, onProgress: (e) => events.push(e) });
    expect(events).toEqual([
      { kind: 'retry', retry: 1, waitMs: expect.any(Number), reason: '503 Service Unavailable' },
    ]);
  });

  it('stops with kind aborted when the caller cancels', async () => {
    server.reply({ hang: true });
    const controller = new AbortController();
    const pending = makeClient().request({ method: 'GET', path: '/slow', idempotent: true, signal: controller.signal });
    for (let i = 0; i < 200 && server.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    const error = await failure(pending);
    expect(error.kind).toBe('aborted');
    expect(server.requests).toHaveLength(1);
  });
});

describe('retries', () => {
  it('retries a GET on 503, then succeeds', async () => {
    server.reply({ status: 503, body: { message: 'down' } }, { body: [{ id: 1 }] });
    const res = await makeClient().request({ method: 'GET', path: '/projects', idempotent: true });
    expect(res.data).toEqual([{ id: 1 }]);
    expect(server.requests).toHaveLength(2);
    expect(waits).toHaveLength(1);
  });

  it('waits Retry-After on a 429 before retrying', async () => {
    server.reply({ status: 429, headers: { 'retry-after': '2' }, body: 'Retry later' }, { body: { ok: true } });
    const res = await makeClient().request({ method: 'GET', path: '/projects', idempotent: true });
    expect(res.data).toEqual({ ok: true });
    expect(waits).toEqual([2000]);
    expect(server.requests).toHaveLength(2);
  });

  it('gives up at once when Retry-After is beyond the cap, saying how long to wait', async () => {
    server.reply({ status: 429, headers: { 'retry-after': '3600' }, body: 'Retry later' });
    const error = await failure(makeClient().request({ method: 'GET', path: '/projects', idempotent: true }));
    expect(error).toMatchObject({ status: 429, retryAfterSeconds: 3600, message: '429 Retry later' });
    expect(server.requests).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('gives up after maxRetries with the last error', async () => {
    server.reply(...[1, 2, 3, 4, 5].map((n) => ({ status: 503, body: { message: `down ${n}` } })));
    const error = await failure(makeClient().request({ method: 'GET', path: '/projects', idempotent: true }));
    expect(error.message).toBe('503 down 4');
    expect(server.requests).toHaveLength(4);
    expect(waits).toHaveLength(3);
  });

  it('gives up when the next wait would end past the time budget', async () => {
    server.reply(...[1, 2, 3, 4].map((n) => ({ status: 503, body: { message: `down ${n}` } })));
    // A clock that moves 100 ms per reading: one retry fits in the 150 ms budget, a second would not.
    let clock = 0;
    const client = makeClient({ retry: { budgetMs: 150, now: () => (clock += 100) } });
    const error = await failure(client.request({ method: 'GET', path: '/projects', idempotent: true }));
    expect(error.message).toBe('503 down 2');
    expect(server.requests).toHaveLength(2);
    expect(waits).toHaveLength(1);
  });

  it('retries a GET after a connection reset', async () => {
    server.reply({ destroy: true }, { body: { ok: true } });
    const res = await makeClient().request({ method: 'GET', path: '/projects', idempotent: true });
    expect(res.data).toEqual({ ok: true });
    expect(server.requests).toHaveLength(2);
  });

  /** A POST that creates a release, refused (its only attempt) with the error it ended with. */
  const postRelease = () =>
    failure(
      makeClient().request({
        method: 'POST',
        path: '/projects/1/releases',
        idempotent: false,
        body: { tag_name: 'v1' },
      }),
    );

  it.each<[what: string, reply: Script, ended: Record<string, unknown>]>([
    [
      'a 502',
      { status: 502, body: '<html><head><title>502 Bad Gateway</title></head></html>' },
      { message: '502 Bad Gateway' },
    ],
    ['a connection reset', { destroy: true }, { kind: 'network' }],
  ])('does not retry a POST after %s', async (_what, reply, ended) => {
    server.reply(reply, { status: 201, body: {} });
    expect(await postRelease()).toMatchObject(ended);
    expect(server.requests).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('does not retry a POST after a timeout', async () => {
    server.reply({ hang: true }, { status: 201, body: {} });
    const client = makeClient({ timeoutMs: 50 });
    const error = await failure(
      client.request({ method: 'POST', path: '/projects/1/releases', idempotent: false, body: {} }),
    );
    expect(error.kind).toBe('timeout');
    expect(server.requests).toHaveLength(1);
  });

  it('retries a POST whose connection was refused: it never reached the service', async () => {
    const closed = await startScriptedServer();
    await closed.close();
    let revived: ScriptedServer | undefined;
    const client = makeClient({
      baseUrl: closed.url,
      retry: {
        sleep: async (ms) => {
          waits.push(ms);
          revived ??= await startScriptedServer(closed.port);
          revived.reply({ status: 201, body: { id: 5 } });
        },
      },
    });
    try {
      const res = await client.request({
        method: 'POST',
        path: '/projects/1/releases',
        idempotent: false,
        body: { tag_name: 'v1' },
      });
      expect(res).toMatchObject({ status: 201, data: { id: 5 } });
      expect(waits).toHaveLength(1);
      expect(revived?.requests).toHaveLength(1);
    } finally {
      await revived?.close();
    }
  });
});

describe('next-page URLs', () => {
  it('follows a URL inside the configured API, keeping the token', async () => {
    server.reply({ body: [] });
    const client = makeClient({ baseUrl: `${server.url}/code` });
    await client.request({
      method: 'GET',
      path: '/projects',
      idempotent: true,
      url: `${server.url}/code/api/v4/projects?id_after=5&pagination=keyset`,
    });
    expect(server.requests[0].url).toBe('/code/api/v4/projects?id_after=5&pagination=keyset');
    expect(server.requests[0].headers['private-token']).toBe(TOKEN);
  });

  it('refuses a URL on another origin or outside the API without sending anything', async () => {
    const client = makeClient({ baseUrl: `${server.url}/code` });
    const elsewhere = [
      `http://evil.example/code/api/v4/projects?id_after=5`,
      `http://localhost:${server.port}/code/api/v4/projects`,
      `${server.url}/other/api/v4/projects`,
      `${server.url}/code/api/v4-evil/projects`,
      `http://user:pw@127.0.0.1:${server.port}/code/api/v4/projects`,
    ];
    for (const url of elsewhere) {
      const error = await failure(client.request({ method: 'GET', path: '/projects', idempotent: true, url }));
      expect(error.kind).toBe('refused');
      expect(error.message).toContain('will not send the request');
    }
    expect(server.requests).toHaveLength(0);
  });
});

describe('proxy and CA', () => {
  const PROXY_VARS = ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy'];

  /** Builds a client with exactly these proxy variables set, and restores the environment at once. */
  function clientWithEnv(env: Record<string, string>, options: Partial<HttpClientOptions> = {}): HttpClient {
    const saved = Object.fromEntries(PROXY_VARS.map((name) => [name, process.env[name]]));
    try {
      for (const name of PROXY_VARS) delete process.env[name];
      Object.assign(process.env, env);
      return makeClient(options);
    } finally {
      for (const name of PROXY_VARS) {
        if (saved[name] === undefined) delete process.env[name];
        else process.env[name] = saved[name];
      }
    }
  }

  let proxy: ScriptedServer;
  beforeEach(async () => {
    proxy = await startScriptedServer();
  });
  afterEach(async () => {
    await proxy.close();
  });

  it('sends plain-http requests through HTTP_PROXY with an absolute URI', async () => {
    proxy.reply({ body: [{ id: 1 }] });
    const client = clientWithEnv({ HTTP_PROXY: proxy.url });
    const res = await client.request({ method: 'GET', path: '/projects', idempotent: true, query: { simple: true } });
    expect(res.data).toEqual([{ id: 1 }]);
    expect(proxy.requests).toHaveLength(1);
    expect(proxy.requests[0].url).toBe(`${server.url}/api/v4/projects?simple=true`);
    expect(proxy.requests[0].headers['private-token']).toBe(TOKEN);
    expect(server.requests).toHaveLength(0);
  });

  it('tunnels https requests through HTTPS_PROXY (lower case too)', async () => {
    for (const name of ['HTTPS_PROXY', 'https_proxy']) {
      const client = clientWithEnv({ [name]: proxy.url }, { baseUrl: 'https://127.0.0.1:9', retry: { maxRetries: 0 } });
      const error = await failure(client.request({ method: 'GET', path: '/projects', idempotent: true }));
      expect(error.kind).toBe('network');
    }
    expect(proxy.connects).toEqual(['127.0.0.1:9', '127.0.0.1:9']);
  });

  it('goes direct for hosts in NO_PROXY', async () => {
    server.reply({ body: [] });
    const client = clientWithEnv({ HTTP_PROXY: proxy.url, NO_PROXY: 'localhost,127.0.0.1' });
    await client.request({ method: 'GET', path: '/projects', idempotent: true });
    expect(server.requests).toHaveLength(1);
    expect(proxy.requests).toHaveLength(0);
  });

  it('names a CA file it cannot read or that holds no certificate', (ctx) => {
    const dir = mkdtempSync(join(tmpdir(), 'forgeops-ca-'));
    ctx.onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const missing = join(dir, 'missing.pem');
    expect(() => makeClient({ caFile: missing })).toThrow(`caFile '${missing}' cannot be read: no such file`);
    const notPem = join(dir, 'not.pem');
    writeFileSync(notPem, 'hello');
    expect(() => makeClient({ caFile: notPem })).toThrow(`caFile '${notPem}' holds no PEM certificate`);
  });

  // Only that a readable PEM file is accepted and plain http still works; trusting it over TLS is private-ca.test.ts.
  it('accepts a PEM CA file and still reaches a plain-http service', async (ctx) => {
    const dir = mkdtempSync(join(tmpdir(), 'forgeops-ca-'));
    ctx.onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const pem = join(dir, 'ca.pem');
    writeFileSync(pem, rootCertificates[0]);
    server.reply({ body: { ok: true } });
    const res = await makeClient({ caFile: pem }).request({ method: 'GET', path: '/version', idempotent: true });
    expect(res.data).toEqual({ ok: true });
  });
});
