// FORGEOPS_MAX_RESULT_CHARS holds for every operation and every shape of answer: a scripted service answers every
// request with huge data of one shape at a time (a list of wide objects, an object with long strings and nested
// lists, a very wide object, nested arrays, a bare long string, a long text body with runner sections), and every
// operation of the registry, reads and writes (approved by the client), is called through the MCP server with a
// small cap. The whole result as it travels (content and structuredContent together) stays within the cap plus
// the JSON-RPC envelope, and a result cut from a larger answer says so. The same calls through the chat dispatcher
// are in result-cap-chat.test.ts.
import { describe, expect, it } from 'vitest';
import { operations } from '../../src/operations/index.js';
import { useHugeAnswers, INPUTS, SHAPES } from '../helpers/huge-answers.js';
import { connectInMemory } from '../helpers/mcp.js';
import { sampleInput } from '../helpers/sample-input.js';

const CAP = 3000;
/** What a result may exceed the cap by: the JSON-RPC envelope around it, not data. */
const ENVELOPE = 100;

const service = useHugeAnswers();

/** Operations that report on what they read (a verdict, a status) instead of showing it: nothing of theirs is cut. */
const REPORTS = new Set(['triage_project', 'wait_for_pipeline', 'wait_until_settled', 'check_button_premise']);

/** What says a result was cut. */
const SAYS_CUT =
  /truncat|cut to fit|too large|left out|not shown|more were read|the log is longer|the last \d+ lines?/i;

describe.each(Object.keys(SHAPES))('every operation, the service answering with %s', (name) => {
  it('keeps the whole result within the cap and says when it cut it', { timeout: 120_000 }, async () => {
    service.answerWith(name);
    const mcp = await connectInMemory({
      client: service.client,
      maxResultChars: CAP,
      callTimeoutMs: 10_000,
      elicit: () => ({ action: 'accept', content: { confirm: true } }),
    });
    const over: string[] = [];
    const silent: string[] = [];
    let succeeded = 0;
    try {
      for (const op of operations) {
        const input = INPUTS[op.name] ?? sampleInput(op);
        expect(input, `${op.name}: no input to call it with`).toBeDefined();
        const result = await mcp.client.callTool({ name: op.name, arguments: input });
        const size = JSON.stringify({
          content: result.content,
          structuredContent: result.structuredContent,
          isError: result.isError,
        }).length;
        if (size > CAP + ENVELOPE) over.push(`${op.name}: ${size}`);
        if (result.isError) continue;
        succeeded++;
        // The service sent far more than the cap: unless the operation only reports on it (or reads headers alone),
        // the result says it was cut.
        if (!SAYS_CUT.test(JSON.stringify(result)) && !REPORTS.has(op.name) && op.response !== 'headers')
          silent.push(op.name);
      }
    } finally {
      await mcp.close();
    }
    expect(over, `results over the cap of ${CAP} characters`).toEqual([]);
    expect(silent, 'results cut without saying so').toEqual([]);
    // The answers did reach the operations: most of them succeed with any data.
    expect(succeeded).toBeGreaterThan(operations.length / 3);
  });
});
