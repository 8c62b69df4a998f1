// A declined deletion must not run anyway through create_commit (a delete or move action), nor any other change the policy judges dangerous.
import { describe, expect, it } from 'vitest';
import { connectInMemory, resultText, useSandbox } from '../helpers/mcp.js';
import { sentTo } from '../helpers/retrying-client.js';

const env = useSandbox();
const PROJECT = 'acme/web';
const COMMITS = '/projects/acme%2Fweb/repository/commits';

const sent = (method: string, path: string) => sentTo(env.sandbox, method, path);

async function readmeExists(): Promise<boolean> {
  const mcp = await connectInMemory({ client: env.client });
  const result = await mcp.client.callTool({
    name: 'get_file_metadata',
    arguments: { id: PROJECT, file_path: 'README.md', ref: 'main' },
  });
  await mcp.close();
  return !result.isError;
}

describe('a commit that deletes or moves files asks like delete_file', () => {
  it('asks again when the assistant tries create_commit after the human declined delete_file, and runs nothing', async () => {
    const mcp = await connectInMemory({ client: env.client, elicit: () => ({ action: 'decline' }) });
    const declined = await mcp.client.callTool({
      name: 'delete_file',
      arguments: { id: PROJECT, file_path: 'README.md', branch: 'main', commit_message: 'Remove README' },
    });
    expect(resultText(declined)).toMatch(/declined; nothing was changed/);
    const before = sent('POST', COMMITS);
    for (const action of [
      { action: 'delete', file_path: 'README.md' },
      { action: 'move', file_path: 'docs/README.md', previous_path: 'README.md' },
    ]) {
      const result = await mcp.client.callTool({
        name: 'create_commit',
        arguments: { id: PROJECT, branch: 'main', commit_message: 'Tidy', actions: [action] },
      });
      expect(result.isError).toBe(true);
      expect(resultText(result)).toMatch(/declined; nothing was changed/);
    }
    expect(mcp.prompts).toHaveLength(3);
    expect(mcp.prompts[1]).toContain('deletes "README.md"');
    expect(mcp.prompts[2]).toContain('moves "README.md" to "docs/README.md"');
    expect(sent('POST', COMMITS)).toBe(before);
    expect(await readmeExists()).toBe(true);
    await mcp.close();
  });

  it('refuses such a commit from a client without elicitation, naming the call, and sends nothing', async () => {
    const mcp = await connectInMemory({ client: env.client });
    const before = sent('POST', COMMITS);
    const result = await mcp.client.callTool({
      name: 'create_commit',
      arguments: {
        id: PROJECT,
        branch: 'main',
        commit_message: 'Tidy',
        actions: [{ action: 'delete', file_path: 'README.md' }],
      },
    });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/cannot ask/);
    expect(resultText(result)).toContain('deletes "README.md"');
    expect(sent('POST', COMMITS)).toBe(before);
    expect(await readmeExists()).toBe(true);
    await mcp.close();
  });

  it('runs a commit that only adds and updates files without asking', async () => {
    const mcp = await connectInMemory({ client: env.client, elicit: () => ({ action: 'decline' }) });
    const result = await mcp.client.callTool({
      name: 'create_commit',
      arguments: {
        id: PROJECT,
        branch: 'main',
        commit_message: 'Add notes',
        actions: [{ action: 'create', file_path: 'notes/safety.md', content: 'ok\n' }],
      },
    });
    expect(result.isError).toBeFalsy();
    expect(mcp.prompts).toHaveLength(0);
    await mcp.close();
  });
});

describe('writes that overwrite without history, or stop work, ask too', () => {
  it('asks before update_release replaces notes, and changes nothing when declined', async () => {
    const mcp = await connectInMemory({ client: env.client, elicit: () => ({ action: 'decline' }) });
    const before = await mcp.client.callTool({ name: 'get_release', arguments: { id: PROJECT, tag_name: 'v1.0.0' } });
    const result = await mcp.client.callTool({
      name: 'update_release',
      arguments: { id: PROJECT, tag_name: 'v1.0.0', description: 'Wiped' },
    });
    expect(resultText(result)).toMatch(/declined/);
    expect(mcp.prompts[0]).toContain("overwrites the release's description");
    const after = await mcp.client.callTool({ name: 'get_release', arguments: { id: PROJECT, tag_name: 'v1.0.0' } });
    expect((after.structuredContent as { description: string }).description).toBe(
      (before.structuredContent as { description: string }).description,
    );
    await mcp.close();
  });

  it('asks before cancel_pipeline stops running jobs, and cancels nothing when declined', async () => {
    const mcp = await connectInMemory({ client: env.client, elicit: () => ({ action: 'decline' }) });
    const running = await mcp.client.callTool({
      name: 'list_pipelines',
      arguments: { id: PROJECT, status: 'running' },
    });
    const pipeline = (running.structuredContent as { items: Array<{ id: number }> }).items[0];
    expect(pipeline).toBeDefined();
    const result = await mcp.client.callTool({
      name: 'cancel_pipeline',
      arguments: { id: PROJECT, pipeline_id: pipeline.id },
    });
    expect(resultText(result)).toMatch(/declined/);
    expect(mcp.prompts[0]).toMatch(/cannot be resumed/);
    const still = await mcp.client.callTool({
      name: 'get_pipeline',
      arguments: { id: PROJECT, pipeline_id: pipeline.id },
    });
    expect((still.structuredContent as { status: string }).status).toBe('running');
    await mcp.close();
  });
});
