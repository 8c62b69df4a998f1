// The MCP server end to end over the SDK's in-memory transport, against the sandbox over real HTTP; and a long
// session of the built `forgeops mcp` over stdio, whose heap must not grow with the number of calls.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { operations } from '../../src/operations/index.js';
import { ANNOTATION_DEFAULTS } from '../../src/mcp/tools.js';
import { connectInMemory, resultText, useSandbox } from '../helpers/mcp.js';
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { cliStdioTransport } from '../helpers/stdio-cli.js';

const env = useSandbox();

const PUBLIC_PROJECT = 'acme/web';
const PRIVATE_PROJECT = 'acme/platform/payments-api';

function requestsTo(pathPart: string, method?: string) {
  return env.sandbox.requests.all().filter((r) => r.path.includes(pathPart) && (!method || r.method === method));
}

/** Creates a pipeline on main over MCP, then asks to delete it: the pipeline's id and the delete call's result. */
async function deleteNewPipeline(mcp: Awaited<ReturnType<typeof connectInMemory>>) {
  const created = await mcp.client.callTool({
    name: 'create_pipeline',
    arguments: { id: PUBLIC_PROJECT, ref: 'main' },
  });
  const id = (created.structuredContent as { id: number }).id;
  const result = await mcp.client.callTool({
    name: 'delete_pipeline',
    arguments: { id: PUBLIC_PROJECT, pipeline_id: id },
  });
  return { id, result };
}

/** All tools over the sandbox, for a person who answers every question with `answer`. */
const answering = (answer: ElicitResult) => connectInMemory({ client: env.client, elicit: () => answer });

describe('tools/list', () => {
  it('offers every operation with its annotations derived from the effect', async () => {
    const mcp = await connectInMemory({ client: env.client });
    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(operations.map((op) => op.name).sort());
    for (const op of operations) {
      const tool = tools.find((t) => t.name === op.name)!;
      expect(tool.inputSchema.type).toBe('object');
      // Hints equal to the protocol's defaults are left out; read with the defaults, each says what the effect does.
      const hints = { ...ANNOTATION_DEFAULTS, ...tool.annotations };
      expect(tool.title).toBe(op.title);
      expect(hints.readOnlyHint).toBe(op.effect === 'read');
      if (op.effect !== 'read') {
        expect(hints.destructiveHint).toBe(op.effect === 'destructive' || op.needsApproval !== undefined);
        expect(hints.idempotentHint).toBe(op.idempotent);
      }
    }
    await mcp.close();
  });

  it('in read-only mode offers only reads, and refuses a write by name', async () => {
    const mcp = await connectInMemory({ client: env.client, readOnly: true });
    const { tools } = await mcp.client.listTools();
    expect(tools.length).toBe(operations.filter((op) => op.effect === 'read').length);
    expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
    const result = await mcp.client.callTool({
      name: 'create_pipeline',
      arguments: { id: PUBLIC_PROJECT, ref: 'main' },
    });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/not offered/);
    await mcp.close();
  });

  it('limits tools to the chosen toolsets', async () => {
    const mcp = await connectInMemory({ client: env.client, toolsets: ['pipelines'] });
    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      operations
        .filter((op) => op.area === 'pipelines')
        .map((op) => op.name)
        .sort(),
    );
    await mcp.close();
  });
});

