// Dry runs through the SDK client: the exact request a write would send and what it would change, with nothing
// reaching the sandbox (its request log stays empty) and nobody asked to approve.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectInMemory, resultText, useSandbox } from '../helpers/mcp.js';

const env = useSandbox();

type Preview = {
  dry_run: string;
  operation: string;
  effect: string;
  request: {
    method: string;
    path: string;
    query?: Record<string, unknown>;
    body?: Record<string, unknown>;
    body_encoding?: string;
  };
  changes?: string;
  needs_confirmation: boolean;
  confirm_reason?: string;
};

let mcp: Awaited<ReturnType<typeof connectInMemory>>;

beforeEach(async () => {
  mcp = await connectInMemory({ client: env.client, elicit: () => ({ action: 'accept', content: { confirm: true } }) });
  env.sandbox.requests.clear();
});

afterEach(async () => {
  await mcp.close();
});

async function dryRun(name: string, args: Record<string, unknown>): Promise<Preview> {
  const result = await mcp.client.callTool({ name, arguments: { ...args, dry_run: true } });
  expect(result.isError, resultText(result)).toBeFalsy();
  expect(JSON.parse(resultText(result))).toEqual(result.structuredContent);
  return result.structuredContent as Preview;
}

describe('dry_run in tools/list', () => {
  it('is a boolean on every tool that changes data, and on no read', async () => {
    const { tools } = await mcp.client.listTools();
    for (const tool of tools) {
      const properties = (tool.inputSchema.properties ?? {}) as Record<string, unknown>;
      if (tool.annotations?.readOnlyHint) expect(properties.dry_run, tool.name).toBeUndefined();
      else expect(properties.dry_run, tool.name).toEqual({ type: 'boolean' });
    }
    expect(mcp.client.getInstructions()).toContain('dry_run=true');
  });
});

