// One message size limit on both transports: an oversized message gets an error naming it, and the server keeps answering.
import { tmpdir } from 'node:os';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { parseConfig } from '../../src/config.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../../src/defaults.js';
import { LimitedStdioTransport, recoverId } from '../../src/mcp/stdio.js';
import { useSandbox } from '../helpers/mcp.js';
import { connectClient, rawRequest, rawSessionPost, startHttp } from './mcp-harness.js';

const env = useSandbox();
const SMALL = 64 * 1024;

function toolCall(id: number, content: string) {
  return { id, method: 'tools/call', params: { name: 'get_current_user', arguments: { padding: content } } };
}

describe('the limit', () => {
  it('is one setting, FORGEOPS_MAX_MESSAGE_BYTES, 16 MiB by default', () => {
    expect(DEFAULT_MAX_MESSAGE_BYTES).toBe(16 * 1024 * 1024);
    expect(parseConfig({}).maxMessageBytes).toBe(DEFAULT_MAX_MESSAGE_BYTES);
    expect(parseConfig({ FORGEOPS_MAX_MESSAGE_BYTES: '1048576' }).maxMessageBytes).toBe(1_048_576);
    expect(() => parseConfig({ FORGEOPS_MAX_MESSAGE_BYTES: '0' })).toThrow(/FORGEOPS_MAX_MESSAGE_BYTES/);
  });
});

describe('over Streamable HTTP', () => {
  it('answers an oversized body with 413 naming the limit, and the same session keeps working', async () => {
    const server = await startHttp(env.client, { maxMessageBytes: SMALL });
    const { mcp, transport } = await connectClient(server.url);
    const id = transport.sessionId!;

    // Declared too large: refused before a byte of it is read.
    const declared = await rawSessionPost(server.url, id, toolCall(2, 'x'.repeat(SMALL)));
    expect(declared.status).toBe(413);
    const error = (JSON.parse(declared.body) as { error: { message: string } }).error.message;
    expect(error).toContain('the limit is 65536 bytes');
    expect(error).toContain('FORGEOPS_MAX_MESSAGE_BYTES');
    expect(error).not.toMatch(/parse/i);

    // Streamed without a length and never ended: only a server that stops reading at the limit can answer.
    const streamed = await rawRequest(
      server.url,
      'POST',
      {
        'content-type': 'application/json',
        'transfer-encoding': 'chunked',
        'mcp-session-id': id,
        'mcp-protocol-version': '2025-06-18',
      },
      JSON.stringify({ jsonrpc: '2.0', ...toolCall(3, 'y'.repeat(4 * SMALL)) }),
      true,
    );
    expect(streamed.status).toBe(413);
    expect(streamed.body).toContain('FORGEOPS_MAX_MESSAGE_BYTES');

    // The SDK's client sees the refusal as an error of that call.
    await expect(mcp.callTool({ name: 'get_current_user', arguments: { padding: 'z'.repeat(SMALL) } })).rejects.toThrow(
      /413|FORGEOPS_MAX_MESSAGE_BYTES/,
    );

    const me = await mcp.callTool({ name: 'get_current_user', arguments: {} });
    expect(me.isError).toBeFalsy();
    expect(server.sessionCount()).toBe(1);
    await mcp.close();
    await server.close();
  });

  it('uses the same 16 MiB default as stdio', async () => {
    const server = await startHttp(env.client);
    const { mcp, transport } = await connectClient(server.url);
    const over = await rawSessionPost(
      server.url,
      transport.sessionId!,
      toolCall(2, 'x'.repeat(DEFAULT_MAX_MESSAGE_BYTES)),
    );
    expect(over.status).toBe(413);
    expect(over.body).toContain(`${DEFAULT_MAX_MESSAGE_BYTES} bytes, FORGEOPS_MAX_MESSAGE_BYTES`);
    expect((await mcp.callTool({ name: 'get_current_user', arguments: {} })).isError).toBeFalsy();
    await mcp.close();
    await server.close();
  });
});

/** Our stdio transport on in-memory streams: what it hands on and what it writes back. */
function stdioPair(maxMessageBytes: number) {
  const input = new PassThrough();
  const output = new PassThrough();
  const transport = new LimitedStdioTransport({ input, output, maxMessageBytes });
  const received: unknown[] = [];
  const written: string[] = [];
  transport.onmessage = (message) => received.push(message);
  let pending = '';
  output.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    const lines = pending.split('\n');
    pending = lines.pop()!;
    written.push(...lines);
  });
  return { input, transport, received, written };
}

