// The tool catalog: what choosing and listing tools needs (name, area, effect, route, published descriptor) as plain
// data, and the operations themselves loaded only when a call needs them. `forgeops mcp` starts from a catalog
// computed at build time (tools/bundle.mjs), so a client sees the tools before any schema is built, and a call
// builds the schemas of its own area only (operations/area-loaders.ts).
import type { Operation, OperationRoute } from '../operations/engine/define.js';
import { type CatalogTool, toolDescriptor, type ToolDescriptor } from './tools.js';

export type { CatalogTool } from './tools.js';

export interface ToolCatalog {
  /** Every operation's tool, in registry order. */
  tools: readonly CatalogTool[];
  /** The operations themselves, loaded on first use and the same array every time. */
  operations(): Promise<readonly Operation[]>;
  /** One operation, loading as little as it can (in the bundle, its area); undefined for a name not in the catalog. */
  operation(name: string): Promise<Operation | undefined>;
}

function routeOf(op: Operation): OperationRoute {
  return {
    name: op.name,
    method: op.method,
    path: op.path,
    pathParams: op.pathParams,
    response: op.response,
    ...(op.composedOf && { composedOf: op.composedOf }),
  };
}

function catalogTool(op: Operation): CatalogTool {
  // Computed when first listed, then kept: serve shares one catalog among all its sessions, so each tool's JSON
  // Schema is built once per process rather than once per session.
  let descriptor: ToolDescriptor | undefined;
  return {
    ...routeOf(op),
    area: op.area,
    effect: op.effect,
    get descriptor() {
      return (descriptor ??= toolDescriptor(op));
    },
  };
}

/** A catalog of operations already in memory (serve, tests). */
export function catalogOf(operations: readonly Operation[]): ToolCatalog {
  const tools = operations.map(catalogTool);
  const byName = new Map(operations.map((op) => [op.name, op]));
  return { tools, operations: async () => operations, operation: async (name) => byName.get(name) };
}

/** Plain data, as tools/bundle.mjs embeds it: the descriptor computed, not a getter. */
export function catalogData(operations: readonly Operation[]): CatalogTool[] {
  return operations.map((op) => ({ ...routeOf(op), area: op.area, effect: op.effect, descriptor: toolDescriptor(op) }));
}

/**
 * A catalog from data built into the bundle: each call loads its operation's area, and the whole registry (`whole`)
 * is loaded only for what needs it (the meta tools, a composed triage).
 */
export function prebuiltCatalog(
  tools: readonly CatalogTool[],
  whole: () => Promise<readonly Operation[]>,
): ToolCatalog {
  const areaOf = new Map(tools.map((tool) => [tool.name, tool.area]));
  let loading: Promise<readonly Operation[]> | undefined;
  let byName: ReadonlyMap<string, Operation> | undefined;
  const operations = () =>
    (loading ??= whole().then((all) => {
      byName = new Map(all.map((op) => [op.name, op]));
      return all;
    }));
  return {
    tools,
    operations,
    async operation(name) {
      const area = areaOf.get(name);
      if (!area) return undefined;
      if (byName) return byName.get(name);
      const { AREA_LOADERS } = await import('../operations/area-loaders.js');
      // A composed operation (triage) is no area module's: the whole registry makes it.
      const own = (await AREA_LOADERS[area]()).find((op) => op.name === name);
      return own ?? (await operations()).find((op) => op.name === name);
    },
  };
}

/**
 * The catalog the stdio server starts from: the one built into the bundle; run from source (tests, tsc output)
 * there is none built in, and the registry is loaded at once instead.
 */
export async function startupCatalog(): Promise<ToolCatalog> {
  const { PREBUILT_TOOLS } = await import('./prebuilt-catalog.js');
  const whole = async () => (await import('../operations/index.js')).operations;
  return PREBUILT_TOOLS ? prebuiltCatalog(PREBUILT_TOOLS, whole) : catalogOf(await whole());
}