describe('a dry run', () => {
  it('shows the exact method, encoded path and body of a write and what it would change, and sends nothing', async () => {
    const preview = await dryRun('create_pipeline', {
      id: 'acme/web',
      ref: 'main',
      variables: [{ key: 'DEPLOY', value: 'canary' }],
    });
    expect(preview).toEqual({
      dry_run: 'nothing was sent',
      operation: 'create_pipeline',
      effect: 'write',
      request: {
        method: 'POST',
        path: '/api/v4/projects/acme%2Fweb/pipeline',
        body: { ref: 'main', variables: [{ key: 'DEPLOY', value: 'canary' }] },
        body_encoding: 'json',
      },
      changes: expect.stringContaining('Starts a new pipeline'),
      needs_confirmation: false,
    });
    expect(env.sandbox.requests.all()).toEqual([]);
  });

  it('of a destructive call asks nobody, says that a real run would ask and why, and sends nothing', async () => {
    const preview = await dryRun('delete_pipeline', { id: 'acme/web', pipeline_id: 1 });
    expect(preview.request).toEqual({ method: 'DELETE', path: '/api/v4/projects/acme%2Fweb/pipelines/1' });
    expect(preview.needs_confirmation).toBe(true);
    // A destructive call asks because of what it changes: the reason is not repeated.
    expect(preview.changes).toMatch(/Cannot be undone/);
    expect(preview).not.toHaveProperty('confirm_reason');
    expect(mcp.prompts).toEqual([]);
    expect(env.sandbox.requests.all()).toEqual([]);
  });

  it("reports a write's input-dependent approval (a commit that deletes a file)", async () => {
    const actions = [{ action: 'delete', file_path: 'README.md' }];
    const preview = await dryRun('create_commit', {
      id: 'acme/web',
      branch: 'main',
      commit_message: 'Drop readme',
      actions,
    });
    expect(preview.request).toMatchObject({
      method: 'POST',
      path: '/api/v4/projects/acme%2Fweb/repository/commits',
      body: { actions },
    });
    expect(preview.needs_confirmation).toBe(true);
    expect(preview.confirm_reason).toMatch(/README\.md/);
    expect(mcp.prompts).toEqual([]);
    expect(env.sandbox.requests.all()).toEqual([]);
  });

  it('shows credentials only by their length, and long content by size and hash', async () => {
    const secret = 'hunter2-hunter2-hunter2';
    const variable = await dryRun('update_group_variable', { id: 'acme', key: 'DEPLOY_TOKEN', value: secret });
    expect(variable.request.body).toEqual({ value: `<secret, ${secret.length} characters>` });
    expect(JSON.stringify(variable)).not.toContain(secret);

    const hook = 'https://hooks.chat.example/services/T000/B000/XXXXSECRET';
    const integration = await dryRun('set_integration', { id: 'acme/web', slug: 'slack', settings: { webhook: hook } });
    expect(JSON.stringify(integration)).not.toContain('XXXXSECRET');
    expect(JSON.stringify(integration)).toContain('<secret URL on \\"https://hooks.chat.example\\"');

    const content = 'x'.repeat(5000);
    const file = await dryRun('create_file', {
      id: 'acme/web',
      file_path: 'big.txt',
      branch: 'main',
      commit_message: 'Big',
      content,
    });
    expect(file.request.path).toBe('/api/v4/projects/acme%2Fweb/repository/files/big.txt');
    expect(file.request.body?.content).toMatch(/^<5000 characters, 5000 bytes, sha256 [0-9a-f]{16}…>$/);
    expect(env.sandbox.requests.all()).toEqual([]);
  });

  it('previews an operation with its own handler from the request that handler builds', async () => {
    const Operations = [
      { op: 'Replace', path: 'name.formatted', value: 'New Name' },
      { op: 'Replace', path: 'active', value: false },
    ];
    const scim = await dryRun('update_scim_user', { group_path: 'acme', id: 'ext-1', Operations });
    expect(scim.request).toEqual({
      method: 'PATCH',
      path: '/api/scim/v2/groups/acme/Users/ext-1',
      body: {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations,
      },
      body_encoding: 'json',
    });
    expect(scim.needs_confirmation).toBe(true);
    expect(scim.confirm_reason).toMatch(/^It deactivates the user/);

    const archive = Buffer.from('not really a tarball').toString('base64');
    const upload = await dryRun('import_group', { name: 'Imported', path: 'imported', file: archive });
    expect(upload.request).toEqual({
      method: 'POST',
      path: '/api/v4/groups/import',
      body: { name: 'Imported', path: 'imported', file: '<file "group_export.tar.gz", application/gzip, 20 bytes>' },
      body_encoding: 'multipart',
    });
    expect(env.sandbox.requests.all()).toEqual([]);
  });

  it('refuses bad input with the error a real call gets, naming the field, and sends nothing', async () => {
    const missing = await mcp.client.callTool({
      name: 'create_pipeline',
      arguments: { id: 'acme/web', dry_run: true },
    });
    expect(missing.isError).toBe(true);
    expect(resultText(missing)).toMatch(/ref/);
    const badFlag = await mcp.client.callTool({
      name: 'create_pipeline',
      arguments: { id: 'acme/web', ref: 'main', dry_run: 'yes' },
    });
    expect(badFlag.isError).toBe(true);
    expect(resultText(badFlag)).toMatch(/dry_run: must be true or false/);
    const dotPath = await mcp.client.callTool({
      name: 'delete_file',
      arguments: { id: '..', file_path: 'a', branch: 'main', commit_message: 'x', dry_run: true },
    });
    expect(dotPath.isError).toBe(true);
    expect(resultText(dotPath)).toMatch(/\.\./);
    expect(env.sandbox.requests.all()).toEqual([]);
  });

  it('of a read is refused in words: a read has nothing to preview', async () => {
    const result = await mcp.client.callTool({
      name: 'get_pipeline',
      arguments: { id: 'acme/web', pipeline_id: 1, dry_run: true },
    });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toBe(
      'get_pipeline only reads, so there is nothing to preview; call it without dry_run. Nothing was sent.',
    );
    expect(env.sandbox.requests.all()).toEqual([]);
  });

  it('with dry_run: false is the real call', async () => {
    const result = await mcp.client.callTool({
      name: 'create_pipeline',
      arguments: { id: 'acme/web', ref: 'main', dry_run: false },
    });
    expect(result.isError, resultText(result)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ status: 'pending', ref: 'main' });
    expect(env.sandbox.requests.all()).toEqual([expect.objectContaining({ method: 'POST', status: 201 })]);
  });
});

describe('a dry run in read-only mode', () => {
  it('is refused like the write itself: the tool is not offered, and nothing is sent', async () => {
    const readOnly = await connectInMemory({ client: env.client, readOnly: true });
    const result = await readOnly.client.callTool({
      name: 'delete_pipeline',
      arguments: { id: 'acme/web', pipeline_id: 1, dry_run: true },
    });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/not offered by this server \(read-only mode/);
    expect(env.sandbox.requests.all()).toEqual([]);
    await readOnly.close();
  });
});
