// What tools/list costs an assistant, read through the SDK client: its budgets, in tokens per tool and for the
// default set, as tests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../../../src/http/client.js';
import { connectInMemory } from '../../helpers/mcp.js';

/** Bytes of a tools/list answer as a client receives it, every page read. */
async function listedBytes(toolsets: string[]): Promise<{ tools: number; bytes: number }> {
  const mcp = await connectInMemory({ client, toolsets });
  try {
    const tools: unknown[] = [];
    let cursor: string | undefined;
    // Bounded: the registry has far fewer than 100 pages of tools.
    for (let page = 0; page < 100; page++) {
      const answer = await mcp.client.listTools(cursor ? { cursor } : undefined);
      tools.push(...answer.tools);
      cursor = answer.nextCursor;
      if (!cursor) break;
    }
    return { tools: tools.length, bytes: Buffer.byteLength(JSON.stringify({ tools })) };
  } finally {
    await mcp.close();
  }
}

// Nothing is called: a client on a closed port is enough to list tools.
let client: HttpClient;
beforeAll(() => {
  client = new HttpClient({ baseUrl: 'http://127.0.0.1:9', token: 'unused', retry: { maxRetries: 0 } });
});
afterAll(async () => {
  await client.close();
});

// About 4 bytes make a token. The budgets leave room for a few more tools and fields, not for long texts.
const BYTES_PER_TOKEN = 4;

describe('tools/list budget', () => {
  it('averages well under 200 tokens a tool with every toolset on', async () => {
    const { tools, bytes } = await listedBytes(['all']);
    expect(tools).toBeGreaterThan(100);
    expect(bytes / tools / BYTES_PER_TOKEN).toBeLessThanOrEqual(180);
  });

  it('keeps the default toolset under 6,500 tokens, under 200 a tool', async () => {
    const { tools, bytes } = await listedBytes([]);
    expect(tools).toBeGreaterThan(20);
    // The default set sits close to this budget: a tool added to it has to make room, not stretch the budget.
    expect(bytes / BYTES_PER_TOKEN).toBeLessThanOrEqual(6_500);
    expect(bytes / tools / BYTES_PER_TOKEN).toBeLessThan(200);
  });
});
