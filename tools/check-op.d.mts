// Types of check-op.mjs for the tests that import it.
export function nearNames(name: string, names: readonly string[], max?: number): string[];
export function planFor(
  op: { name: string; area: string; effect: string; outsideSpec?: string },
  exists?: (path: string) => boolean,
): string[][];
