// What travels with a button's call so that its premise can be checked again when the call finally runs (after an
// approval): the tools/call _meta key, the operation that checks it, the shape of its answer, and the words of a premise
// that could not be read. Apart from button-premise.ts, so the MCP call path knows them without loading any operation.
import { ApiError } from '../../http/errors.js';

/** The operation a view's button calls before it acts: the view is a page kept open for days, like a message. */
export const PREMISE_OPERATION = 'check_button_premise';

/**
 * The tools/call _meta key under which the view sends, beside a button's write, the premise it checked just before
 * (check_button_premise's input): a call that then waits for a human's approval checks it again when approved.
 */
export const PREMISE_META = 'forgeops/premise';

/** What check_button_premise answers: whether the button still applies, and in words what changed when not. */
export interface PremiseResult {
  holds: boolean;
  /** What changed (nothing was run), or a note beside a premise that holds; empty when there is nothing to say. */
  said: string;
}

/** The words of a premise that could not be read (the presser may not read the project): nothing is run. */
export function premiseUnread(error: unknown): string {
  const said = error instanceof ApiError ? error.message : (error as Error).message;
  return `could not check that this button still applies: ${said.split('\n')[0]}; nothing was run.`;
}
