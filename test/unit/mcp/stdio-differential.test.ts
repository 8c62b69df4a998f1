// `forgeops mcp` reads stdio with its own transport (a per-message byte cap the SDK's lacks): fed the same bytes, it
// must answer exactly as the SDK's StdioServerTransport does in front of the same server, over every shape in
// test/helpers/stdio-shapes.ts.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { createMcpServer } from '../../../src/mcp/server.js';
import { LimitedStdioTransport } from '../../../src/mcp/stdio.js';
import { testServerOptions } from '../../helpers/mcp.js';
import { feedShape, SHAPES, type Shape } from '../../helpers/stdio-shapes.js';

const NO_SERVICE = { request: async () => Promise.reject(new Error('no service in this test')) };

/** Feeds `shape` to a server behind `transport` and gives back every message written, parsed, in order. */
async function answersTo(
  shape: Shape,
  makeTransport: (input: PassThrough, output: PassThrough) => Transport,
): Promise<unknown[]> {
  const input = new PassThrough();
  const output = new PassThrough();
  const server = createMcpServer({ ...testServerOptions(NO_SERVICE) });
  await server.connect(makeTransport(input, output));
  // Nothing can follow a closed input: what was read gets a bounded while to be answered.
  const written = await feedShape(shape, input, output, () => new Promise((resolve) => setTimeout(resolve, 100)));
  await server.close();
  return written;
}

describe('the stdio transport answers as the SDK’s does', () => {
  it.each(Object.entries(SHAPES))('%s', async (_, shape) => {
    const ours = await answersTo(shape, (input, output) => new LimitedStdioTransport({ input, output }));
    const sdks = await answersTo(shape, (input, output) => new StdioServerTransport(input, output));
    expect(ours).toEqual(sdks);
  });

  it.each([
    ['a plain start', [0, 1]],
    ['initialize with an extra member, then id 1', [1]],
    ['a reused id', [0, 0, 0]],
  ])('answers %s with ids %j, so the comparison is not of two silences', async (name, ids) => {
    const answers = await answersTo(SHAPES[name], (input, output) => new LimitedStdioTransport({ input, output }));
    expect(answers.map((answer) => (answer as { id?: unknown }).id)).toEqual(ids);
  });
});