describe('tools/call', () => {
  it('lists pipelines of a project addressed by full path, as text and matching structuredContent', async () => {
    const mcp = await connectInMemory({ client: env.client });
    const before = requestsTo('/projects/acme%2Fweb/pipelines', 'GET').length;
    const result = await mcp.client.callTool({
      name: 'list_pipelines',
      arguments: { id: PUBLIC_PROJECT, per_page: 5 },
    });
    expect(result.isError).toBeFalsy();
    const structured = result.structuredContent as {
      items: Array<{ id: number; status: string }>;
      page: { per_page: number };
    };
    expect(structured.items.length).toBeGreaterThan(0);
    expect(structured.items.length).toBeLessThanOrEqual(5);
    expect(structured.page.per_page).toBe(5);
    expect(JSON.parse(resultText(result))).toEqual(structured);
    expect(requestsTo('/projects/acme%2Fweb/pipelines', 'GET').length).toBe(before + 1);
    await mcp.close();
  });

  it('reports a private project read by a non-member as the service 404, with a hint', async () => {
    const mcp = await connectInMemory({ client: env.client, token: env.sandbox.tokens.outsider });
    const result = await mcp.client.callTool({ name: 'list_pipelines', arguments: { id: PRIVATE_PROJECT } });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/^404 Project Not Found/);
    expect(resultText(result)).toMatch(/private projects answer 404/);
    expect(resultText(result)).not.toContain(env.sandbox.tokens.outsider);
    await mcp.close();
  });

  it('rejects bad input naming the field, and sends nothing', async () => {
    const mcp = await connectInMemory({ client: env.client });
    const before = env.sandbox.requests.all().length;
    expect(before).toBeGreaterThan(0);
    const result = await mcp.client.callTool({
      name: 'list_pipelines',
      arguments: { id: PUBLIC_PROJECT, per_page: 0, colour: 'red' },
    });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/per_page/);
    expect(resultText(result)).toMatch(/colour/);
    expect(resultText(result)).toMatch(/Nothing was sent/);
    expect(env.sandbox.requests.all().length).toBe(before);
    await mcp.close();
  });

  it('refuses a destructive call from a client without elicitation, and deletes nothing', async () => {
    const mcp = await connectInMemory({ client: env.client });
    const list = await mcp.client.callTool({ name: 'list_pipelines', arguments: { id: PUBLIC_PROJECT } });
    const victim = (list.structuredContent as { items: Array<{ id: number }> }).items[0];
    const result = await mcp.client.callTool({
      name: 'delete_pipeline',
      arguments: { id: PUBLIC_PROJECT, pipeline_id: victim.id },
    });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/cannot ask/);
    expect(resultText(result)).toContain(`\n  pipeline_id: ${victim.id} — on "`);
    expect(requestsTo(`/pipelines/${victim.id}`, 'DELETE')).toHaveLength(0);
    const still = await mcp.client.callTool({
      name: 'get_pipeline',
      arguments: { id: PUBLIC_PROJECT, pipeline_id: victim.id },
    });
    expect(still.isError).toBeFalsy();
    await mcp.close();
  });

  it('runs a destructive call without asking when the operator allowed it', async () => {
    const mcp = await connectInMemory({ client: env.client, approval: 'allow' });
    const { id, result } = await deleteNewPipeline(mcp);
    expect(result.isError).toBeFalsy();
    const gone = await mcp.client.callTool({
      name: 'get_pipeline',
      arguments: { id: PUBLIC_PROJECT, pipeline_id: id },
    });
    expect(gone.isError).toBe(true);
    expect(resultText(gone)).toMatch(/^404/);
    await mcp.close();
  });

  it('asks the human through elicitation, naming the target, and runs once accepted', async () => {
    const mcp = await answering({ action: 'accept', content: { confirm: true } });
    const { id, result } = await deleteNewPipeline(mcp);
    expect(result.isError).toBeFalsy();
    expect(mcp.prompts).toHaveLength(1);
    expect(mcp.prompts[0]).toContain(`\n  pipeline_id: ${id} — on "main", `);
    expect(mcp.prompts[0]).toContain(PUBLIC_PROJECT);
    expect(requestsTo(`/pipelines/${id}`, 'DELETE')).toHaveLength(1);
    await mcp.close();
  });

  it('does nothing when the human accepts the form without ticking the box', async () => {
    const mcp = await answering({ action: 'accept', content: { confirm: false } });
    const { id, result } = await deleteNewPipeline(mcp);
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/nothing was changed/);
    expect(requestsTo(`/pipelines/${id}`, 'DELETE')).toHaveLength(0);
    await mcp.close();
  });

  it('returns raw repository content fenced as untrusted data', async () => {
    const mcp = await connectInMemory({ client: env.client });
    const result = await mcp.client.callTool({
      name: 'get_file_raw',
      arguments: { id: PUBLIC_PROJECT, file_path: 'README.md', ref: 'main' },
    });
    expect(result.isError).toBeFalsy();
    const text = resultText(result);
    expect(text).toMatch(/untrusted repository content/);
    expect(text).toMatch(/~~~~\n[\s\S]+\n~~~~/);
    expect((result.structuredContent as { sha256: string }).sha256).toMatch(/^[0-9a-f]{64}$/);
    await mcp.close();
  });

  it('caps a large list and says it did', async () => {
    const mcp = await connectInMemory({ client: env.client, maxResultChars: 2000 });
    const result = await mcp.client.callTool({ name: 'list_commits', arguments: { id: PUBLIC_PROJECT, per_page: 20 } });
    expect(result.isError).toBeFalsy();
    const structured = result.structuredContent as { items: unknown[]; truncated?: string };
    expect(structured.truncated).toMatch(/^showing the first \d+ of the \d+ results read/);
    await mcp.close();
  });
});

describe('a long stdio session of the built CLI', () => {
  const probeDir = mkdtempSync(join(tmpdir(), 'forgeops-long-session-'));
  afterAll(() => rmSync(probeDir, { recursive: true, force: true }));

  /**
   * Loaded into the spawned CLI: at each answer it writes to stdout, the size of V8's young generation (new space)
   * is appended to `log`, one number per answer, so the test sees it grow, or not, call by call.
   */
  function youngGenerationProbe(log: string): string {
    const probe = join(probeDir, 'probe.mjs');
    writeFileSync(
      probe,
      `import { appendFileSync } from 'node:fs';
import { getHeapSpaceStatistics } from 'node:v8';
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, ...rest) => {
  const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
  appendFileSync(${JSON.stringify(log)}, young.space_size + '\\n');
  return write(chunk, ...rest);
};\n`,
    );
    return probe;
  }

  it('keeps the young generation within twice its smallest size over 1,500 calls, so RSS stays flat', async () => {
    const log = join(probeDir, 'young.log');
    writeFileSync(log, '');
    const transport = cliStdioTransport(env.sandbox, { nodeArgs: ['--import', youngGenerationProbe(log)] });
    const mcp = new Client({ name: 'long-session-test', version: '1.0.0' });
    await mcp.connect(transport);
    try {
      await mcp.listTools();
      const sizes = () => readFileSync(log, 'utf8').split('\n').filter(Boolean).map(Number);
      const call = async () => {
        const result = await mcp.callTool({ name: 'list_pipelines', arguments: { id: PUBLIC_PROJECT, per_page: 20 } });
        expect(result.isError).toBeFalsy();
      };
      for (let i = 0; i < 1_500; i++) await call();
      // V8's default lets it double again and again, to 16–32 MiB, under a steady stream of calls: garbage kept for
      // throughput. Held, it moves between two sizes only (1 MiB for a moment between 2 MiB stretches), so the size at
      // any one call is no baseline (a test that took the first call's failed when that call fell in a 1 MiB moment).
      const seen = sizes();
      expect(Math.max(...seen.slice(-1_500))).toBeLessThanOrEqual(2 * Math.min(...seen));
    } finally {
      await mcp.close();
    }
  }, 120_000);
});
