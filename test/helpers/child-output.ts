// What a spawned child prints, kept by the test (stdout and stderr as they come) to show when it fails.
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
