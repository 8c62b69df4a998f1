// The hidden-character audit over MCP: the elicitation question for a call whose keys and values carry every hidden
// code point spells each one out (the other front ends are in hidden-characters.test.ts; a file of its own so the two
// CPU-bound walks over every code point run in separate workers).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchGroups, check, op, settingsFor } from '../helpers/hidden-characters.js';
import { connectInMemory, useSandbox } from '../helpers/mcp.js';

const env = useSandbox();

describe('hidden characters in what a human approves over MCP', () => {
  let mcp: Awaited<ReturnType<typeof connectInMemory>>;
  beforeAll(async () => {
    mcp = await connectInMemory({ client: env.client, elicit: () => ({ action: 'decline' }) });
  });
  afterAll(async () => {
    await mcp?.close();
  });

  it.for(batchGroups)(
    'the elicitation question spells out every one of $range, in keys and values',
    { timeout: 60_000 },
    async ({ batches }) => {
      for (const batch of batches) {
        mcp.prompts.length = 0;
        await mcp.client.callTool({ name: op.name, arguments: { settings: settingsFor(batch) } });
        expect(mcp.prompts).toHaveLength(1);
        check('the MCP question', mcp.prompts[0], batch);
      }
    },
  );
});
