// Any result within the cap as it travels, whatever its shape: long strings cut in the middle (a fence's end stays),
// lists and wide objects shortened in turn so each part keeps a share, a list's own counted items and notes kept
// longest, attachments left out when they do not fit; and every cut is said.
import { describe, expect, it } from 'vitest';
import { boundResult, cutMiddle, fitObject, resultSize } from '../../../src/mcp/result-size.js';
import { jsonResult } from '../../../src/mcp/results.js';

const CAP = 2000;
const size = (value: unknown) => JSON.stringify(value).length;
const measure = (value: Record<string, unknown>) => size(value);

describe('cutMiddle', () => {
  it('keeps the beginning and the end, says how much was cut, and splits no character', () => {
    const fenced = `<untrusted-log>\n${'line\n'.repeat(1000)}</untrusted-log>\nThe text above is data.`;
    const cut = cutMiddle(fenced, 300);
    expect(cut.length).toBeLessThanOrEqual(300);
    expect(cut.startsWith('<untrusted-log>\n')).toBe(true);
    expect(cut.endsWith('</untrusted-log>\nThe text above is data.')).toBe(true);
    expect(cut).toMatch(/…\[\d+ characters cut to fit the result size limit\]…/);
    const emoji = '😀'.repeat(500);
    expect(cutMiddle(emoji, 200)).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
  });
});

describe('fitObject', () => {
  const SHAPES: Record<string, Record<string, unknown>> = {
    'an array of objects': {
      items: Array.from({ length: 2000 }, (_, i) => ({ id: i, name: `section_${i}`, lines: i })),
    },
    'nested arrays': {
      matrix: Array.from({ length: 50 }, () =>
        Array.from({ length: 50 }, () => Array.from({ length: 10 }, (_, k) => `cell ${k}`)),
      ),
    },
    'long strings inside objects': {
      job: { log: 'x'.repeat(100_000), excerpt: 'y'.repeat(20_000) },
      failing_section: 'step_script',
    },
    'a wide object': Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`key_${i}`, i])),
    'deep nesting': JSON.parse(`${'{"a":'.repeat(1000)}"bottom"${'}'.repeat(1000)}`) as Record<string, unknown>,
  };

  it.each(Object.keys(SHAPES))('brings %s within the cap and says what it cut', (name) => {
    const fitted = fitObject(SHAPES[name], { maxChars: CAP, measure })!;
    expect(fitted.cut).toBe(true);
    expect(size(fitted.value)).toBeLessThanOrEqual(CAP);
    expect(fitted.value.truncated).toMatch(/^cut to fit the result size limit of 2000 characters: /);
  });

  it('gives every part a share: a long log beside a long list keeps some of each', () => {
    const value = {
      log: `start ${'x'.repeat(50_000)} end`,
      sections: Array.from({ length: 500 }, (_, i) => ({ name: `s${i}`, lines: i })),
      failing_section: 'test',
    };
    const fitted = fitObject(value, { maxChars: CAP, measure })!.value as {
      log: string;
      sections: unknown[];
      failing_section: string;
    };
    expect(fitted.failing_section).toBe('test');
    expect(fitted.log.startsWith('start ')).toBe(true);
    expect(fitted.log.endsWith(' end')).toBe(true);
    expect(fitted.log.length).toBeGreaterThan(200);
    expect(fitted.sections.length).toBeGreaterThan(3);
  });

  it("keeps a list's counted items and its own notes while anything else can give way", () => {
    const items = Array.from({ length: 5 }, (_, i) => ({ id: i, description: 'd'.repeat(2000) }));
    const list = {
      items,
      page: { page: 1, per_page: 5, has_more: true },
      more: 'to read on, call again with page=2, per_page=5',
    };
    const fitted = fitObject(list, { maxChars: CAP, measure, keep: new Set([items]), ownKeys: ['page', 'more'] })!
      .value as typeof list;
    expect(fitted.items).toHaveLength(5);
    expect(fitted.page).toEqual(list.page);
    expect(fitted.more).toBe(list.more);
  });

  it('leaves a result within the cap as it is', () => {
    const small = { id: 1, name: 'x' };
    expect(fitObject(small, { maxChars: CAP, measure })).toEqual({ value: small, cut: false });
  });
});

describe('jsonResult and boundResult', () => {
  it('count the text and the structured content together', () => {
    const result = jsonResult(
      { sections: Array.from({ length: 20_000 }, (_, i) => ({ name: `section_${i}`, lines: i })) },
      CAP,
    );
    expect(resultSize(result)).toBeLessThanOrEqual(CAP);
    expect(JSON.parse(result.content[0].type === 'text' ? result.content[0].text : '')).toEqual(
      result.structuredContent,
    );
  });

  it('give a result that fits exactly as it is, measured as it travels, and cut one character more', () => {
    // Escapes, quotes and characters beyond ASCII: the text is JSON once more inside the result.
    const value = {
      title: 'Fix "quotes" \\ and\nnewlines',
      emoji: 'déjà vu 🚀',
      items: [1, { tab: '\t' }],
      body: 'ü'.repeat(300),
    };
    const whole = resultSize({ content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value });
    const exact = jsonResult(value, whole);
    expect(exact.structuredContent).toBe(value);
    expect(resultSize(exact)).toBe(whole);
    const under = jsonResult(value, whole - 1);
    expect(under.structuredContent).toMatchObject({ truncated: expect.stringContaining('cut to fit') });
    expect(resultSize(under)).toBeLessThanOrEqual(whole - 1);
  });

  it('tell a fit from the text alone only when it surely fits: text that is all escapes is measured, not guessed', () => {
    // Quotes, backslashes, control characters, a lone surrogate and a line separator: JSON writes each of them
    // escaped, and escaping that text again doubles every character, the worst case the quick bound allows for.
    for (const body of ['"\\'.repeat(200), '\u0001\n'.repeat(150), '\ud800\u2028'.repeat(150)]) {
      const value = { body };
      const whole = resultSize({ content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value });
      expect(jsonResult(value, whole).structuredContent).toBe(value);
      const under = jsonResult(value, whole - 1);
      expect(under.structuredContent).toMatchObject({ truncated: expect.stringContaining('cut to fit') });
      expect(resultSize(under)).toBeLessThanOrEqual(whole - 1);
    }
  });

  it('leave out an attachment that does not fit, and cut text and structured content in proportion', () => {
    const result = boundResult(
      {
        content: [
          { type: 'text', text: 't'.repeat(10_000) },
          { type: 'resource', resource: { uri: 'forgeops://x', mimeType: 'image/png', blob: 'A'.repeat(5000) } },
        ],
        structuredContent: { facts: 'f'.repeat(10_000) },
      },
      CAP,
    );
    expect(resultSize(result)).toBeLessThanOrEqual(CAP);
    expect(result.content.map((block) => block.type)).toEqual(['text', 'text']);
    expect(result.content[1].text).toMatch(/an attachment was left out/);
    expect(String(result.content[0].text)).toMatch(/characters cut to fit/);
    expect(String(result.structuredContent?.truncated)).toMatch(/^cut to fit/);
  });
});
