// The chat dispatcher as most tests want it: the registry (or the operations given), nothing read-only, every call
// on one client, no default project; `changes` replace any of that (dry run, another run context, the front).
import { createDispatcher, type DispatchContext } from '../../src/chat/dispatch.js';
import type { ApiTransport } from '../../src/http/types.js';
import { operations as registry } from '../../src/operations/index.js';

/** A dispatcher whose calls run on `client()` (read at each call: a sandbox's client exists only once it started). */
export function testDispatcher(client: () => ApiTransport, changes: Partial<DispatchContext> = {}) {
  const operations = changes.operations ?? registry;
  return createDispatcher({
    operations,
    policy: { readOnly: false },
    runContext: () => ({ client: client() }),
    explain: { operations },
    defaultProject: { get: () => undefined, set: () => undefined },
    ...changes,
  });
}
