// The meta toolset through the SDK client: find → describe → run reaches every operation with the same validation,
// policy and approvals as the operation's own tool, and read-only mode holds there too.
import { describe, expect, it } from 'vitest';
import { connectInMemory, resultText, useSandbox } from '../helpers/mcp.js';
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';

const env = useSandbox();
const PROJECT = 'acme/web';
const FILES = '/projects/acme%2Fweb/repository/files';

function sentTo(method: string, prefix: string): number {
  return env.sandbox.requests.filter({ method }).filter((r) => r.path.startsWith(prefix)).length;
}

/** The meta toolset over the sandbox, for a person who answers every question with `answer`. */
const metaToolsAnswering = (answer: ElicitResult) =>
  connectInMemory({ client: env.client, toolsets: ['meta'], elicit: () => answer });

describe('the meta toolset', () => {
  it('lists only find_operations, describe_operation and run_operation, well under 1,500 tokens', async () => {
    const mcp = await connectInMemory({ client: env.client, toolsets: ['meta'] });
    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['find_operations', 'describe_operation', 'run_operation']);
    expect(JSON.stringify({ tools }).length / 4).toBeLessThan(1_500);
    await mcp.close();
  });

  it('finds an operation by the words people use', async () => {
    const mcp = await connectInMemory({ client: env.client, toolsets: ['meta'] });
    const cases: Array<[string, string]> = [
      ['retry a failed pipeline', 'retry_pipeline'],
      ['rerun CI', 'retry_pipeline'],
      ['remove a member from a group', 'remove_group_member'],
      ['read a file', 'get_file'],
      ['list merge requests of a project', 'list_project_merge_requests'],
      ['broadcast message', 'list_broadcast_messages'],
    ];
    for (const [query, expected] of cases) {
      const found = await mcp.client.callTool({ name: 'find_operations', arguments: { query, limit: 5 } });
      const names = (found.structuredContent as { operations: Array<{ name: string }> }).operations.map((o) => o.name);
      expect(names, query).toContain(expected);
    }
    const none = await mcp.client.callTool({ name: 'find_operations', arguments: { query: 'zzqx' } });
    expect(resultText(none)).toMatch(/No operation matches "zzqx"/);
    await mcp.close();
  });

  it('describes an operation with the same schema its own tool has, and suggests a name for a typo', async () => {
    const mcp = await connectInMemory({ client: env.client, toolsets: ['meta'] });
    const described = await mcp.client.callTool({ name: 'describe_operation', arguments: { name: 'retry_pipeline' } });
    const all = await connectInMemory({ client: env.client, toolsets: ['pipelines'] });
    const tool = (await all.client.listTools()).tools.find((t) => t.name === 'retry_pipeline');
    expect((described.structuredContent as { inputSchema: unknown }).inputSchema).toEqual(tool?.inputSchema);
    const typo = await mcp.client.callTool({ name: 'describe_operation', arguments: { name: 'retry_pipelin' } });
    expect(typo.isError).toBe(true);
    expect(resultText(typo)).toMatch(/Unknown operation retry_pipelin\. Did you mean retry_pipeline\?/);
    await all.close();
    await mcp.close();
  });

  it("runs a read and a write with the operation's own validation", async () => {
    const mcp = await connectInMemory({ client: env.client, toolsets: ['meta'] });
    const read = await mcp.client.callTool({
      name: 'run_operation',
      arguments: { name: 'list_project_members', arguments: { id: PROJECT } },
    });
    expect(read.isError, resultText(read)).toBeFalsy();
    const bad = await mcp.client.callTool({
      name: 'run_operation',
      arguments: { name: 'create_file', arguments: { id: PROJECT, file_path: 'x.txt' } },
    });
    expect(bad.isError).toBe(true);
    expect(resultText(bad)).toMatch(/branch/);
    const before = sentTo('POST', FILES);
    const written = await mcp.client.callTool({
      name: 'run_operation',
      arguments: {
        name: 'create_file',
        arguments: {
          id: PROJECT,
          file_path: 'notes/meta.txt',
          branch: 'main',
          content: 'hi',
          commit_message: 'Add notes',
        },
      },
    });
    expect(written.isError, resultText(written)).toBeFalsy();
    expect(sentTo('POST', FILES)).toBe(before + 1);
    const args = await mcp.client.callTool({
      name: 'run_operation',
      arguments: { name: 'get_file', arguments: 'README.md' },
    });
    expect(resultText(args)).toMatch(/arguments must be an object/);
    await mcp.close();
  });

  it('asks the human before a destructive call, and runs nothing when they decline', async () => {
    const declining = await metaToolsAnswering({ action: 'decline' });
    const created = await declining.client.callTool({
      name: 'run_operation',
      arguments: {
        name: 'create_file',
        arguments: {
          id: PROJECT,
          file_path: 'notes/doomed.txt',
          branch: 'main',
          content: 'bye',
          commit_message: 'Add',
        },
      },
    });
    expect(created.isError, resultText(created)).toBeFalsy();
    const before = sentTo('DELETE', FILES);
    const call = {
      name: 'run_operation',
      arguments: {
        name: 'delete_file',
        arguments: { id: PROJECT, file_path: 'notes/doomed.txt', branch: 'main', commit_message: 'Remove notes' },
      },
    };
    const declined = await declining.client.callTool(call);
    expect(declined.isError).toBe(true);
    expect(resultText(declined)).toMatch(/declined; nothing was changed/);
    expect(declining.prompts[0]).toContain('notes/doomed.txt');
    expect(sentTo('DELETE', FILES)).toBe(before);
    await declining.close();

    const confirming = await metaToolsAnswering({ action: 'accept', content: { confirm: true } });
    const confirmed = await confirming.client.callTool(call);
    expect(confirmed.isError, resultText(confirmed)).toBeFalsy();
    expect(confirming.prompts).toHaveLength(1);
    expect(sentTo('DELETE', FILES)).toBe(before + 1);
    await confirming.close();
  });

  it('previews a change with dry_run inside the arguments: the exact request, nothing sent, nobody asked', async () => {
    const mcp = await metaToolsAnswering({ action: 'decline' });
    const before = env.sandbox.requests.filter({}).length;
    const preview = await mcp.client.callTool({
      name: 'run_operation',
      arguments: {
        name: 'delete_file',
        arguments: { id: PROJECT, file_path: 'README.md', branch: 'main', commit_message: 'Remove', dry_run: true },
      },
    });
    expect(preview.isError, resultText(preview)).toBeFalsy();
    expect(resultText(preview)).toContain('DELETE');
    expect(resultText(preview)).toContain('README.md');
    expect(mcp.prompts).toHaveLength(0);
    expect(env.sandbox.requests.filter({}).length).toBe(before);
    await mcp.close();
  });

  it('refuses writes in read-only mode: not found, not described, not run', async () => {
    const mcp = await connectInMemory({ client: env.client, toolsets: ['meta'], readOnly: true });
    const found = await mcp.client.callTool({
      name: 'find_operations',
      arguments: { query: 'delete file', limit: 25 },
    });
    const names = (found.structuredContent as { operations: Array<{ name: string; effect: string }> }).operations;
    expect(names.length).toBeGreaterThan(0);
    expect(names.every((o) => o.effect === 'read')).toBe(true);
    const deletion = { id: PROJECT, file_path: 'README.md', branch: 'main', commit_message: 'x' };
    for (const [tool, args] of [
      ['describe_operation', { name: 'delete_file' }],
      ['run_operation', { name: 'delete_file', arguments: deletion }],
    ] as const) {
      const before = env.sandbox.requests.filter({ method: 'DELETE' }).length;
      const result = await mcp.client.callTool({ name: tool, arguments: args });
      expect(result.isError).toBe(true);
      expect(resultText(result)).toMatch(
        /delete_file changes data, and forgeops runs in read-only mode.*nothing was sent/,
      );
      expect(env.sandbox.requests.filter({ method: 'DELETE' }).length).toBe(before);
    }
    // Called by its own name, the write is refused just the same.
    const direct = await mcp.client.callTool({
      name: 'delete_file',
      arguments: { id: PROJECT, file_path: 'README.md', branch: 'main', commit_message: 'x' },
    });
    expect(direct.isError).toBe(true);
    await mcp.close();
  });

  it('refuses arguments the meta tools do not take', async () => {
    const mcp = await connectInMemory({ client: env.client, toolsets: ['meta'] });
    const result = await mcp.client.callTool({ name: 'find_operations', arguments: { query: 'x', bogus: 1 } });
    expect(resultText(result)).toBe('find_operations takes query, limit; not bogus. Nothing was sent.');
    await mcp.close();
  });
});
