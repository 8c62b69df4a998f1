// A model must not forge lines in what a human approves. Every code point of the Unicode
// categories a reader cannot see for what they are is generated here and put, in keys and in values, into a call
// that needs a human; each front end's rendering (the approval page, Slack's approval request and the approver's
// message, the terminal chat; MCP's elicitation in hidden-characters-mcp.test.ts) must spell every one of them out
// and carry none of them raw.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetch } from 'undici';
import { presentApproval } from '../../src/chat/present.js';
import { createLocalApprovalPage } from '../../src/approval/page.js';
import { operations } from '../../src/operations/index.js';
import { InputError, validateInput } from '../../src/operations/engine/validate.js';
import { answersTo, approvalPrompt } from '../../src/policy/policy.js';
import { renderApprovalRequest } from '../../src/slack/approver.js';
import { renderApproval } from '../../src/slack/blocks.js';
import { renderMessage } from '../../src/terminal/render.js';
import {
  ANY_CATEGORY,
  batchGroups,
  CATEGORIES,
  check,
  hiddenPoints,
  op,
  settingsFor,
} from '../helpers/hidden-characters.js';

describe('hidden characters in what a human approves', () => {
  it('covers every category, each with code points (the generator is not empty)', () => {
    for (const [name, test] of CATEGORIES)
      expect(
        hiddenPoints.some((p) => test(String.fromCodePoint(p))),
        name,
      ).toBe(true);
    // The scanning expression agrees with the categories on every code point.
    expect(hiddenPoints.every((p) => String.fromCodePoint(p).match(ANY_CATEGORY)?.length === 1)).toBe(true);
    expect(hiddenPoints.length).toBeGreaterThan(900_000);
    // The groups of batches the tests below walk hold every one of them.
    expect(batchGroups.reduce((n, group) => n + group.batches.flat().length, 0)).toBe(hiddenPoints.length);
  });

  describe('the prompt, the terminal chat, Slack (requester and approver) and the approval page spell out every one, in keys and values', () => {
    let page: ReturnType<typeof createLocalApprovalPage>;
    const links: string[] = [];
    beforeAll(async () => {
      page = createLocalApprovalPage({ port: 0, maxPending: 4 });
      await page.start();
      page.store.onOpen((opened) => links.push(opened.url));
    });
    afterAll(async () => {
      await page?.close();
    });

    it.for(batchGroups)('code points $range', { timeout: 60_000 }, async ({ batches }) => {
      for (const batch of batches) {
        const input = validateInput(op, { settings: settingsFor(batch) }) as Record<string, unknown>;
        const prompt = approvalPrompt(op, input, 'test');
        check('the prompt', prompt, batch);
        check('the terminal chat', renderMessage(presentApproval(prompt, op), { operations }), batch);
        // Slack's fence keeps a run of backticks from closing the code block with zero-width spaces of its own.
        const fenceGuard = /`\u200b`\u200b`|\n/g;
        const answers = answersTo(op, input);
        const slack = renderApproval(prompt, 'ticket', { operation: op.name, answers });
        expect(slack, 'Slack can show the call').toBeDefined();
        check(
          "Slack's approval request",
          JSON.stringify(slack!.blocks.map((b) => JSON.stringify(b))),
          batch,
          fenceGuard,
        );
        const approver = renderApprovalRequest({
          id: 'a',
          url: 'http://x',
          operation: op.name,
          prompt,
          answers,
          expiresAt: Date.now() + 60_000,
        });
        check("the Slack approver's message", JSON.stringify(approver!.blocks), batch, fenceGuard);
        const opened = await page.store.open({ operation: op.name, input, prompt, answers });
        expect(opened.ok).toBe(true);
        const html = await (await fetch(links.at(-1)!)).text();
        check('the approval page', html, batch);
        page.store.closeAll('next batch');
      }
    });
  });

  it('a key cannot start a line of its own or pass for another key', () => {
    const input = validateInput(op, {
      settings: {
        signup_enabled: false,
        'recipients\n  (nothing else changes)': 'x',
        'recipi\u0435nts': 'evil@example.org',
      },
    }) as Record<string, unknown>;
    const prompt = approvalPrompt(op, input, 'test');
    expect(prompt.split('\n')).toHaveLength(3);
    expect(prompt).toContain('"recipients\\u000a  (nothing else changes)": "x"');
    expect(prompt).toContain('"recipi\\u0435nts": "evil@example.org"');
  });

  it('a lone surrogate, the one category no valid text holds, is refused by name and nothing is asked', () => {
    for (const p of [0xd800, 0xdbff, 0xdc00, 0xdfff]) {
      const lone = String.fromCharCode(p);
      expect(() => validateInput(op, { settings: { [`k${lone}`]: 'v' } })).toThrow(InputError);
      expect(() => validateInput(op, { settings: { k: `v${lone}` } })).toThrow(
        /settings\.k: contains a lone UTF-16 surrogate/,
      );
    }
  });
});
