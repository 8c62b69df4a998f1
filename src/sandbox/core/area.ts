// What a sandbox area is (its name, routes, seed and user-removal hook) and how it keeps state on the store
// without the core knowing it.
//
// An area is a folder src/sandbox/areas/<area>/ whose index.ts exports one SandboxArea; the list of
// them, areas/areas.generated.ts, is generated from the folders (tools/gen-sandbox-areas.mjs).
// The core (this folder) never imports an area; areas import the core, and another area only through that
// area's index (the allowed edges are listed in test/unit/architecture.test.ts).
//
// Area state: an area declares a typed slot once, at module level, and reads it through the store it is given:
//
//   const variablesOf = areaState('group_variables', () => ({ variables: [] as GroupVariable[] }));
//   variablesOf(store).variables.push(variable);
//
// The slot is created on first use, one per store (each sandbox has its own), and its key must be unique
// across areas (a second areaState with the same key throws when its module loads).
import type { SandboxContext } from './context.js';
import type { Router } from './router.js';
import type { Project, Store, User, UserRemovalHook } from './store.js';

/** What the core seed hands each area's seed: the demo accounts by username, the seed's clock, the written history. */
export interface SeedContext {
  /** The demo accounts (root, alice, bob, carol, dave, erin) by username. */
  users: Map<string, User>;
  /** The seed's "now" in ms; demo dates are fixed offsets before it. */
  epoch: number;
  /** The SHA of the last seeded commit on a branch of a seeded project (null when the branch has none). */
  branchHead(project: Project, branch: string): string | null;
}

export interface SandboxArea extends UserRemovalHook {
  /** The folder name under src/sandbox/areas. */
  readonly name: string;
  /** Declares the area's routes (see the guide in areas/index.ts). */
  readonly routes: (router: Router, ctx: SandboxContext) => void;
  /**
   * Declares the area's routes outside /api (the OAuth provider's pages and endpoints), on a router of kind 'web':
   * absolute patterns, auth 'none' (the handler reads cookies and tokens itself).
   */
  readonly webRoutes?: (router: Router, ctx: SandboxContext) => void;
  /**
   * Adds the area's demo data after the core seed. Areas seed in folder-name order, and no seeded id may depend on
   * it: take ids only of kinds no other area seeds (test/unit/sandbox/seed-order.test.ts).
   */
  readonly seed?: (store: Store, seed: SeedContext) => void;
}

const keys = new Set<string>();

/** Declares an area's per-store state: returns the accessor, which creates the state on first use. */
export function areaState<T>(key: string, init: (store: Store) => T): (store: Store) => T {
  if (keys.has(key)) throw new Error(`area state '${key}' is declared twice`);
  keys.add(key);
  return (store) => store.slot(key, () => init(store));
}
