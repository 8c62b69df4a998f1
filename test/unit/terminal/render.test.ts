// Terminal rendering of a ChatMessage: aligned fields, follow-ups as the commands to type, and no control character
// from the service's data reaching the terminal.
import { describe, expect, it } from 'vitest';
import { chatMessage } from '../../../src/chat/message.js';
import { operations } from '../../../src/operations/index.js';
import { renderMessage, safeText } from '../../../src/terminal/render.js';

describe('renderMessage', () => {
  it('writes the status, aligned fields, link, sections, follow-ups as commands, and notes', () => {
    const message = chatMessage('Pipeline #42: failed', {
      status: 'failed',
      link: 'https://code.example.com/acme/web/-/pipelines/42',
      fields: [
        ['ref', 'main'],
        ['duration', '1m 35s'],
      ],
      sections: [{ title: 'log', text: 'line 1\nline 2', code: true }],
      actions: [{ label: 'Retry', operation: 'retry_pipeline', input: { id: 'acme/web', pipeline_id: 42 } }],
      notes: ['showing 1 of 3'],
    });
    expect(renderMessage(message, { operations })).toBe(
      [
        '✗ Pipeline #42: failed',
        '  ref       main',
        '  duration  1m 35s',
        '  https://code.example.com/acme/web/-/pipelines/42',
        '',
        '  log',
        '    line 1',
        '    line 2',
        '',
        '  → retry: pipeline retry acme/web 42',
        '',
        '  showing 1 of 3',
        '',
      ].join('\n'),
    );
  });

  it("lowers only a step's first letter and shows the names in it safe (a label may carry an author's name)", () => {
    const message = chatMessage('main is red', {
      actions: [
        { label: 'Ping Bob Chen\x1b[2J\u202e on 889e7775', operation: 'list_pipelines', input: { id: 'acme/web' } },
      ],
    });
    const shown = renderMessage(message, { operations });
    expect(shown).toContain('  → ping Bob Chen');
    expect(shown).not.toContain('\x1b');
    expect(shown).not.toContain('\u202e');
  });

  it("leaves a list row's own step to Slack: the message's own steps are the commands shown", () => {
    const message = chatMessage('2 pipelines', {
      fields: [
        ['#9', 'failed · main'],
        ['#8', 'success · main'],
      ],
      actions: [
        { label: 'Retry #9', operation: 'retry_pipeline', input: { id: 'acme/web', pipeline_id: 9 }, row: '#9' },
        { label: 'Next page', operation: 'list_pipelines', input: { id: 'acme/web', page: 2 } },
      ],
    });
    const shown = renderMessage(message, { operations });
    expect(shown).not.toContain('pipeline retry');
    expect(shown).toContain('  → next page: pipeline list acme/web page=2');
  });

  it('colours only when asked', () => {
    const message = chatMessage('done', { status: 'success' });
    expect(renderMessage(message, { operations })).toBe('✓ done\n');
    expect(renderMessage(message, { operations, color: true })).toBe('\x1b[32m✓\x1b[0m \x1b[1mdone\x1b[0m\n');
  });

  it('shows escape sequences from repository content as text', () => {
    expect(safeText('a\x1b]0;pwned\x07b\r\nc\td')).toBe('a\\u001b]0;pwned\\u0007b\nc\td');
    const rendered = renderMessage(chatMessage('README.md', { sections: [{ text: '\x1b[2Jcleared', code: true }] }), {
      operations,
    });
    expect(rendered).not.toContain('\x1b');
    expect(rendered).toContain('\\u001b[2Jcleared');
  });
});
