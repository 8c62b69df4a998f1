// The terminal adapter of the approval port: the exact call on the terminal, then a y/N question; --yes approves in advance.
import type { ApprovalAnswer, ApprovalCall, Approver } from '../approval/port.js';

export const APPROVAL_QUESTION = 'Run exactly this call? [y/N] ';

/** Said when there is no terminal to ask on: the one rule for one-shot commands and commands read from a pipe. */
const NO_TERMINAL =
  'Not run: this call needs a y/N answer and there is no terminal to ask on. Nothing was changed. ' +
  'Run it from a terminal, or add --yes to approve in advance every call that asks.\n';

const DECLINED = 'Not run; nothing was changed.\n';

/** The answers that mean yes, as docs/operations-guide.md says: `y` or `yes`, in any case; anything else, an empty line included, is no. */
function isYes(answer: string | undefined): boolean {
  return answer !== undefined && /^(?:y|yes)$/i.test(answer);
}

/** What the terminal session being served gives for one question. */
export interface TerminalPrompt {
  /** The call as the terminal renders it (the chat's message for it, which names the exact call). */
  shown: string;
  /** Where the call, the question and the reasons are written (stderr in one-shot mode, so stdout holds results). */
  errors: NodeJS.WritableStream;
  /** --yes: the human approved in advance every call that asks. */
  yes: boolean;
  /** Whether a human is at a terminal: lines from a pipe or a file were written before any question existed. */
  interactive: boolean;
  /** Puts the question and reads the answer; undefined when there is no human to ask (the input ended). */
  read(question: string): Promise<string | undefined>;
}

/** The reasons are whole lines, as the terminal writes them. */
export const terminalApprover: Approver<TerminalPrompt> = {
  async ask(_call: ApprovalCall, prompt: TerminalPrompt): Promise<ApprovalAnswer> {
    prompt.errors.write(prompt.shown);
    if (prompt.yes) {
      prompt.errors.write(`${APPROVAL_QUESTION}yes (--yes)\n`);
      return { approved: true };
    }
    if (!prompt.interactive) return { approved: false, reason: NO_TERMINAL };
    return isYes(await prompt.read(APPROVAL_QUESTION)) ? { approved: true } : { approved: false, reason: DECLINED };
  },
};
