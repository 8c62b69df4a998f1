// A watch hub and a branch watch on a test sandbox's client and manual clock, built the one way the watch, MCP and Slack
// unit tests build them.
import type { HttpClient } from '../../src/http/client.js';
import { operations } from '../../src/operations/index.js';
import type { ManualClock } from '../../src/sandbox/core/clock.js';
import { MemoryStore } from '../../src/state/store.js';
import { BranchWatch, type WatchEvent } from '../../src/watch/branch-watch.js';
import { WatchHub } from '../../src/watch/hub.js';
import { quietLog } from './watch.js';

type HubOptions = ConstructorParameters<typeof WatchHub>[0];

/**
 * A hub that checks through `env.client` (read at each check, so a sandbox started later is fine) on `clock`, with a
 * memory store on that clock, every operation, a quiet log and no jitter; `overrides` sets the rest (holder, store,
 * operations, log, peers, caps) or replaces any of those.
 */
export function sandboxWatchHub(
  env: { readonly client: HttpClient },
  clock: ManualClock,
  overrides: Partial<HubOptions> = {},
): WatchHub {
  return new WatchHub({
    store: new MemoryStore({ now: () => clock.now() }),
    operations: () => operations,
    runContext: () => ({ client: env.client }),
    log: quietLog,
    clock,
    random: () => 0,
    ...overrides,
  });
}

type BranchWatchOptions = ConstructorParameters<typeof BranchWatch>[0];

/**
 * A watch of acme/web that checks through `env.client` on `clock` and pushes what it tells into `events`; `options`
 * gives its store and operations and sets the rest (holder, interval, jitter, deployments).
 */
export function sandboxBranchWatch(
  env: { readonly client: HttpClient },
  clock: ManualClock,
  events: WatchEvent[],
  options: Pick<BranchWatchOptions, 'store' | 'operations'> & Partial<BranchWatchOptions>,
): BranchWatch {
  return new BranchWatch({
    project: 'acme/web',
    runContext: () => ({ client: env.client }),
    clock,
    onEvent: (event) => {
      events.push(event);
    },
    ...options,
  });
}
