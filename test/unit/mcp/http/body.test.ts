// The body reader alone: the message cap (declared or streamed), the budget all bodies share, a client that goes
// away mid-body, and JSON that does not parse.
import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { bodyReader } from '../../../../src/mcp/http/body.js';
import { LIMIT_ERROR_CODE } from '../../../../src/mcp/limits.js';

/** A request body the test feeds chunk by chunk. */
function body(headers: Record<string, string> = {}) {
  const stream = new PassThrough();
  return { req: Object.assign(stream, { headers }) as unknown as IncomingMessage, stream };
}

describe('bodyReader', () => {
  it('reads a body within the cap, and gives the bytes held back to the budget', async () => {
    const reader = bodyReader(10);
    const { req, stream } = body();
    const read = reader.readBody(req);
    stream.write(Buffer.from('hello'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(reader.pendingBytes()).toBe(5);
    stream.end(Buffer.from('!'));
    expect((await read).toString()).toBe('hello!');
    expect(reader.pendingBytes()).toBe(0);
  });

  it('refuses with 413 at once a body that declares more than the cap, naming its size', async () => {
    const { req } = body({ 'content-length': '11' });
    const refused = bodyReader(10).readBody(req);
    await expect(refused).rejects.toMatchObject({ status: 413, code: LIMIT_ERROR_CODE, kind: 'too large' });
    await expect(refused).rejects.toThrow(/11/);
  });

  it('refuses with 413 a body that grows past the cap without saying its size, and stops reading it', async () => {
    const reader = bodyReader(10);
    const { req, stream } = body();
    const read = reader.readBody(req);
    stream.write(Buffer.from('123456'));
    stream.write(Buffer.from('789012'));
    await expect(read).rejects.toMatchObject({ status: 413 });
    expect(stream.isPaused()).toBe(true);
    expect(reader.pendingBytes()).toBe(0);
  });

  it('refuses with 503 and Retry-After a body that would overfill the budget all requests share', async () => {
    const reader = bodyReader(10, 15);
    const first = body();
    const second = body();
    const firstRead = reader.readBody(first.req);
    const secondRead = reader.readBody(second.req);
    first.stream.write(Buffer.from('1234567890'));
    await new Promise((resolve) => setImmediate(resolve));
    second.stream.write(Buffer.from('123456'));
    await expect(secondRead).rejects.toMatchObject({ status: 503, kind: 'busy', headers: { 'retry-after': '1' } });
    first.stream.end();
    expect((await firstRead).length).toBe(10);
    // Once the first is read, the same body fits.
    const third = body();
    const thirdRead = reader.readBody(third.req);
    third.stream.end(Buffer.from('123456'));
    expect((await thirdRead).length).toBe(6);
  });

  it('answers 400 when the client goes away before the body ends', async () => {
    const reader = bodyReader(10);
    const { req, stream } = body();
    const read = reader.readBody(req);
    stream.write(Buffer.from('12'));
    stream.destroy();
    await expect(read).rejects.toMatchObject({ status: 400, kind: 'aborted' });
    expect(reader.pendingBytes()).toBe(0);
  });

  it('parses JSON, gives undefined for an empty body, and answers a parse error with -32700', async () => {
    const reader = bodyReader(100);
    const good = body();
    good.stream.end('{"jsonrpc":"2.0"}');
    expect(await reader.readJson(good.req)).toEqual({ jsonrpc: '2.0' });
    const empty = body();
    empty.stream.end();
    expect(await reader.readJson(empty.req)).toBeUndefined();
    const bad = body();
    bad.stream.end('{not json');
    await expect(reader.readJson(bad.req)).rejects.toMatchObject({ status: 400, code: -32700, kind: 'parse error' });
  });
});
