// The tool catalog: what choosing and listing tools needs (name, area, effect, published descriptor) as plain data,
// and the registry itself (131 zod schemas) loaded only when a call needs it. `forgeops mcp` starts from a catalog
// computed at build time (tools/bundle.mjs), so a client sees the tools before any schema is built.
import type { Operation } from '../operations/define.js';
import { toolDescriptor, type ToolDescriptor } from './tools.js';

/** One tool as tools/list shows it, with the registry facts that decide whether it is offered. */
export interface CatalogTool extends Pick<Operation, 'name' | 'area' | 'effect'> {
  descriptor: ToolDescriptor;
}

export interface ToolCatalog {
  /** Every operation's tool, in registry order. */
  tools: readonly CatalogTool[];
  /** The operations themselves, loaded on first use and the same array every time. */
  operations(): Promise<readonly Operation[]>;
}

export function catalogTool(op: Operation): CatalogTool {
  // Computed when first listed, then kept: serve shares one catalog among all its sessions, so each tool's JSON
  // Schema is built once per process rather than once per session.
  let descriptor: ToolDescriptor | undefined;
  return { name: op.name, area: op.area, effect: op.effect, get descriptor() { return (descriptor ??= toolDescriptor(op)); } };
}

/** A catalog of operations already in memory (serve, tests). */
export function catalogOf(operations: readonly Operation[]): ToolCatalog {
  const tools = operations.map(catalogTool);
  return { tools, operations: async () => operations };
}

/** Plain data, as tools/bundle.mjs embeds it: the descriptor computed, not a getter. */
export function catalogData(operations: readonly Operation[]): CatalogTool[] {
  return operations.map((op) => ({ name: op.name, area: op.area, effect: op.effect, descriptor: toolDescriptor(op) }));
}

/**
 * The catalog the stdio server starts from: the one built into the bundle, with the registry imported on the first
 * call; run from source (tests, tsc output) there is none built in, and the registry is loaded at once instead.
 */
export async function startupCatalog(): Promise<ToolCatalog> {
  const { PREBUILT_TOOLS } = await import('./prebuilt-catalog.js');
  let loading: Promise<readonly Operation[]> | undefined;
  const operations = () => (loading ??= import('../operations/index.js').then((registry) => registry.operations));
  if (PREBUILT_TOOLS) return { tools: PREBUILT_TOOLS, operations };
  return catalogOf(await operations());
}
