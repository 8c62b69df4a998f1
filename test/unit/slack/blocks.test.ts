// Block Kit rendering: Slack's limits hold for any message (cut with a note), and text from strangers stays text.
import { describe, expect, it } from 'vitest';
import { chatMessage } from '../../../src/chat/message.js';
import { CONTINUED, LIMITS, renderApproval, renderMessage, splitText, type Block } from '../../../src/slack/blocks.js';
import { joinShown, quoteExactly, shown, spellOutHidden } from '../../../src/text/visible.js';

function textsOf(blocks: Block[]): string[] {
  return blocks.flatMap((b) => {
    const out: string[] = [];
    const t = (b.text as { text?: string } | undefined)?.text;
    if (t !== undefined) out.push(t);
    for (const f of (b.fields as Array<{ text: string }> | undefined) ?? []) out.push(f.text);
    for (const e of (b.elements as Array<{ text?: string | { text: string } }> | undefined) ?? []) {
      if (typeof e.text === 'string') out.push(e.text);
    }
    return out;
  });
}

function expectWithinLimits(blocks: Block[]): void {
  expect(blocks.length).toBeLessThanOrEqual(LIMITS.blocks);
  for (const b of blocks) {
    if (b.text) expect((b.text as { text: string }).text.length).toBeLessThanOrEqual(LIMITS.sectionText);
    const fields = (b.fields as Array<{ text: string }> | undefined) ?? [];
    expect(fields.length).toBeLessThanOrEqual(LIMITS.fieldsPerSection);
    for (const f of fields) expect(f.text.length).toBeLessThanOrEqual(LIMITS.fieldText);
    for (const e of (b.elements as Array<Record<string, unknown>> | undefined) ?? []) {
      if (typeof e.value === 'string') expect(e.value.length).toBeLessThanOrEqual(LIMITS.buttonValue);
      if (typeof e.action_id === 'string') expect(e.action_id.length).toBeLessThanOrEqual(LIMITS.actionId);
    }
  }
}

