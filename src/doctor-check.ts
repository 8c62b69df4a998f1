// One line of doctor's report, apart from doctor itself so that the checks it loads lazily (doctor-sign-in.ts) can
// name it without importing doctor back.

export type CheckStatus = 'ok' | 'fail' | 'warn' | 'info';

/** One line of the report: what was checked, what was found, and for anything wrong, the fix. */
export interface Check {
  status: CheckStatus;
  what: string;
  fix?: string;
}
