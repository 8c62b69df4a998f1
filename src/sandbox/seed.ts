// The sandbox's demo data: the core seed (accounts, groups, projects with history, pipelines, releases), then each
// area's seed in the order of areas/index.ts.
import { AREAS } from './areas/index.js';
import { seedCore } from './core/seed.js';
import type { Store } from './core/store.js';

/** Fills an empty store with the demo data. */
export async function seed(store: Store): Promise<void> {
  const context = await seedCore(store);
  for (const area of AREAS) area.seed?.(store, context);
}
