// What the watch and Slack incident tests share: the registry with triage reading a given clock (the sandbox's
// ManualClock), a log that says nothing, and one that keeps its warnings.
import { triageOperation } from '../../src/operations/composed/triage.js';
import type { Operation } from '../../src/operations/engine/define.js';
import { operations } from '../../src/operations/index.js';

/** The registry whose triage_project reads `now` instead of the wall clock, so a ManualClock decides what is old. */
export function operationsWithTriageAt(now: () => number): Operation[] {
  const ops: Operation[] = operations.map((op) =>
    op.name === 'triage_project'
      ? triageOperation(
          () => ops,
          () => now(),
        )
      : op,
  );
  return ops;
}

/** A logger that drops everything: for tests that do not read the log. */
export const quietLog = { error: () => {}, warn: () => {}, info: () => {}, debug: () => {} };

/** A logger that keeps its warnings and errors (in one list, in order) and drops the rest. */
export function warningsLog() {
  const warnings: string[] = [];
  const log = {
    error: (m: string) => warnings.push(m),
    warn: (m: string) => warnings.push(m),
    info: () => {},
    debug: () => {},
  };
  return { log, warnings };
}
