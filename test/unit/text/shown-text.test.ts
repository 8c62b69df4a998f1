// ShownText: only the escapers make it, and everything an approval request shows takes nothing else. The compiler checks
// the @ts-expect-error lines below (tsconfig.check.json covers tests): each fails to compile if a raw string is let in.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { presentApproval } from '../../../src/chat/present.js';
import { approvalQuestion, refusal } from '../../../src/mcp/approver.js';
import type { ApprovalCall } from '../../../src/approval/port.js';
import { describePerson } from '../../../src/operations/engine/people.js';
import type { Answers } from '../../../src/policy/policy.js';
import { renderApproval } from '../../../src/slack/blocks.js';
import { joinShown, quoteExactly, showKey, shown, spellOutHidden, type ShownText } from '../../../src/text/visible.js';

const answers: Answers = { yes: shown`Yes, delete pipeline 7`, no: shown`No, change nothing` };

/** Every TypeScript file under a folder. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sources(path) : entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('ShownText', () => {
  it('a raw string is refused wherever an approval request takes text', () => {
    const name: string = 'Erin\n  user_id: "Alice" (@alice, id 2)';
    const refused = () => {
      // @ts-expect-error a raw string is no ShownText
      const text: ShownText = name;
      // @ts-expect-error nor a template literal with a raw string in it
      const templated: ShownText = `user: ${quoteExactly(name)} ${name}`;
      // @ts-expect-error shown`` takes ShownText and numbers only
      shown`user: ${name}`;
      // @ts-expect-error nor can raw pieces be joined into ShownText
      joinShown([name], '\n');
      // @ts-expect-error a joiner of our own only, never data
      joinShown([quoteExactly(name)], name);
      // @ts-expect-error the terminal and chat question
      presentApproval(name);
      // @ts-expect-error the MCP form's question (both revisions)
      approvalQuestion(name);
      // @ts-expect-error a refusal that quotes the call
      refusal(name, 'why', 'fix');
      // @ts-expect-error Slack's question
      renderApproval(name, 'ticket', { operation: 'delete_pipeline', answers });
      // @ts-expect-error the approval page and the Slack approver (through the page store)
      const request: ApprovalCall = { operation: 'delete_pipeline', input: {}, prompt: name, answers };
      // @ts-expect-error an answer's label
      const labels: Answers = { yes: name, no: shown`No` };
      return [text, templated, request, labels];
    };
    expect(typeof refused).toBe('function');
  });

  it('only text/visible.ts makes ShownText: no other source casts to it', () => {
    const casting = sources('src')
      .filter((file) => !file.endsWith(join('text', 'visible.ts')))
      .filter((file) => /\bas\s+(unknown\s+as\s+)?ShownText\b|<ShownText>/.test(readFileSync(file, 'utf8')));
    expect(casting).toEqual([]);
  });

  it('the escapers, and shown`` over their output, spell out what could forge or reorder a line', () => {
    const name = 'Erin\n\u202Eevil';
    expect(quoteExactly(name)).toBe('"Erin\\u000a\\u202eevil"');
    expect(spellOutHidden(name)).toBe('Erin\\u000a\\u202eevil');
    expect(showKey('recipi\u0435nts')).toBe('"recipi\\u0435nts"');
    expect(shown`user: ${quoteExactly(name)} (id ${6})`).toBe('user: "Erin\\u000a\\u202eevil" (id 6)');
    expect(joinShown([shown`a`, quoteExactly('b\nc')], '\n')).toBe('a\n"b\\u000ac"');
    expect(describePerson({ id: 6, username: 'erin', name })).toBe('"Erin\\u000a\\u202eevil" (@erin, id 6)');
    expect(describePerson({ id: 7, username: 'er\u200bin' })).toBe('(@"er\\u200bin", id 7)');
  });
});
