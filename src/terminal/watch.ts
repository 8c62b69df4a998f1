// `watch <project> [branch]` in the terminal chat: the branch's state at once, then each transition of a red episode
// as it happens, one line each, until Ctrl+C. A chat-local command (no registry operation, so no MCP tool): a person
// at a terminal watches for themselves, with a store of their own, so what they see never depends on a replica.
import { commandLine } from '../chat/command-line.js';
import { tokenize } from '../chat/tokens.js';
import { safeText } from './render.js';
import type { Operation, RunContext } from '../operations/engine/define.js';
import { failureText } from '../operations/composed/failure-kind.js';
import { shortSha } from '../operations/engine/present.js';
import { fixedByText } from '../operations/composed/fixed-by.js';
import { momentText } from '../operations/engine/present.js';
import { spanText, type TriageReport } from '../operations/composed/triage.js';
import { reachText } from '../operations/composed/culprit-reach.js';
import { MemoryStore } from '../state/store.js';
import { type Clock, realClock } from '../clock.js';
import { BranchWatch, type WatchEvent } from '../watch/branch-watch.js';

interface TerminalWatchOptions {
  operations: () => readonly Operation[];
  runContext: () => RunContext;
  clock?: Clock;
  intervalMs?: number;
}

interface FollowIO {
  /** Aborted by Ctrl+C: the watch ends and the prompt comes back. */
  signal: AbortSignal;
  write(text: string): void;
}

const WATCH_USAGE = "watch <project> [branch]: prints the branch's state, then each change, until Ctrl+C";

/**
 * The red report in a few lines: why, flaky or broken, since which commit and whose, where it went (triage's own
 * words), what failed, what to type.
 */
function redLines(report: TriageReport, now: number, operations: readonly Operation[]): string[] {
  const lines = [`  ${report.because}`];
  if (report.failure)
    lines.push(
      ...failureText(report.failure)
        .split('\n')
        .map((line) => `  ${line}`),
    );
  const first = report.red_since?.first_red;
  if (first)
    lines.push(
      `  first red: #${first.pipeline} at ${shortSha(first.sha)}${first.title ? ` ${first.title}` : ''}${first.author ? ` (${first.author})` : ''}`,
    );
  // Said before the rollbacks typed out below, so the offer to roll back comes with why.
  if (report.deployed) lines.push(`  where it went: ${reachText(report.deployed, now)}`);
  for (const job of report.failed_jobs)
    lines.push(`  failed: ${job.name} (#${job.id})${job.failing_section ? ` in ${job.failing_section}` : ''}`);
  // What to press, typed out: the report's own steps as the chat's commands.
  const byName = new Map(operations.map((op) => [op.name, op]));
  for (const action of report.actions) {
    const op = action.row === undefined ? byName.get(action.operation) : undefined;
    if (op)
      lines.push(
        `  → ${action.label.charAt(0).toLowerCase()}${action.label.slice(1)}: ${commandLine(op, action.input)}`,
      );
  }
  return lines;
}

/** "!6's pipeline #23 failed at test", "… passed", "… is running": the followed revert's own pipeline. */
function revertPipelineText(event: Extract<WatchEvent, { kind: 'revert' }>): string {
  const { pipeline, revert, failedJob } = event;
  const whose = `!${revert.iid}'s pipeline #${pipeline.id}`;
  if (pipeline.status === 'failed') return `${whose} failed${failedJob ? ` at ${failedJob.name}` : ''}`;
  if (pipeline.status === 'success') return `${whose} passed`;
  return `${whose} is ${pipeline.status}`;
}

/** The revert's pipeline failed: its retry, typed out as the chat's command. */
function retryLine(event: Extract<WatchEvent, { kind: 'revert' }>, operations: readonly Operation[]): string[] {
  const retry = operations.find((op) => op.name === 'retry_pipeline');
  if (!retry || (event.pipeline.status !== 'failed' && event.pipeline.status !== 'canceled')) return [];
  return [
    `  → retry pipeline #${event.pipeline.id} of !${event.revert.iid}: ${commandLine(retry, { id: event.project, pipeline_id: event.pipeline.id })}`,
  ];
}

