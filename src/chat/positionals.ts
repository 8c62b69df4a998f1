// Which values a command takes without a key, in order: one rule for the grammar and the help.
import type { Operation } from '../operations/engine/define.js';
import { operations as registry } from '../operations/index.js';

const cache = new WeakMap<Operation, readonly string[]>();

/**
 * A command's path parameters in route order (`project member remove acme/web @erin`) and the values it names itself
 * (chatValues: `environment rollback acme/web production`), then, for a command that adds
 * an item to a list (a POST to a collection), the key that names the item in the item's own route — the value its
 * remove or delete takes there — so `project member add acme/web @erin` and `branch create acme/web experiment` read
 * as `project member remove acme/web @erin` and `branch delete acme/web experiment` do.
 */
export function positionalKeys(op: Operation, operations: readonly Operation[] = registry): readonly string[] {
  const known = cache.get(op);
  if (known) return known;
  const keys = [...op.pathParams, ...(op.chatValues ?? [])];
  if (op.method === 'POST') {
    const shape = op.input.shape as Record<string, unknown>;
    const item = operations
      .filter((other) => other !== op && other.path.startsWith(`${op.path}/:`))
      .map((other) => other.path.slice(op.path.length + 2))
      .find((name) => /^[a-z_]+$/.test(name) && name in shape && !keys.includes(name));
    if (item) keys.push(item);
  }
  cache.set(op, keys);
  return keys;
}