describe('the stdio transport', () => {
  it('refuses an oversized line with an error for its id, whichever end the id is at, and reads the next lines', async () => {
    const { input, transport, received, written } = stdioPair(1024);
    await transport.start();
    const big = 'x'.repeat(5000);
    // The SDK's client puts the id last; others put it first. Here the big line also comes in small pieces.
    const idLast = `{"method":"tools/call","params":{"name":"create_file","arguments":{"id":"acme/web","content":"${big}"}},"jsonrpc":"2.0","id":41}\n`;
    for (let at = 0; at < idLast.length; at += 700) input.write(idLast.slice(at, at + 700));
    input.write(
      `{"jsonrpc":"2.0","id":"req-42","method":"tools/call","params":{"arguments":{"id":7,"content":"${big}"}}}\n`,
    );
    // A notification has no id to answer: the error goes out without one (the client still sees why).
    input.write(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"${big}"}}\n`);
    input.write('{"jsonrpc":"2.0","id":43,"method":"ping"}\n');
    await new Promise((r) => setImmediate(r));
    const answers = written.map(
      (line) => JSON.parse(line) as { id?: unknown; error: { code: number; message: string } },
    );
    expect(answers.map((a) => a.id)).toEqual([41, 'req-42', undefined]);
    for (const a of answers)
      expect(a.error.message).toMatch(/limit is 1024 bytes \(1024 bytes, FORGEOPS_MAX_MESSAGE_BYTES\)/);
    expect(received).toEqual([{ jsonrpc: '2.0', id: 43, method: 'ping' }]);
    await transport.close();
  });

  it('takes the id of a request only, never one from inside the arguments or of a response', () => {
    expect(recoverId('{"method":"tools/call","params":{"arguments":{"id":5', 'xxxx"}}}')).toBeUndefined();
    expect(recoverId('{"jsonrpc":"2.0","method":"notifications/x","params":{"id":5', '"}}')).toBeUndefined();
    expect(recoverId('{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"arguments":{"id":5', '"}}}')).toBe(9);
    expect(recoverId('{"method":"x"', '"jsonrpc":"2.0","id":"a\\"b"}\n'.trim())).toBe('a"b');
    // The SDK's client answers our elicitation as {result, jsonrpc, id}: an error for that id would hit its own request 3.
    expect(
      recoverId('{"result":{"action":"accept","content":{"text":"', 'xx"}},"jsonrpc":"2.0","id":3}'),
    ).toBeUndefined();
  });
});

const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

describe('forgeops mcp (stdio, built CLI)', () => {
  it('answers a message over the limit with an error naming it, logs it, and keeps answering', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cli, 'mcp'],
      cwd: '/',
      stderr: 'pipe',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', TMPDIR: tmpdir() },
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const mcp = new Client({ name: 'stdio-size-test', version: '1.0.0' });
    await mcp.connect(transport);

    // 11 MiB: past the 10 MiB at which the SDK's own stdio reader closed for good; read and answered (a bad argument).
    const past = await mcp.callTool({ name: 'get_current_user', arguments: { padding: 'x'.repeat(11 * 1024 * 1024) } });
    expect(past.isError).toBe(true);
    // Over the 16 MiB limit: refused with the limit's name, as an error of that very call.
    await expect(
      mcp.callTool({ name: 'get_current_user', arguments: { padding: 'y'.repeat(DEFAULT_MAX_MESSAGE_BYTES) } }),
    ).rejects.toThrow(/Message too large: the limit is 16 MiB \(16777216 bytes, FORGEOPS_MAX_MESSAGE_BYTES\)/);
    const me = await mcp.callTool({ name: 'get_current_user', arguments: {} });
    expect(me.isError).toBeFalsy();
    expect((me.structuredContent as { username: string }).username).toMatch(/\w+/);
    expect(stderr).toMatch(/mcp stdio: refused a message \(id \d+\): Message too large.*FORGEOPS_MAX_MESSAGE_BYTES/);
    await mcp.close();
  });
});
