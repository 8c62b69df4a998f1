// A file's content given in a ``` block through the terminal chat reaches the service exactly as written inside the
// fence: "fix a typo" in a file that ends with a newline changes the typo and nothing else, its last newline included.
import { describe, expect, it } from 'vitest';
import { operations } from '../../../src/operations/index.js';
import { useSandbox } from '../../helpers/mcp.js';
import { testDispatcher } from '../../helpers/dispatcher.js';
import { startPipeChat } from '../../helpers/pipe-chat.js';

const env = useSandbox();

async function rawFile(project: string, path: string, ref: string): Promise<string> {
  const answer = await env.client.request<string>({
    method: 'GET',
    path: `/projects/${encodeURIComponent(project)}/repository/files/${encodeURIComponent(path)}/raw`,
    query: { ref },
    idempotent: true,
    responseType: 'text',
  });
  return answer.data;
}

/** Types `lines` into an interactive chat session (as a pipe: one line after the other) and returns what it printed. */
async function chat(lines: string[]): Promise<string> {
  const chat = startPipeChat({ dispatcher: testDispatcher(() => env.client), operations });
  chat.input.end(`${lines.join('\n')}\n`);
  expect(await chat.ended).toBe(0);
  return chat.printed();
}

describe('file content in a ``` block', () => {
  it('round-trips a file byte for byte but the edit, keeping its final newline', async () => {
    const before = await rawFile('acme/web', 'README.md', 'main');
    expect(before.endsWith('\n')).toBe(true);
    const edited = before.replace('storefront', 'store front');
    expect(edited).not.toBe(before);
    // As a person pastes it: the command opens the fence, the file's lines follow, the fence closes on its own line.
    const printed = await chat([
      'file update acme/web README.md branch=main commit_message="Fix a typo" content=```',
      ...edited.replace(/\n$/, '').split('\n'),
      '```',
    ]);
    expect(printed).toMatch(/README\.md/);
    expect(printed).not.toMatch(/failed|error/i);
    expect(await rawFile('acme/web', 'README.md', 'main')).toBe(edited);
  });

  it('writes no final newline when the fence closes on the last line, and keeps blank last lines', async () => {
    await chat([
      'file create acme/web notes/a.txt branch=main commit_message="Add a" content=```',
      'one',
      'two```',
      'file create acme/web notes/b.txt branch=main commit_message="Add b" content=```',
      'one',
      '',
      '```',
    ]);
    expect(await rawFile('acme/web', 'notes/a.txt', 'main')).toBe('one\ntwo');
    expect(await rawFile('acme/web', 'notes/b.txt', 'main')).toBe('one\n\n');
  });
});
