// A service that answers every read with extra fields holding credentials, named every way services spell them (apiKey,
// APIKEY, Authorization, Set-Cookie, session_id…), at the top, in nested objects and in every list item: no value of
// theirs reaches a tool result of any read operation, in its text or its structured content.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../../src/http/client.js';
import { operations } from '../../src/operations/index.js';
import { connectInMemory, useSandbox } from '../helpers/mcp.js';
import { sampleInput } from '../helpers/sample-input.js';

const env = useSandbox();

/** The names a credential goes by; each gets a value of its own, so a leak says which name let it through. */
const CREDENTIAL_NAMES = [
  'apiKey',
  'APIKEY',
  'api-key',
  'Authorization',
  'authorization',
  'x_auth_token',
  'Set-Cookie',
  'session_id',
  'clientSecret',
  'PASSWORD',
  'private_key',
  'credentials',
];
const secretOf = (name: string) => `leaked-${name.replace(/[^A-Za-z]/g, '')}-7f3a9c`;

/** The fields added to every object of an answer: each credential, and one object holding them all again. */
function credentialFields(): Record<string, unknown> {
  const fields = Object.fromEntries(CREDENTIAL_NAMES.map((name) => [name, secretOf(name)]));
  return { ...fields, settings: { ...fields, list: [fields] } };
}

function rewrite(value: unknown, depth = 0): unknown {
  if (Array.isArray(value)) return value.map((item) => rewrite(item, depth + 1));
  if (value && typeof value === 'object' && depth < 3) return { ...(value as object), ...credentialFields() };
  return value;
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A loopback proxy in front of the sandbox that adds the credential fields to every JSON answer. */
async function startRewritingService(target: string): Promise<{ url: string; server: Server }> {
  const server = createServer(async (req, res) => {
    const body = await bodyOf(req);
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([name]) => !['host', 'connection', 'content-length'].includes(name)),
    ) as Record<string, string>;
    const answer = await fetch(`${target}${req.url}`, {
      method: req.method,
      headers,
      body: ['GET', 'HEAD'].includes(req.method ?? 'GET') ? undefined : body,
    });
    const type = answer.headers.get('content-type') ?? '';
    const out = new Map<string, string>();
    answer.headers.forEach((value, name) => {
      if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(name))
        out.set(name, value);
    });
    const raw = Buffer.from(await answer.arrayBuffer());
    const rewritten =
      type.includes('json') && raw.length > 0
        ? Buffer.from(JSON.stringify(rewrite(JSON.parse(raw.toString('utf8')))))
        : raw;
    res.writeHead(answer.status, Object.fromEntries(out));
    res.end(rewritten);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

let service: { url: string; server: Server };
let client: HttpClient;
beforeAll(async () => {
  service = await startRewritingService(env.sandbox.url);
  client = new HttpClient({ baseUrl: service.url, token: env.sandbox.tokens.admin, retry: { maxRetries: 0 } });
});
afterAll(async () => {
  await client?.close();
  await new Promise((resolve) => service?.server.close(resolve));
});

describe('credentials by name, from a service that adds them to every answer', () => {
  it('the rewriting service does add them (else the test below proves nothing)', async () => {
    const raw = await client.request<Record<string, unknown>>({
      method: 'GET',
      path: '/projects/acme%2Fweb',
      idempotent: true,
    });
    expect(raw.data.apiKey).toBe(secretOf('apiKey'));
    expect((raw.data.settings as Record<string, unknown>).Authorization).toBe(secretOf('Authorization'));
  });

  it('keeps every one out of the result of every read operation', async () => {
    const mcp = await connectInMemory({ client, token: env.sandbox.tokens.admin });
    const reads = operations.filter((op) => op.effect === 'read');
    expect(reads.length).toBeGreaterThan(50);
    const leaks: string[] = [];
    let answered = 0;
    for (const op of reads) {
      const input = sampleInput(op);
      if (!input) continue;
      const result = await mcp.client.callTool({ name: op.name, arguments: input });
      if (!result.isError) answered++;
      const shown = JSON.stringify({ content: result.content, structuredContent: result.structuredContent });
      const leaked = CREDENTIAL_NAMES.filter((name) => shown.includes(secretOf(name)));
      if (leaked.length > 0) leaks.push(`${op.name}: ${leaked.join(', ')}`);
    }
    // Most reads answer with data, so most of them met the added fields.
    expect(answered).toBeGreaterThan(reads.length / 2);
    expect(leaks).toEqual([]);
    await mcp.close();
  });
});
