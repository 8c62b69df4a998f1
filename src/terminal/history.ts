// The terminal chat's command history in a file (only where the operator chose a data directory), newest first.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Lines kept, in memory and in the file. */
export const HISTORY_SIZE = 1000;
/** y/N answers go through the same line editor; they are not commands worth recalling. */
const ANSWER = /^\s*(y|yes|n|no)?\s*$/i;

export interface HistoryFile {
  path: string;
  /** Newest first, as readline wants it; empty when the file does not exist yet. */
  load(): string[];
  save(lines: readonly string[]): void;
}

export function historyFile(dataDir: string): HistoryFile {
  const path = join(dataDir, 'chat-history');
  return {
    path,
    load() {
      try {
        return readFileSync(path, 'utf8')
          .split('\n')
          .filter((line) => line !== '')
          .reverse()
          .slice(0, HISTORY_SIZE);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw error;
      }
    },
    save(lines) {
      const kept = lines.filter((line) => !ANSWER.test(line) && !line.includes('\n')).slice(0, HISTORY_SIZE);
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      // Commands may carry file content: readable by the owner only, and replaced whole so a crash leaves no half file.
      const temporary = `${path}.${process.pid}.tmp`;
      writeFileSync(temporary, kept.length > 0 ? `${[...kept].reverse().join('\n')}\n` : '', { mode: 0o600 });
      renameSync(temporary, path);
    },
  };
}
