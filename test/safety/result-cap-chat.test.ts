// FORGEOPS_MAX_RESULT_CHARS's counterpart in chat: with the scripted service answering every request with huge
// data of one shape at a time (see test/helpers/huge-answers.ts), every operation of the registry, reads and writes,
// run through the chat dispatcher as after a person's yes gives a reply of bounded size in the terminal and in Slack.
// (The same calls over MCP are in result-cap-every-operation.test.ts.)
import { describe, expect, it } from 'vitest';
import { MESSAGE_CHARS } from '../../src/chat/bounds.js';
import { createDispatcher } from '../../src/chat/dispatch.js';
import { operations } from '../../src/operations/index.js';
import { LIMITS, renderMessage as renderSlack } from '../../src/slack/blocks.js';
import { renderMessage as renderTerminal } from '../../src/terminal/render.js';
import { INPUTS, SHAPES, useHugeAnswers } from '../helpers/huge-answers.js';
import { sampleInput } from '../helpers/sample-input.js';

const service = useHugeAnswers();

/** A chat reply as printed and as posted: the message's bound, plus its notes, buttons and layout. */
const TERMINAL_CHARS = MESSAGE_CHARS * 1.5;
const SLACK_JSON_CHARS = MESSAGE_CHARS * 2;

describe.each(Object.keys(SHAPES))('every operation in chat and Slack, the service answering with %s', (name) => {
  it('gives a reply of bounded size in the terminal and in Slack', { timeout: 120_000 }, async () => {
    service.answerWith(name);
    const chat = createDispatcher({
      operations,
      policy: { readOnly: false },
      runContext: () => ({ client: service.client }),
      explain: { operations },
      defaultProject: { get: () => undefined, set: () => undefined },
    });
    const over: string[] = [];
    let answered = 0;
    for (const op of operations) {
      // As after a person's yes: every operation runs, writes included.
      const reply = await chat.approved(op, INPUTS[op.name] ?? sampleInput(op)!);
      if (reply.kind !== 'message') continue;
      answered += reply.ok ? 1 : 0;
      const terminal = renderTerminal(reply.message, { operations });
      const slack = renderSlack(reply.message, { actionValue: (i) => `ref-${i}` });
      if (terminal.length > TERMINAL_CHARS) over.push(`${op.name}: terminal ${terminal.length}`);
      const posted = JSON.stringify(slack).length;
      if (posted > SLACK_JSON_CHARS || slack.blocks.length > LIMITS.blocks)
        over.push(`${op.name}: Slack ${posted} characters, ${slack.blocks.length} blocks`);
    }
    expect(over, 'replies over their bound').toEqual([]);
    expect(answered).toBeGreaterThan(operations.length / 3);
  });
});