describe('renderMessage', () => {
  it('shows status emoji, a link back, fields and a button whose value is the reference given', () => {
    const message = chatMessage('Pipeline #42: failed', {
      status: 'failed',
      link: 'http://code.example/acme/web/-/pipelines/42',
      fields: [['ref', 'main']],
      actions: [
        { label: 'Retry', operation: 'retry_pipeline', input: { id: 'acme/web', pipeline_id: 42 }, style: 'primary' },
      ],
    });
    const { blocks, text } = renderMessage(message, { actionValue: () => 'ref-1' });
    expect(text).toBe('Pipeline #42: failed');
    expect(textsOf(blocks)[0]).toBe(':x: *<http://code.example/acme/web/-/pipelines/42|Pipeline #42: failed>*');
    expect(textsOf(blocks)).toContain('*ref*\nmain');
    const actions = blocks.find((b) => b.type === 'actions') as { elements: Array<Record<string, unknown>> };
    expect(actions.elements[0]).toMatchObject({ action_id: 'forge_followup:0', value: 'ref-1', style: 'primary' });
    expect(JSON.stringify(blocks)).not.toContain('pipeline_id');
  });

  it('cuts a long list to 50 blocks, 10 fields a section and 2000 characters a field, and says so', () => {
    const fields = Array.from({ length: 700 }, (_, i): [string, string] => [`#${i}`, 'x'.repeat(i === 3 ? 5000 : 40)]);
    const sections = [{ title: 'diff', text: 'line &<>\n'.repeat(3000), code: true }];
    const actions = Array.from({ length: 30 }, (_, i) => ({
      label: `Next ${'page '.repeat(30)}`,
      operation: 'list_pipelines',
      input: { page: i },
    }));
    const { blocks } = renderMessage(chatMessage('700 pipelines', { fields, sections, actions }), {
      actionValue: (i) => `r${i}`,
    });
    expectWithinLimits(blocks);
    expect(blocks).toHaveLength(LIMITS.blocks);
    expect(textsOf(blocks).at(-1)).toMatch(/Cut to fit Slack: \d+ more blocks/);
    expect(blocks.filter((b) => b.type === 'actions')).toHaveLength(2);
  });

  it("puts a row's own step on its row, one section per row, and the message's own steps below", () => {
    const message = chatMessage('3 pipelines', {
      fields: [
        ['#9', 'failed · main · f90d1530'],
        ['#8', 'success · main · 4f7e5495'],
        ['#7', 'running · main · 313c2499'],
      ],
      actions: [
        { label: 'Retry #9', operation: 'retry_pipeline', input: { pipeline_id: 9 }, style: 'primary', row: '#9' },
        { label: 'Cancel #7', operation: 'cancel_pipeline', input: { pipeline_id: 7 }, style: 'danger', row: '#7' },
        { label: 'Next page', operation: 'list_pipelines', input: { page: 2 } },
      ],
    });
    const { blocks } = renderMessage(message, { actionValue: (i) => `ref-${i}` });
    expectWithinLimits(blocks);
    const rows = blocks.filter((b) => b.type === 'section').slice(1) as Array<{
      text: { text: string };
      accessory?: Record<string, unknown>;
    }>;
    expect(rows.map((r) => [r.text.text, r.accessory?.value])).toEqual([
      ['*#9*  failed · main · f90d1530', 'ref-0'],
      ['*#8*  success · main · 4f7e5495', undefined],
      ['*#7*  running · main · 313c2499', 'ref-1'],
    ]);
    expect(rows[0].accessory).toMatchObject({
      type: 'button',
      action_id: 'forge_followup:0',
      style: 'primary',
      text: { text: 'Retry #9' },
    });
    const below = blocks.find((b) => b.type === 'actions') as { elements: Array<Record<string, unknown>> };
    expect(below.elements.map((e) => e.action_id)).toEqual(['forge_followup:2']);
  });

  it('never puts an oversized value on a button (the button is left out instead)', () => {
    const message = chatMessage('t', { actions: [{ label: 'Go', operation: 'x', input: {} }] });
    const { blocks } = renderMessage(message, { actionValue: () => 'v'.repeat(LIMITS.buttonValue + 1) });
    expect(blocks.some((b) => b.type === 'actions')).toBe(false);
  });

  it('keeps markup from the service as text: &, <, > escaped, a fence inside code cannot close it', () => {
    const message = chatMessage('<!channel> & co', {
      fields: [['a', '<https://evil|click>']],
      sections: [{ text: 'x```<!here>', code: true }],
    });
    const all = textsOf(renderMessage(message).blocks).join('\n');
    expect(all).not.toMatch(/<!channel>|<!here>|<https:\/\/evil/);
    expect(all).toContain('&lt;!channel&gt; &amp; co');
    expect(all.match(/```/g)).toHaveLength(2);
  });
});

describe('renderApproval', () => {
  const answers = { yes: shown`Yes, delete pipeline 5`, no: shown`No, change nothing` };

  it('shows the whole call with a danger yes (with a dialog) and a no, both carrying the approval', () => {
    const prompt = joinShown(
      [
        shown`Delete pipeline`,
        ...Array.from({ length: 400 }, (_, i) => shown`  path: ${quoteExactly(`dir/file-${i}.txt`)}`),
      ],
      '\n',
    );
    const rendered = renderApproval(prompt, 'T1:U1:abc', { operation: 'delete_pipeline', answers });
    expect(rendered).toBeDefined();
    expectWithinLimits(rendered!.blocks);
    const texts = textsOf(rendered!.blocks).join('\n');
    for (let i = 0; i < 400; i++) expect(texts).toContain(`dir/file-${i}.txt`);
    const actions = rendered!.blocks.find((b) => b.type === 'actions') as { elements: Array<Record<string, unknown>> };
    expect(actions.elements[0]).toMatchObject({
      style: 'danger',
      value: 'T1:U1:abc',
      action_id: 'forge_confirm',
      text: { text: 'Yes, delete pipeline 5' },
    });
    expect(actions.elements[0].confirm).toMatchObject({ style: 'danger', confirm: { text: 'Yes, delete pipeline 5' } });
    expect(actions.elements[1]).toMatchObject({
      action_id: 'forge_cancel',
      value: 'T1:U1:abc',
      text: { text: 'No, change nothing' },
    });
  });

  it('refuses to ask about a call too long to show whole', () => {
    expect(
      renderApproval(spellOutHidden('x'.repeat(200_000)), 't', { operation: 'create_commit', answers }),
    ).toBeUndefined();
  });
});

describe('splitText', () => {
  it('splits at line breaks under the limit and loses nothing', () => {
    const text = Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n');
    const pieces = splitText(text, 100);
    expect(pieces.every((p) => p.length <= 100)).toBe(true);
    expect(pieces.join('\n')).toBe(text);
  });

  it('cuts a line too long for one piece and starts its rest with the mark it is given, so it cannot pass for a line', () => {
    const text = `  branch: "${'x'.repeat(230)}\n  user_id: forged"`;
    const pieces = splitText(text, 100, CONTINUED);
    expect(pieces.every((p) => p.length <= 100)).toBe(true);
    expect(pieces.slice(1).every((p) => p.startsWith(CONTINUED))).toBe(true);
    expect(pieces.join('\n').replaceAll(`\n${CONTINUED}`, '')).toBe(text);
  });
});
