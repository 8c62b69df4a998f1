// Bad input gets one clear sentence naming the field, and nothing is sent: lone surrogates, oversized URL values, non-object arguments.
import { describe, expect, it } from 'vitest';
import { MAX_URL_VALUE_CHARS } from '../../src/operations/engine/define.js';
import { connectInMemory, resultText, useSandbox } from '../helpers/mcp.js';

const env = useSandbox();

async function call(name: string, args: unknown) {
  const mcp = await connectInMemory({ client: env.client });
  const before = env.sandbox.requests.all().length;
  // The SDK's client types arguments as an object; a real client can send anything.
  const result = await mcp.client.callTool({ name, arguments: args as Record<string, unknown> });
  const sent = env.sandbox.requests.all().length - before;
  await mcp.close();
  return { text: resultText(result), isError: result.isError, sent };
}

describe('bad input', () => {
  it('names the field holding a lone surrogate instead of "URI malformed"', async () => {
    const result = await call('get_file', { id: 'acme/web', file_path: 'a\ud800b', ref: 'main' });
    expect(result).toMatchObject({ isError: true, sent: 0 });
    expect(result.text).toBe(
      'Invalid input for get_file: file_path: contains a lone UTF-16 surrogate (not valid Unicode); send the text as valid UTF-8. Nothing was sent.',
    );
  });

  it('finds a lone surrogate nested in a commit action and in a body field', async () => {
    const result = await call('create_commit', {
      id: 'acme/web',
      branch: 'main',
      commit_message: 'x\udc00',
      actions: [{ action: 'create', file_path: 'f\ud801', content: 'c' }],
    });
    expect(result.sent).toBe(0);
    expect(result.text).toContain('commit_message: contains a lone UTF-16 surrogate');
    expect(result.text).toContain('actions.0.file_path: contains a lone UTF-16 surrogate');
  });

  it('refuses a 5 MB path or query value by its schema, naming the field, before any request', async () => {
    const huge = 'a'.repeat(5_000_000);
    const inPath = await call('get_file', { id: 'acme/web', file_path: huge, ref: 'main' });
    expect(inPath).toMatchObject({ isError: true, sent: 0 });
    expect(inPath.text).toMatch(
      new RegExp(
        `^Invalid input for get_file: file_path: Too big: expected string to have <=${MAX_URL_VALUE_CHARS} characters. Nothing was sent.$`,
      ),
    );
    const inQuery = await call('list_pipelines', { id: 'acme/web', ref: huge });
    expect(inQuery).toMatchObject({ isError: true, sent: 0 });
    expect(inQuery.text).toContain('ref: Too big');
    const projectId = await call('list_pipelines', { id: huge });
    expect(projectId.text).toContain('id: Too big');
  });

  it.each([
    ['a string', '"delete everything"', 'a string'],
    ['an array', '[1, 2]', 'an array'],
    ['a number', '42', 'a number'],
    ['null', 'null', 'null'],
  ])('answers arguments that are %s with one sentence, not a validation dump', async (_what, json, kind) => {
    const result = await call('list_pipelines', JSON.parse(json));
    expect(result).toMatchObject({ isError: true, sent: 0 });
    expect(result.text).toBe(
      `Invalid input for list_pipelines: the arguments must be a JSON object of named parameters, got ${kind}. Nothing was sent.`,
    );
  });
});
