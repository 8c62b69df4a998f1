// The tool catalog: plain data that lists the same tools as the registry, and a server that loads the registry on
// its first call only (the stdio fast start), driven by the SDK's client.
import { describe, expect, it } from 'vitest';
import { operations } from '../../../src/operations/index.js';
import type { Operation } from '../../../src/operations/define.js';
import { catalogData, catalogOf, startupCatalog, type ToolCatalog } from '../../../src/mcp/catalog.js';
import { toolDescriptor } from '../../../src/mcp/tools.js';
import { connectInMemory, resultText, useSandbox } from '../../helpers/mcp.js';

const env = useSandbox();

/** A catalog as the bundle embeds it (JSON and back), counting how often the registry is asked for. */
function prebuilt(): ToolCatalog & { loads: number } {
  const tools = JSON.parse(JSON.stringify(catalogData(operations))) as ToolCatalog['tools'];
  const catalog = {
    tools,
    loads: 0,
    async operations(): Promise<readonly Operation[]> {
      catalog.loads += 1;
      return operations;
    },
  };
  return catalog;
}

describe('catalogData', () => {
  it('holds each operation\'s name, area, effect and toolDescriptor, in registry order, as plain JSON', () => {
    const data = JSON.parse(JSON.stringify(catalogData(operations))) as ReturnType<typeof catalogData>;
    expect(data.map((tool) => tool.name)).toEqual(operations.map((op) => op.name));
    for (const [i, op] of operations.entries()) {
      expect(data[i]).toEqual({ name: op.name, area: op.area, effect: op.effect, descriptor: toolDescriptor(op) });
    }
    expect(catalogOf(operations).tools.map((tool) => tool.descriptor)).toEqual(data.map((tool) => tool.descriptor));
  });
});

describe('a server started from a prebuilt catalog', () => {
  it('lists every tool without loading the registry, then loads it once, on the first call', async () => {
    const catalog = prebuilt();
    const fromCatalog = await connectInMemory({ client: env.client, operations: catalog });
    const live = await connectInMemory({ client: env.client });
    try {
      expect((await fromCatalog.client.listTools()).tools).toEqual((await live.client.listTools()).tools);
      expect(catalog.loads).toBe(0);
      const first = await fromCatalog.client.callTool({ name: 'list_pipelines', arguments: { id: 'acme/web', per_page: 1 } });
      const second = await fromCatalog.client.callTool({ name: 'get_pipeline', arguments: { id: 'acme/web', pipeline_id: 'one' } });
      expect(first.isError).toBeFalsy();
      expect(resultText(second)).toMatch(/pipeline_id/);
      // Loaded by the first call, and kept for the session.
      expect(catalog.loads).toBe(1);
    } finally {
      await fromCatalog.close();
      await live.close();
    }
  });

  it('with warm-up (stdio), loads the registry once the tool list is answered, before any call, and only once', async () => {
    const catalog = prebuilt();
    const mcp = await connectInMemory({ client: env.client, operations: catalog, warmUpAfterToolsList: true });
    try {
      expect(catalog.loads).toBe(0);
      await mcp.client.listTools();
      // Bounded: 100 turns of 10 ms.
      for (let i = 0; i < 100 && catalog.loads === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(catalog.loads).toBe(1);
      await mcp.client.listTools();
      expect((await mcp.client.callTool({ name: 'list_pipelines', arguments: { id: 'acme/web', per_page: 1 } })).isError).toBeFalsy();
      expect(catalog.loads).toBe(1);
    } finally {
      await mcp.close();
    }
  });

  it('filters by toolset and read-only mode on the catalog\'s facts, and tells unknown from not offered without loading', async () => {
    const catalog = prebuilt();
    const mcp = await connectInMemory({ client: env.client, operations: catalog, toolsets: ['pipelines'], readOnly: true });
    try {
      const names = (await mcp.client.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(operations.filter((op) => op.area === 'pipelines' && op.effect === 'read').map((op) => op.name));
      expect(resultText(await mcp.client.callTool({ name: 'delete_pipeline', arguments: {} }))).toMatch(/not offered by this server/);
      expect(resultText(await mcp.client.callTool({ name: 'delete_everything', arguments: {} }))).toBe('Unknown tool delete_everything.');
      expect(catalog.loads).toBe(0);
    } finally {
      await mcp.close();
    }
  });
});

describe('startupCatalog', () => {
  it('run from source, with no catalog built in, is the live registry', async () => {
    const catalog = await startupCatalog();
    expect(await catalog.operations()).toBe(operations);
    expect(catalog.tools.map((tool) => tool.descriptor)).toEqual(operations.map(toolDescriptor));
  });
});
