// The generic reading of answers no presenter knows: nested records, lists of values and lists of records read as
// words ("key: value", comma lists, names, counts) in chat and in Slack, never as JSON.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { presentOutcome } from '../../../src/chat/present.js';
import { defineOperation } from '../../../src/operations/engine/define.js';
import { show } from '../../../src/operations/engine/present.js';
import { renderMessage as renderSlack } from '../../../src/slack/blocks.js';
import { renderMessage as renderTerminal } from '../../../src/terminal/render.js';

const JSONISH = /[{}[\]]|":|\[object /;

/** Every `text` of a Slack message, however deep. */
function slackTexts(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(slackTexts);
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    key === 'text' && typeof inner === 'string' ? [inner] : slackTexts(inner),
  );
}

const readOf = (name: string) =>
  defineOperation({
    name,
    chat: name.replace(/_/g, ' '),
    area: 'projects',
    title: 'Read things',
    description: 'A read.',
    route: 'GET /things',
    input: z.object({}),
    effect: 'read',
  });

describe('show', () => {
  it('reads lists of values as comma lists, and lists of records by their names or their count', () => {
    expect(show([1, 2, 3])).toBe('1, 2, 3');
    expect(show(['main', 'dev'])).toBe('main, dev');
    expect(show([])).toBe('—');
    expect(show([{ username: 'erin' }, { name: 'Bob' }])).toBe('erin, Bob');
    expect(show([{ a: 1 }, { b: 2 }])).toBe('2 items');
  });

  it('reads a record by its name, else by its first short fields, nested ones by name', () => {
    expect(show({ id: 3, username: 'erin', name: 'Erin Walsh' })).toBe('erin');
    expect(show({ add: 'user_access', as: 'developer', target: { name: 'web' } })).toBe(
      'add: user_access, as: developer, target: web',
    );
    expect(show({ a: 1, b: 2, c: 3, d: 4, e: 5 })).toBe('a: 1, b: 2, c: 3, d: 4, …');
    expect(show({ message: 'first line\nsecond', parent_ids: ['abc'], web_url: 'https://x' })).toBe(
      'message: first line…, parent_ids: abc',
    );
    expect(show({ nested: { deeper: { x: 1 } } })).toBe('—');
  });
});

describe('answers without a presenter', () => {
  const commit = {
    id: 'b23a245694d24b9e47532dd4e9a784a763097c18',
    message: 'Initial commit\n',
    author_name: 'Alice',
    parent_ids: [],
  };
  const cases: Array<[string, unknown]> = [
    [
      'a list of unnamed records with nested ones',
      [
        { commit, lines: ['# web', '', 'text'] },
        { commit, lines: ['more'] },
      ],
    ],
    [
      'a record of nested records and lists',
      { id: 1, details: { add: 'user_access', target_details: { name: 'web' } }, ids: [1, 2], items: [{ a: 1 }] },
    ],
  ];

  it.each(cases)('reads %s as words in the terminal and in Slack', (_what, data) => {
    const message = presentOutcome(readOf('read_things'), {}, { data, status: 200 });
    const terminal = renderTerminal(message, { operations: [] });
    expect(terminal).not.toMatch(JSONISH);
    const texts = slackTexts(renderSlack(message));
    expect(texts.length).toBeGreaterThan(1);
    for (const text of texts) expect(text).not.toMatch(JSONISH);
  });

  it('names an unnamed item by its fields', () => {
    const message = presentOutcome(readOf('read_things'), {}, { data: [{ status_code: 7, kind: 'x' }], status: 200 });
    expect(message.fields).toEqual([['1.', 'status_code: 7, kind: x']]);
  });
});
