// Reading a job log costs what its size allows, whatever it holds: logs crafted against the parser (runner section
// markers by the hundred thousand, on one line or unclosed, very long lines, carriage-return storms) are read in a
// child process that is stopped if it does not finish in a generous time (no time is asserted: a quadratic parser
// takes minutes there, a linear one a second); and each bound of the budget (characters, lines, sections, line
// length, time on an injected clock) leaves out the oldest part and says so.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { LOG_BUDGET, readJobLog, viewJobLog } from '../../../src/operations/areas/shared/job-log.js';
import { HOSTILE_LOGS, ordinaryLog } from '../../../tools/bench/hostile-logs.mjs';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'forgeops-job-log-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** How long the child may take for all the logs together before it counts as hung. */
const HANG_GUARD_MS = 60_000;
const LOG_BYTES = 2 * 1024 * 1024;

interface Summary {
  name: string;
  chars: number;
  lines: number;
  sections: number;
  shown: number;
  skipped: string[];
}

/** Bundles the parser as it is in src/ and reads every hostile log with it in a child process, within the guard. */
async function readHostileLogsInChild(): Promise<{
  summaries: Summary[];
  code: number | null;
  stopped: boolean;
  stderr: string;
}> {
  const bundle = join(work, 'job-log.mjs');
  await build({
    entryPoints: [join(root, 'src/operations/areas/shared/job-log.ts')],
    bundle: true,
    format: 'esm',
    platform: 'node',
    outfile: bundle,
    logLevel: 'silent',
  });
  const driver = join(work, 'driver.mjs');
  writeFileSync(
    driver,
    [
      `import { readJobLog, viewJobLog, failingExcerpt } from ${JSON.stringify(bundle)};`,
      `import { HOSTILE_LOGS } from ${JSON.stringify(join(root, 'tools/bench/hostile-logs.mjs'))};`,
      'for (const [name, make] of Object.entries(HOSTILE_LOGS)) {',
      `  const raw = make(${LOG_BYTES});`,
      '  const log = readJobLog(raw);',
      '  const all = viewJobLog(log, { all: true });',
      '  viewJobLog(log, { lines: 200 });',
      '  failingExcerpt(log);',
      '  console.log(JSON.stringify({ name, chars: raw.length, lines: log.lines.length, sections: log.sections.length, shown: all.text.length, skipped: log.skipped ?? [] }));',
      '}',
    ].join('\n'),
  );
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [driver], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let stopped = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const guard = setTimeout(() => {
      stopped = true;
      child.kill('SIGKILL');
    }, HANG_GUARD_MS);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(guard);
      const summaries = stdout
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Summary);
      resolve({ summaries, code, stopped, stderr });
    });
  });
}

describe('hostile logs', () => {
  it('are each read whole, within the section budget, by a parser that does not hang on them', {
    timeout: HANG_GUARD_MS + 30_000,
  }, async () => {
    const run = await readHostileLogsInChild();
    const read = run.summaries.map((s) => s.name);
    expect(
      run.stopped,
      `still reading after ${HANG_GUARD_MS / 1000} s; finished only: ${read.join(', ') || 'none'}`,
    ).toBe(false);
    expect(run.code, run.stderr).toBe(0);
    expect(read).toEqual(Object.keys(HOSTILE_LOGS));
    for (const summary of run.summaries) {
      expect(summary.chars, summary.name).toBe(LOG_BYTES);
      expect(summary.sections, summary.name).toBeLessThanOrEqual(LOG_BUDGET.sections);
      expect(summary.shown, summary.name).toBeLessThanOrEqual(60_000);
    }
    // Crafted to carry more sections than the budget names: the log says so.
    for (const name of ['markers on one line', 'unclosed starts', 'alternating start and end']) {
      const summary = run.summaries.find((s) => s.name === name)!;
      expect(summary.sections, name).toBe(LOG_BUDGET.sections);
      expect(summary.skipped.join(' '), name).toMatch(/the names of \d+ more sections/);
    }
  });
});

/** A log of `count` lines, "line 1" to "line <count>". */
const numbered = (count: number) => Array.from({ length: count }, (_, i) => `line ${i + 1}`).join('\n');

