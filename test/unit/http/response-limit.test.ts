// The response size cap: an answer larger than maxResponseBytes is refused, whether announced or streamed.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../../../src/http/client.js';
import { ApiError } from '../../../src/http/errors.js';

let server: Server;
let baseUrl: string;
const body = Buffer.alloc(4096, 7);

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url?.endsWith('/announced')) {
      res
        .writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(body.length) })
        .end(body);
    } else {
      // Chunked: no content-length, so only counting while reading can catch it.
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.write(body.subarray(0, 2048));
      res.end(body.subarray(2048));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('maxResponseBytes', () => {
  it.each(['announced', 'streamed'])('refuses a %s body over the cap with kind too_large', async (how) => {
    const client = new HttpClient({ baseUrl, maxResponseBytes: 1000, retry: { maxRetries: 0 } });
    const error = await client
      .request({ method: 'GET', path: `/${how}`, idempotent: true, responseType: 'bytes' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).kind).toBe('too_large');
    expect((error as ApiError).message).toMatch(/larger than 1000 bytes/);
    await client.close();
  });

  it.each(['announced', 'streamed'])('reads a %s body within the cap whole', async (how) => {
    const client = new HttpClient({ baseUrl, maxResponseBytes: body.length, retry: { maxRetries: 0 } });
    const res = await client.request<Buffer>({
      method: 'GET',
      path: `/${how}`,
      idempotent: true,
      responseType: 'bytes',
    });
    expect(res.data.equals(body)).toBe(true);
    await client.close();
  });
});
