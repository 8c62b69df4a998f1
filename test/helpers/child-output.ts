// What a spawned child prints, kept by the test (stdout and stderr as they come) to show when it fails.
import type { ChildProcess } from 'node:child_process';

/** Hands every chunk `child` writes to stdout or stderr, as text, to `keep`. */
export function onOutput(child: ChildProcess, keep: (text: string) => void): void {
  child.stdout?.on('data', (chunk: Buffer) => keep(chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => keep(chunk.toString()));
}
