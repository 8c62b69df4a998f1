// A model must not forge lines in what a human approves. Every code point of the Unicode
// categories a reader cannot see for what they are is generated here and put, in keys and in values, into a call
// that needs a human; each front end's rendering (MCP elicitation, the approval page, Slack's approval request and the
// approver's message, the terminal chat) must spell every one of them out and carry none of them raw.
import { describe, expect, it } from 'vitest';
import { fetch } from 'undici';
import { presentApproval } from '../../src/chat/present.js';
import { createLocalApprovalPage } from '../../src/approval/page.js';
import { findOperation, operations } from '../../src/operations/index.js';
import { InputError, validateInput } from '../../src/operations/engine/validate.js';
import { answersTo, approvalPrompt } from '../../src/policy/policy.js';
import { renderApprovalRequest } from '../../src/slack/approver.js';
import { renderApproval } from '../../src/slack/blocks.js';
import { renderMessage } from '../../src/terminal/render.js';
import { connectInMemory, useSandbox } from '../helpers/mcp.js';

const env = useSandbox();

/**
 * The categories, as the audit names them: control, format, line and paragraph separators, private use, unassigned,
 * tag characters (U+E0000–E007F), variation selectors, the Hangul fillers, and every space but the ASCII one.
 */
const CATEGORIES: Array<[string, (c: string) => boolean]> = [
  ['control (Cc)', (c) => /\p{Cc}/u.test(c)],
  ['format (Cf)', (c) => /\p{Cf}/u.test(c)],
  ['line separator (Zl)', (c) => /\p{Zl}/u.test(c)],
  ['paragraph separator (Zp)', (c) => /\p{Zp}/u.test(c)],
  ['private use (Co)', (c) => /\p{Co}/u.test(c)],
  ['unassigned (Cn)', (c) => /\p{Cn}/u.test(c)],
  [
    'tag',
    (c) => {
      const p = c.codePointAt(0)!;
      return p >= 0xe0000 && p <= 0xe007f;
    },
  ],
  ['variation selector', (c) => /\p{Variation_Selector}/u.test(c)],
  ['Hangul filler', (c) => [0x115f, 0x1160, 0x3164, 0xffa0].includes(c.codePointAt(0)!)],
  ['non-ASCII space (Zs)', (c) => c !== ' ' && /\p{Zs}/u.test(c)],
];

/** The same categories as one expression, to scan a whole rendering at once. */
const ANY_CATEGORY =
  /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Variation_Selector}\u{e0000}-\u{e007f}\u115f\u1160\u3164\uffa0]|(?! )\p{Zs}/gu;

/** Every code point of those categories but the surrogates, which no valid string holds alone (refused below). */
function hiddenCodePoints(): number[] {
  const found: number[] = [];
  for (let p = 0; p <= 0x10ffff; p++) {
    if (p >= 0xd800 && p <= 0xdfff) continue;
    const c = String.fromCodePoint(p);
    if (CATEGORIES.some(([, test]) => test(c))) found.push(p);
  }
  return found;
}

/** The code points spelled out in a rendering. */
function spelledIn(text: string): Set<number> {
  return new Set([...text.matchAll(/\\u\{([0-9a-f]{5,6})\}|\\u([0-9a-f]{4})/g)].map((m) => parseInt(m[1] ?? m[2], 16)));
}

/** Characters of a rendering that are in the categories: the front end let them through. */
function rawHidden(text: string, layout: RegExp): string[] {
  return [...text.replace(layout, '').matchAll(ANY_CATEGORY)].map(
    ([c]) => `U+${c.codePointAt(0)!.toString(16).toUpperCase()}`,
  );
}

const all = hiddenCodePoints();
const BATCH = 2048;
const batches: number[][] = [];
for (let i = 0; i < all.length; i += BATCH) batches.push(all.slice(i, i + BATCH));

/** A settings change whose keys and values each carry one hidden code point, as a model could send it. */
const settingsFor = (batch: number[]) =>
  Object.fromEntries(batch.map((p) => [`k${String.fromCodePoint(p)}`, `v${String.fromCodePoint(p)}`]));

const op = findOperation('update_application_settings')!;

function check(front: string, text: string, batch: number[], layout = /\n/g): void {
  expect(rawHidden(text, layout), `${front} shows hidden characters raw`).toEqual([]);
  const shown = spelledIn(text);
  const missing = batch.filter((p) => !shown.has(p));
  expect(
    missing.map((p) => `U+${p.toString(16)}`),
    `${front} does not spell these out`,
  ).toEqual([]);
}

describe('hidden characters in what a human approves', () => {
  it('covers every category, each with code points (the generator is not empty)', () => {
    for (const [name, test] of CATEGORIES)
      expect(
        all.some((p) => test(String.fromCodePoint(p))),
        name,
      ).toBe(true);
    // The scanning expression agrees with the categories on every code point.
    expect(all.every((p) => String.fromCodePoint(p).match(ANY_CATEGORY)?.length === 1)).toBe(true);
    expect(all.length).toBeGreaterThan(900_000);
  });

  it('the prompt, the terminal chat, Slack (requester and approver) and the approval page spell out every one, in keys and values', async () => {
    const page = createLocalApprovalPage({ port: 0, maxPending: 4 });
    await page.start();
    const links: string[] = [];
    page.store.onOpen((opened) => links.push(opened.url));
    try {
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
    } finally {
      await page.close();
    }
  }, 120_000);

  it('over MCP, the elicitation question spells out every one, in keys and values', async () => {
    const mcp = await connectInMemory({ client: env.client, elicit: () => ({ action: 'decline' }) });
    try {
      for (const batch of batches) {
        mcp.prompts.length = 0;
        await mcp.client.callTool({ name: op.name, arguments: { settings: settingsFor(batch) } });
        expect(mcp.prompts).toHaveLength(1);
        check('the MCP question', mcp.prompts[0], batch);
      }
    } finally {
      await mcp.close();
    }
  }, 120_000);

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
