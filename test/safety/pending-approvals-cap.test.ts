// A stranger cannot pile up calls waiting for a human: a session holds at most MAX_PENDING_APPROVALS of them.
import { describe, expect, it } from 'vitest';
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { MAX_PENDING_APPROVALS } from '../../src/mcp/server.js';
import { connectInMemory, resultText, useSandbox } from '../helpers/mcp.js';

const env = useSandbox();

describe('pending approvals', () => {
  it('refuses a further destructive call while the cap of unanswered ones wait, and sends none of them', async () => {
    const answers: Array<(result: ElicitResult) => void> = [];
    // The human never answers until the test does.
    const mcp = await connectInMemory({
      client: env.client,
      elicit: (() => new Promise<ElicitResult>((resolve) => answers.push(resolve))) as unknown as () => ElicitResult,
    });
    const call = (pipeline_id: number) =>
      mcp.client.callTool({ name: 'delete_pipeline', arguments: { id: 'acme/web', pipeline_id } });
    const waiting = Array.from({ length: MAX_PENDING_APPROVALS }, (_, i) => call(1000 + i));
    for (let i = 0; i < 100 && answers.length < MAX_PENDING_APPROVALS; i++) await new Promise((r) => setTimeout(r, 10));
    expect(answers).toHaveLength(MAX_PENDING_APPROVALS);

    const refused = await call(2000);
    expect(refused.isError).toBe(true);
    expect(resultText(refused)).toBe(
      `${MAX_PENDING_APPROVALS} calls of this session already wait for a human's approval; nothing was changed. Let the human answer those first.`,
    );
    expect(answers).toHaveLength(MAX_PENDING_APPROVALS);

    for (const answer of answers) answer({ action: 'decline' });
    for (const result of await Promise.all(waiting)) expect(resultText(result)).toMatch(/declined/);
    expect(env.sandbox.requests.all().filter((r) => r.method === 'DELETE')).toHaveLength(0);
    // Once answered, the slots are free again.
    const after = call(3000);
    for (let i = 0; i < 100 && answers.length <= MAX_PENDING_APPROVALS; i++)
      await new Promise((r) => setTimeout(r, 10));
    answers.at(-1)!({ action: 'decline' });
    expect(resultText(await after)).toMatch(/declined/);
    await mcp.close();
  });
});