/**
 * One event as the lines a person reads, stamped with the time it was seen. Commit titles, names and job names are
 * anyone's text: an escape sequence among them is spelled out, never run by the terminal.
 */
export function watchEventText(event: WatchEvent, now: number, operations: readonly Operation[] = []): string {
  return safeText(eventText(event, now, operations));
}

function eventText(event: WatchEvent, now: number, operations: readonly Operation[]): string {
  const where = `${event.project} ${event.ref}`;
  const stamp = `[${momentText(new Date(now), now)}]`;
  switch (event.kind) {
    case 'watching': {
      const word = event.report.verdict === 'green' ? 'green' : event.report.verdict;
      return `${stamp} ${where} is ${word}: ${event.report.because}`;
    }
    case 'red':
      return [`${stamp} ${where} is RED`, ...redLines(event.report, now, operations)].join('\n');
    case 'running':
      return `${stamp} ${where}: pipeline #${event.pipeline.id} is ${event.pipeline.status} on ${shortSha(event.pipeline.sha)}`;
    case 'still-red':
      return [`${stamp} ${where} is still red`, ...redLines(event.report, now, operations)].join('\n');
    case 'green':
      return `${stamp} ${where} is green again after ${spanText(event.redForMs)}: fixed by ${fixedByText(event.fixedBy, event.fixedByMergeRequest)}`;
    case 'revert':
      return [`${stamp} ${where}: ${revertPipelineText(event)}`, ...retryLine(event, operations)].join('\n');
    case 'gone':
      return `${stamp} ${where} can no longer be read (${event.reason}); stopped watching it`;
    case 'deployment': {
      const d = event.deployment;
      return `${stamp} ${event.project}: deployment #${d.id} of ${shortSha(d.sha)} (${d.ref}) to ${d.environment} is ${d.status}${d.user ? ` (deployed by ${d.user})` : ''}`;
    }
  }
}

/**
 * The terminal's long-running command: false when the line is not a `watch`; otherwise it watches until `io.signal`
 * aborts, then stops (giving its lease back) and resolves true.
 */
export function terminalWatch(options: TerminalWatchOptions) {
  const clock = options.clock ?? realClock;
  return async (line: string, io: FollowIO): Promise<boolean> => {
    let words: string[];
    try {
      words = tokenize(line).map((token) => token.text);
    } catch {
      return false;
    }
    if (words[0] !== 'watch') return false;
    if (words.length < 2 || words.length > 3) {
      io.write(`${WATCH_USAGE}\n`);
      return true;
    }
    const [, project, ref] = words;
    io.write(`Watching ${project}${ref ? ` ${ref}` : ''}; Ctrl+C stops.\n`);
    const watch = new BranchWatch({
      project,
      ...(ref ? { ref } : {}),
      operations: options.operations,
      runContext: () => ({ ...options.runContext(), signal: io.signal }),
      store: new MemoryStore({ now: () => clock.now() }),
      clock,
      ...(options.intervalMs ? { intervalMs: options.intervalMs } : {}),
      onEvent: (event) => {
        io.write(`${watchEventText(event, clock.now(), options.operations())}\n`);
        if (event.kind === 'gone') ended();
      },
      onError: (error) => {
        if (!io.signal.aborted) io.write(`watch ${project}: ${error.message}\n`);
      },
    });
    let ended = () => {};
    let gone = false;
    // The watch's own timers do not hold the process open (a server has other work); a person following it does.
    const keepAlive = setInterval(() => undefined, 2 ** 30);
    await new Promise<void>((resolve) => {
      if (io.signal.aborted) return resolve();
      ended = () => {
        gone = true;
        resolve();
      };
      io.signal.addEventListener('abort', () => resolve(), { once: true });
      watch.start();
    });
    clearInterval(keepAlive);
    await watch.stop();
    if (!gone) io.write('Stopped watching (Ctrl+C).\n');
    return true;
  };
}
