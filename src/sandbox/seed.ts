// The sandbox's demo data: the core seed (accounts, groups, projects with history, pipelines, releases), then each
// area's seed. No seeded id depends on which areas seed before it (test/unit/sandbox/seed-order.test.ts), so the
// areas run in the generated list's alphabetical order.
import type { SandboxArea } from './core/area.js';
import { AREAS } from './areas/index.js';
import { seedCore } from './core/seed.js';
import type { Store } from './core/store.js';

/** Fills an empty store with the demo data; `areas` is every area but in a test that seeds them in other orders. */
export async function seed(store: Store, areas: readonly SandboxArea[] = AREAS): Promise<void> {
  const context = await seedCore(store);
  for (const area of areas) area.seed?.(store, context);
}
