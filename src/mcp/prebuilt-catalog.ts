// The tool catalog and the initialize answer computed at build time: tools/bundle.mjs replaces this module in the
// bundle with the catalog data of the registry (catalogData in catalog.ts) and what the server's initialize answers
// (see stdio-front.ts); here, run from source, there is neither.
import type { CatalogTool } from './catalog.js';

export const PREBUILT_TOOLS: readonly CatalogTool[] | undefined = undefined;

/** What the stdio server answers to initialize, as the SDK's Server answers it; `instructions` by whether meta tools are offered. */
export interface PrebuiltStart {
  /** The protocol revisions the SDK accepts as asked; any other is answered with `latestProtocolVersion`. */
  protocolVersions: readonly string[];
  latestProtocolVersion: string;
  serverInfo: { name: string; version: string };
  capabilities: Record<string, unknown>;
  instructions: { withMeta: string; withoutMeta: string };
}

export const PREBUILT_START: PrebuiltStart | undefined = undefined;
