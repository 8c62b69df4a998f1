// What a spawned child prints, kept by the test (stdout and stderr as they come) to show when it fails, and where a
// `forgeops serve` on port 0 says it listens.
import type { ChildProcess } from 'node:child_process';

/** Hands every chunk `child` writes to stdout or stderr, as text, to `keep`. */
export function onOutput(child: ChildProcess, keep: (text: string) => void): void {
  child.stdout?.on('data', (chunk: Buffer) => keep(chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => keep(chunk.toString()));
}

/**
 * Where `forgeops serve` started with `--port 0` listens (http://127.0.0.1:PORT), read from the banner it prints once
 * it does: the system gives it the port as it binds, so no other program can be given that port first.
 */
export function servedAt(output: string): string | undefined {
  return /forgeops MCP server: (http:\/\/\S+)\/mcp/.exec(output)?.[1];
}

/**
 * The address of a `forgeops serve` started with `--port 0`, once it printed it and its /readyz says ready (bounded:
 * 400 checks of 50 ms, as a loaded 2-core machine takes seconds to start it); `what` names it when it never is.
 */
export async function servedReady(output: () => string, what = 'serve'): Promise<string> {
  for (let i = 0; i < 400; i++) {
    const base = servedAt(output());
    const ready =
      base !== undefined &&
      (await fetch(`${base}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      ));
    if (ready) return base;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${what} did not become ready:\n${output()}`);
}
