// The tool catalog: plain data that lists the same tools as the registry, and a server that loads an operation's
// area on the first call that needs it, the whole registry only for the meta tools (the stdio fast start), driven by
// the SDK's client.
import { describe, expect, it } from 'vitest';
import { operations } from '../../../src/operations/index.js';
import type { Operation } from '../../../src/operations/engine/define.js';
import { catalogData, catalogOf, prebuiltCatalog, startupCatalog, type ToolCatalog } from '../../../src/mcp/catalog.js';
import { toolDescriptor } from '../../../src/mcp/tools.js';
import type { ApiTransport } from '../../../src/http/types.js';
import { type ConnectOptions, connectInMemory, resultText, useSandbox } from '../../helpers/mcp.js';

const env = useSandbox();

/**
 * A catalog as the bundle embeds it (JSON and back), recording which operations were asked for one by one and how
 * often the whole registry was loaded.
 */
function prebuilt(): ToolCatalog & { asked: string[]; wholeLoads: number } {
  const tools = JSON.parse(JSON.stringify(catalogData(operations))) as ToolCatalog['tools'];
  const inner = prebuiltCatalog(tools, async (): Promise<readonly Operation[]> => {
    catalog.wholeLoads += 1;
    return operations;
  });
  const catalog = {
    tools,
    asked: [] as string[],
    wholeLoads: 0,
    operations: inner.operations,
    async operation(name: string) {
      catalog.asked.push(name);
      return inner.operation(name);
    },
  };
  return catalog;
}

/** The SDK's client on a server whose tools come from `catalog`, on the sandbox unless `options` names another client. */
const serving = (catalog: ToolCatalog, options: Partial<ConnectOptions> = {}) =>
  connectInMemory({ client: env.client, operations: catalog, ...options });

/** stdio's warm-up: the areas of the offered tools load once the tool list is answered. */
const WARM_UP: Partial<ConnectOptions> = { warmUpAfterToolsList: true, toolsets: ['default'] };

describe('catalogData', () => {
  it("holds each operation's name, area, effect, route and toolDescriptor, in registry order, as plain JSON", () => {
    const data = JSON.parse(JSON.stringify(catalogData(operations))) as ReturnType<typeof catalogData>;
    expect(data.map((tool) => tool.name)).toEqual(operations.map((op) => op.name));
    for (const [i, op] of operations.entries()) {
      expect(data[i]).toEqual({
        name: op.name,
        area: op.area,
        effect: op.effect,
        method: op.method,
        path: op.path,
        pathParams: op.pathParams,
        response: op.response,
        ...(op.composedOf && { composedOf: op.composedOf }),
        descriptor: toolDescriptor(op),
      });
    }
    expect(catalogOf(operations).tools.map((tool) => tool.descriptor)).toEqual(data.map((tool) => tool.descriptor));
  });
});

