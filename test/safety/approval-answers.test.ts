// The two answers to an approval request say what they do. On "Cancel pipeline?" a button called Cancel (Slack's dialog
// has one of its own) could mean either answer, so every channel labels yes with the action and its number and no
// with what stays as it is: Slack's buttons and dialog, the Slack approver, the approval page, the MCP form.
import { describe, expect, it } from 'vitest';
import { fetch } from 'undici';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createLocalApprovalPage } from '../../src/approval/page.js';
import { operations } from '../../src/operations/index.js';
import { answersTo } from '../../src/policy/policy.js';
import { renderApprovalRequest } from '../../src/slack/approver.js';
import { renderApproval, type Block } from '../../src/slack/blocks.js';
import { connectInMemory, useSandbox } from '../helpers/mcp.js';
import { testDispatcher } from '../helpers/dispatcher.js';

const env = useSandbox();
const PROJECT = 'acme/web';

/** Words that name no action: on a question whose action is "cancel", each could be read as either answer. */
const BARE = /^(cancel|confirm|ok|okay|yes|no|back|close|approve|deny|run it|don't run|continue|submit)$/i;

/** Every label a person can press in Block Kit: buttons, and the two of each button's "are you sure" dialog. */
function pressable(blocks: Block[]): string[] {
  type Element = {
    type: string;
    text: { text: string };
    confirm?: { confirm: { text: string }; deny: { text: string } };
  };
  return blocks.flatMap((block) =>
    ((block.elements ?? []) as Element[])
      .filter((element) => element.type === 'button')
      .flatMap((element) => [
        element.text.text,
        ...(element.confirm ? [element.confirm.confirm.text, element.confirm.deny.text] : []),
      ]),
  );
}

async function runningPipeline(): Promise<number> {
  const res = await env.client.request<Array<{ id: number }>>({
    method: 'GET',
    path: `/projects/${encodeURIComponent(PROJECT)}/pipelines`,
    query: { status: 'running' },
    idempotent: true,
  });
  expect(res.data.length).toBeGreaterThan(0);
  return res.data[0].id;
}

async function cancelQuestion(id: number) {
  const chat = testDispatcher(() => env.client);
  const reply = await chat.dispatch(`pipeline cancel ${PROJECT} ${id}`);
  if (reply.kind !== 'approve') throw new Error(`expected a question, got ${JSON.stringify(reply.message)}`);
  return reply;
}

describe('answers that say what they do', () => {
  it('every operation that may ask: yes names its action, no says what stays, and neither is a bare word', () => {
    const asking = operations.filter((op) => op.effect === 'destructive' || op.needsApproval !== undefined);
    expect(asking.length).toBeGreaterThan(30);
    for (const op of asking) {
      const input = Object.fromEntries(op.pathParams.map((p) => [p, 9]));
      const { yes, no } = answersTo(op, input);
      expect(yes, op.name).toMatch(new RegExp(`^Yes, ${op.title.charAt(0).toLowerCase()}${op.title.slice(1)}( 9)?$`));
      expect(no, op.name).toMatch(/^No, /);
      for (const label of [yes, no]) expect(label, op.name).not.toMatch(BARE);
      if (op.name.startsWith('cancel_')) expect(no, op.name).toBe('No, keep it running');
    }
  });

  it('Slack: a cancel_pipeline question has no button, and no dialog answer, that just says Cancel', async () => {
    const id = await runningPipeline();
    const reply = await cancelQuestion(id);
    const question = renderApproval(reply.prompt, 'T1:U1:ticket', {
      operation: 'cancel_pipeline',
      answers: reply.answers,
    })!;
    const labels = pressable(question.blocks);
    expect(labels).toEqual([
      `Yes, cancel pipeline ${id}`,
      `Yes, cancel pipeline ${id}`,
      'No, go back',
      'No, keep it running',
    ]);
    for (const label of labels) expect(label).not.toMatch(BARE);

    const approver = renderApprovalRequest({
      id: 'a1',
      url: 'http://127.0.0.1/x',
      operation: 'cancel_pipeline',
      prompt: reply.prompt,
      answers: reply.answers,
      expiresAt: Date.now() + 60_000,
    })!;
    expect(pressable(approver.blocks)).toEqual(labels);
  });

  it('the approval page: its two buttons say what they do', async () => {
    const id = await runningPipeline();
    const reply = await cancelQuestion(id);
    const page = createLocalApprovalPage({ port: 0, maxPending: 4 });
    const links: string[] = [];
    page.store.onOpen((opened) => links.push(opened.url));
    try {
      const opened = await page.store.open({
        operation: 'cancel_pipeline',
        input: reply.input,
        prompt: reply.prompt,
        answers: reply.answers,
      });
      expect(opened.ok).toBe(true);
      const html = await (await fetch(links[0])).text();
      const buttons = [...html.matchAll(/<button[^>]*value="(\w+)"[^>]*>([^<]*)<\/button>/g)].map((m) => [m[1], m[2]]);
      expect(buttons).toEqual([
        ['approve', `Yes, cancel pipeline ${id}`],
        ['deny', 'No, keep it running'],
      ]);
    } finally {
      await page.close();
    }
  });

  it("MCP: the form's box is titled with the action and its number", async () => {
    const id = await runningPipeline();
    const schemas: unknown[] = [];
    const mcp = await connectInMemory({ client: env.client, elicit: () => ({ action: 'decline' }) });
    // The harness answers with the message only; this handler keeps the form's schema too.
    mcp.client.setRequestHandler(ElicitRequestSchema, async (request) => {
      schemas.push((request.params as { requestedSchema?: unknown }).requestedSchema);
      return { action: 'decline' };
    });
    try {
      await mcp.client.callTool({ name: 'cancel_pipeline', arguments: { id: PROJECT, pipeline_id: id } });
    } finally {
      await mcp.close();
    }
    expect(schemas).toHaveLength(1);
    expect(schemas[0]).toMatchObject({
      properties: { confirm: { type: 'boolean', title: `Yes, cancel pipeline ${id}` } },
    });
    expect(JSON.stringify(schemas[0])).toContain('No, keep it running');
  });
});
