// Resolves an operation's declared demo input (OperationSpec.examples) on a running sandbox: each demoLookup value
// becomes the field of the first item its GET lists, the example's own earlier values filling the path's `:key`s.
import type { DemoLookup } from '../../src/operations/engine/define.js';

/** A GET on the sandbox, answering the service's data. */
export type DemoRead = (path: string, query?: Record<string, string>) => Promise<unknown>;

function isLookup(value: unknown): value is DemoLookup {
  return typeof value === 'object' && value !== null && 'demoLookup' in value;
}

async function lookUp({ demoLookup: spec }: DemoLookup, input: Record<string, unknown>, read: DemoRead) {
  const path = spec.path.replace(/:([a-z_]+)/g, (_, key: string) => {
    if (!(key in input)) throw new Error(`demo lookup ${spec.path}: the example has no ${key} before it`);
    return encodeURIComponent(String(input[key]));
  });
  const answer = await read(path, spec.query);
  const list = (spec.items ? (answer as Record<string, unknown>)[spec.items] : answer) as Array<
    Record<string, unknown>
  >;
  const where = Object.entries(spec.where ?? {});
  const item = list.find((candidate) => where.every(([key, value]) => candidate[key] === value));
  if (!item) throw new Error(`the demo data has nothing at ${path}${where.length > 0 ? ' matching' : ''}`);
  return item[spec.field ?? 'id'];
}

/** The example's input with its lookups resolved, in its keys' order (a later lookup's path may use an earlier key). */
export async function resolveDemoInput(
  input: Record<string, unknown>,
  read: DemoRead,
): Promise<Record<string, unknown>> {
  const resolved: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input))
    resolved[key] = isLookup(value) ? await lookUp(value, resolved, read) : value;
  return resolved;
}