describe('a server started from a prebuilt catalog', () => {
  it("lists every tool without loading any operation, then loads each call's own, never the whole registry", async () => {
    const catalog = prebuilt();
    const fromCatalog = await serving(catalog);
    const live = await connectInMemory({ client: env.client });
    try {
      expect((await fromCatalog.client.listTools()).tools).toEqual((await live.client.listTools()).tools);
      expect(catalog.asked).toEqual([]);
      const first = await fromCatalog.client.callTool({
        name: 'list_pipelines',
        arguments: { id: 'acme/web', per_page: 1 },
      });
      const second = await fromCatalog.client.callTool({
        name: 'get_pipeline',
        arguments: { id: 'acme/web', pipeline_id: 'one' },
      });
      expect(first.isError).toBeFalsy();
      // The list names its detail tool from the catalog's routes, as the live registry does.
      const live1 = await live.client.callTool({ name: 'list_pipelines', arguments: { id: 'acme/web', per_page: 1 } });
      expect(first.structuredContent).toEqual(live1.structuredContent);
      expect(resultText(second)).toMatch(/pipeline_id/);
      expect(catalog.asked).toEqual(['list_pipelines', 'get_pipeline']);
      expect(catalog.wholeLoads).toBe(0);
    } finally {
      await fromCatalog.close();
      await live.close();
    }
  });

  it('with warm-up (stdio), loads the areas of the offered tools once the tool list is answered, before any call, once', async () => {
    const catalog = prebuilt();
    const mcp = await serving(catalog, WARM_UP);
    try {
      expect(catalog.asked).toEqual([]);
      const offered = (await mcp.client.listTools()).tools
        .map((tool) => operations.find((op) => op.name === tool.name))
        .filter((op) => op !== undefined);
      const firstOfEachArea = offered
        .filter((op, i) => offered.findIndex((other) => other.area === op.area) === i)
        .map((op) => op.name);
      expect(firstOfEachArea.length).toBeGreaterThan(3);
      // Bounded: 100 turns of 10 ms.
      for (let i = 0; i < 100 && catalog.asked.length < firstOfEachArea.length; i++)
        await new Promise((resolve) => setTimeout(resolve, 10));
      expect(catalog.asked).toEqual(firstOfEachArea);
      await mcp.client.listTools();
      expect(
        (await mcp.client.callTool({ name: 'list_pipelines', arguments: { id: 'acme/web', per_page: 1 } })).isError,
      ).toBeFalsy();
      expect(catalog.asked).toEqual([...firstOfEachArea, 'list_pipelines']);
      expect(catalog.wholeLoads).toBe(0);
      // A meta tool searches every operation: the whole registry, once.
      await mcp.client.callTool({ name: 'find_operations', arguments: { query: 'scim user' } });
      await mcp.client.callTool({ name: 'find_operations', arguments: { query: 'branch' } });
      expect(catalog.wholeLoads).toBe(1);
    } finally {
      await mcp.close();
    }
  });

  it('with warm-up, loads nothing while a call runs; then the HTTP client, then the areas', async () => {
    const catalog = prebuilt();
    // The service's client: its first request is held until released, and its warm-up is recorded.
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let requests = 0;
    const client: ApiTransport = {
      async request(req) {
        requests += 1;
        if (requests === 1) await held;
        return env.client.request(req);
      },
      async warmUp() {
        catalog.asked.push('(http client)');
      },
    };
    const mcp = await serving(catalog, { ...WARM_UP, client });
    const waitUntil = async (done: () => boolean) => {
      // Bounded: 100 turns of 10 ms.
      for (let i = 0; i < 100 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    };
    try {
      const offered = (await mcp.client.listTools()).tools
        .map((tool) => operations.find((op) => op.name === tool.name))
        .filter((op) => op !== undefined);
      const call = mcp.client.callTool({ name: 'list_pipelines', arguments: { id: 'acme/web', per_page: 1 } });
      await waitUntil(() => requests > 0);
      // Long past the warm-up's grace: it waits for the call rather than loading beside it.
      for (let turn = 0; turn < 10; turn++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(catalog.asked).toEqual(['list_pipelines']);
      release();
      expect((await call).isError).toBeFalsy();
      const firstOfEachArea = offered
        .filter((op, i) => offered.findIndex((other) => other.area === op.area) === i)
        .map((op) => op.name);
      const expected = ['list_pipelines', '(http client)', ...firstOfEachArea];
      await waitUntil(() => catalog.asked.length >= expected.length);
      expect(catalog.asked).toEqual(expected);
    } finally {
      release();
      await mcp.close();
    }
  });

  it("filters by toolset and read-only mode on the catalog's facts, and tells unknown from not offered without loading", async () => {
    const catalog = prebuilt();
    const mcp = await serving(catalog, { toolsets: ['pipelines'], readOnly: true });
    try {
      const names = (await mcp.client.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(
        operations.filter((op) => op.area === 'pipelines' && op.effect === 'read').map((op) => op.name),
      );
      expect(resultText(await mcp.client.callTool({ name: 'delete_pipeline', arguments: {} }))).toMatch(
        /not offered by this server/,
      );
      expect(resultText(await mcp.client.callTool({ name: 'delete_everything', arguments: {} }))).toBe(
        'Unknown tool delete_everything.',
      );
      expect(catalog.asked).toEqual([]);
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