describe('the budget of one log', () => {
  it('names at most `sections` sections and counts the rest', () => {
    const log = readJobLog(HOSTILE_LOGS['unclosed starts'](64 * 1024), { budget: { sections: 100 } });
    expect(log.sections).toHaveLength(100);
    expect(log.skipped).toEqual([
      expect.stringMatching(/^the names of \d+ more sections \(a log's first 100 sections are named\)$/),
    ]);
    // Markers past the budget are still taken out of the text.
    expect(log.lines.join('\n')).not.toContain('section_');
  });

  it('reads the last `lines` lines and the last `chars` characters', () => {
    const byLines = readJobLog(numbered(1000), { budget: { lines: 50 } });
    expect(byLines.lines).toHaveLength(50);
    expect(byLines.lines.at(-1)).toBe('line 1000');
    expect(byLines.skipped).toEqual(['the lines before the last 50 (a log is read up to its last 50 lines)']);
    const text = numbered(1000);
    const byChars = readJobLog(text, { budget: { chars: 100 } });
    expect(byChars.lines.at(-1)).toBe('line 1000');
    expect(byChars.lines.join('\n').length).toBeLessThanOrEqual(100);
    expect(byChars.skipped[0]).toMatch(/^the first \d+ characters \(a log is read up to its last 100 characters\)$/);
  });

  it('cuts a line longer than `lineChars`, saying how much is left out', () => {
    const log = readJobLog(`before\n${'word '.repeat(20_000)}\nafter`, { budget: { lineChars: 1000 } });
    expect(log.lines[1].length).toBeLessThan(1100);
    expect(log.lines[1]).toMatch(/ …\[\d+ more characters of this line\]$/);
    expect(log.lines).toEqual(['before', log.lines[1], 'after']);
  });

  it('stops after `ms` milliseconds of its clock, leaving the oldest lines unread', () => {
    let now = 0;
    // Each look at the clock finds one millisecond gone.
    const log = readJobLog(numbered(10_000), { budget: { ms: 5 }, clock: () => now++ });
    expect(log.lines.at(-1)).toBe('line 10000');
    expect(log.lines.length).toBeLessThan(10_000);
    expect(log.lines.length).toBeGreaterThan(0);
    expect(log.lines[0]).toBe(`line ${10_001 - log.lines.length}`);
    expect(log.skipped).toEqual([
      `the first ${10_000 - log.lines.length} lines (reading a log stops after 5 ms; its newest lines are read first)`,
    ]);
  });

  it('reads an ordinary log whole and says nothing was skipped', () => {
    const log = readJobLog(ordinaryLog(256 * 1024));
    expect(log.skipped).toEqual([]);
    expect(log.firstError).toBeDefined();
    expect(log.sections.length).toBeGreaterThan(5);
  });
});

describe('viewJobLog', () => {
  it('shows at most `maxChars` characters, newest lines first, even with all', () => {
    const log = readJobLog(numbered(20_000));
    const view = viewJobLog(log, { all: true, maxChars: 5000 });
    expect(view.text.length).toBeLessThanOrEqual(5000);
    expect(view.text.endsWith('line 20000')).toBe(true);
    expect(view.cut).toBe(true);
    expect(view.from).toBe(20_001 - view.text.split('\n').length);
  });
});

describe('small hostile logs', () => {
  it.each(Object.keys(HOSTILE_LOGS))('%s: read at any size, down to a log with no line left', (name) => {
    for (const bytes of [0, 1, 20, 300, 4096, 32 * 1024]) {
      const log = readJobLog(HOSTILE_LOGS[name as keyof typeof HOSTILE_LOGS](bytes));
      for (const section of log.sections) {
        expect(section.from, `${name} at ${bytes} bytes`).toBeGreaterThanOrEqual(1);
        expect(section.to, `${name} at ${bytes} bytes`).toBeGreaterThanOrEqual(section.from);
        expect(section.to, `${name} at ${bytes} bytes`).toBeLessThanOrEqual(log.lines.length + 1);
      }
    }
  });
});
