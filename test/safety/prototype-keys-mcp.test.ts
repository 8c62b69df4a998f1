// Names every JavaScript object inherits (constructor, toString, hasOwnProperty, __proto__) given as a tool's argument,
// nested in one, or as a tool's name: each is an unknown name, said as such, and nothing is sent.
import { describe, expect, it } from 'vitest';
import { resultText, useSandbox } from '../helpers/mcp.js';
import { operations } from '../../src/operations/index.js';
import { validateInput } from '../../src/operations/engine/validate.js';
import { sampleInput } from '../helpers/sample-input.js';
import { FILE_URI_TEMPLATE, fileUri } from '../../src/mcp/resources.js';
import { fitObject } from '../../src/mcp/result-size.js';
import { useMcpSession } from '../helpers/mcp-session.js';

const env = useSandbox();

const PROTOTYPE_NAMES = ['constructor', 'toString', 'hasOwnProperty', '__proto__'] as const;

/**
 * `input` with one more argument named `name`, made the way a server receives it: JSON.parse makes `__proto__` an
 * own property (an object literal or an assignment would set the prototype instead).
 */
function withExtra(input: Record<string, unknown>, name: string): Record<string, unknown> {
  return JSON.parse(JSON.stringify({ [name]: 1, ...input })) as Record<string, unknown>;
}

const mcp = useMcpSession(env);

async function call(name: string, args: Record<string, unknown>) {
  const before = env.sandbox.requests.all().length;
  const result = await mcp.client.callTool({ name, arguments: args });
  return { text: resultText(result), isError: result.isError, sent: env.sandbox.requests.all().length - before };
}

describe('names objects inherit', () => {
  it.each(PROTOTYPE_NAMES)('as an extra argument of every tool: unknown parameter %s, nothing sent', async (name) => {
    const tools = (await mcp.client.listTools()).tools;
    expect(tools.length).toBeGreaterThan(100);
    const wrong: string[] = [];
    for (const tool of tools) {
      const op = operations.find((o) => o.name === tool.name);
      const args = withExtra(op ? (sampleInput(op) ?? {}) : {}, name);
      expect(Object.hasOwn(args, name), `${tool.name}: ${name} is an own argument`).toBe(true);
      const result = await call(tool.name, args);
      const said = result.isError === true && result.sent === 0 && result.text.includes(`unknown parameter ${name}`);
      if (!said) wrong.push(`${tool.name}: ${result.text.slice(0, 160)} (${result.sent} sent)`);
    }
    expect(wrong).toEqual([]);
  });

  it.each(PROTOTYPE_NAMES)('nested in a commit action: %s is refused by name, nothing sent', async (name) => {
    const action = withExtra({ action: 'create', file_path: 'x.txt', content: 'x' }, name);
    const result = await call('create_commit', {
      id: 'acme/web',
      branch: 'main',
      commit_message: 'x',
      actions: [action],
    });
    expect(result).toMatchObject({ isError: true, sent: 0 });
    expect(result.text).toContain('actions.0');
    expect(result.text).toContain(name);
  });

  it.each(PROTOTYPE_NAMES)('as a tool name: unknown tool %s', async (name) => {
    const result = await mcp.client.callTool({ name, arguments: {} });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(new RegExp(`^Unknown tool ${name}\\b`));
  });
});

describe('names objects inherit, inside a map of names', () => {
  it('refuses __proto__ as a custom attribute, which the schema alone would drop without a word', async () => {
    const attributes = JSON.parse('{"__proto__": "x", "team": "web"}');
    const result = await call('list_projects', { custom_attributes: attributes });
    expect(result).toMatchObject({ isError: true, sent: 0 });
    expect(result.text).toContain('custom_attributes.__proto__: the name __proto__ cannot be sent');
  });

  it('keeps constructor as a custom attribute: an ordinary name for the service', () => {
    const op = operations.find((o) => o.name === 'list_projects')!;
    const input = validateInput(op, { custom_attributes: JSON.parse('{"constructor": "x"}') });
    expect(input.custom_attributes).toEqual(JSON.parse('{"constructor": "x"}'));
  });
});

describe('names objects inherit, in a resource and a result', () => {
  it('reads a file whose extension is constructor as plain text', async () => {
    const created = await call('create_file', {
      id: 'acme/web',
      file_path: 'notes.constructor',
      branch: 'prototype-keys',
      start_branch: 'main',
      content: 'plain notes',
      commit_message: 'Add notes',
    });
    expect(created.isError).toBeFalsy();
    const uri = fileUri({ project: 'acme/web', path: 'notes.constructor', ref: 'prototype-keys' });
    const { contents } = await mcp.client.readResource({ uri });
    expect(contents[0]).toMatchObject({ mimeType: 'text/plain', text: 'plain notes' });
  });

  it('keeps a field the service named __proto__ a field when a result is cut to fit', () => {
    const answer = JSON.parse(`{"__proto__": {"polluted": "yes"}, "log": "${'x'.repeat(10_000)}"}`);
    const fitted = fitObject(answer, { maxChars: 2000, measure: (value) => JSON.stringify(value).length })!.value;
    expect(Object.getPrototypeOf(fitted)).toBe(Object.prototype);
    expect((fitted as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.hasOwn(fitted, '__proto__')).toBe(true);
  });
});

describe('names objects inherit, as a prompt, its argument or a completed argument', () => {
  it.each(PROTOTYPE_NAMES)('%s: an unknown prompt, an unknown argument, nothing to complete', async (name) => {
    await expect(mcp.client.getPrompt({ name, arguments: {} })).rejects.toThrow(/Unknown prompt/);
    // The SDK's own schema of a prompt's arguments (a zod record) drops __proto__ before the prompt sees it.
    if (name !== '__proto__')
      await expect(
        mcp.client.getPrompt({ name: 'triage_failed_pipeline', arguments: { project: 'acme/web', [name]: 'x' } }),
      ).rejects.toThrow(new RegExp(`has no argument "${name}"`));
    const before = env.sandbox.requests.all().length;
    const { completion } = await mcp.client.complete({
      ref: { type: 'ref/resource', uri: FILE_URI_TEMPLATE },
      argument: { name, value: 'a' },
    });
    expect(completion.values).toEqual([]);
    expect(env.sandbox.requests.all().length).toBe(before);
  });
});
