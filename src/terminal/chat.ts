// The terminal chat session: one line (one shot) or a prompt with history and tab completion, y/N before any
// call that needs a human, results rendered as text (or the operation's data as JSON with --json).
import { createInterface, type Interface } from 'node:readline';
import { complete, usernameBeingTyped } from '../chat/complete.js';
import type { ChatDispatcher, ChatReply } from '../chat/dispatch.js';
import { tokenize } from '../chat/tokens.js';
import { terminalApprover } from './approver.js';
import type { Operation, OperationResult } from '../operations/engine/define.js';
import { outcomeUnknown } from '../operations/engine/failures.js';
import { HISTORY_SIZE, type HistoryFile } from './history.js';
import { renderMessage } from './render.js';

export interface TerminalChatOptions {
  dispatcher: ChatDispatcher;
  operations: readonly Operation[];
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: NodeJS.WritableStream;
  /** One shot: failures and questions go here, so stdout holds only the result. */
  errors: NodeJS.WritableStream;
  color: boolean;
  /** Print the operation's data as JSON instead of text. */
  json: boolean;
  /** One shot: the human approved in advance every call that asks for approval. */
  yes: boolean;
  /** Where the prompt's history persists; without it, history lives as long as the session. */
  history?: HistoryFile;
  /** The prompt, e.g. "forgeops acme/web> ": it shows the default project. */
  prompt(): string;
  /**
   * Commands of this terminal alone (`as bob` against the sandbox), tried before the shared grammar: the text to
   * print when the line was one of them, undefined when it was not.
   */
  local?(line: string): Promise<string | undefined>;
  /**
   * Commands of this terminal that print as they go until Ctrl+C (`watch acme/web`): true when the line was one,
   * once it has ended. Ctrl+C aborts `signal` and the prompt comes back.
   */
  follow?(line: string, io: { signal: AbortSignal; write(text: string): void }): Promise<boolean>;
  /** Usernames starting with `prefix`, asked of the service (Tab completion of people). */
  usernames?(prefix: string): Promise<string[]>;
  /**
   * Interrupts from outside the prompt's own Ctrl+C (the process's SIGINT): `handler` is called for each; the
   * returned function stops listening. They act as Ctrl+C does.
   */
  interrupts?(handler: () => void): () => void;
}

/**
 * How long the chat waits, before showing a question, for input already on its way (a paste the terminal delivers
 * in pieces): whatever arrives by then was typed before the question and is dropped, not taken as the answer.
 */
const QUIET_BEFORE_QUESTION_MS = 60;

/** An operation result as JSON: bytes as text when they are text, else base64 with what they are. */
function jsonOf(result: OperationResult): string {
  let data = result.data;
  if (Buffer.isBuffer(data)) {
    const text = data.toString('utf8');
    data =
      Buffer.from(text, 'utf8').equals(data) && !data.includes(0)
        ? text
        : {
            content_type: result.contentType ?? null,
            file_name: result.fileName ?? null,
            size: data.length,
            content_base64: data.toString('base64'),
          };
  }
  return `${JSON.stringify(data ?? null, null, 2)}\n`;
}

/** The human's answer, or undefined when there is no human to ask (no terminal, or the input ended). */
type Ask = (question: string) => Promise<string | undefined>;

/** One command of the interactive chat while it runs: Ctrl+C aborts `signal`; `abandoned` once the prompt came back without it. */
interface CommandRun {
  signal: AbortSignal;
  abandoned: boolean;
}

/** How long a stopped command has to end (its request cut, its wait woken) before the prompt comes back without it. */
export const STOP_GRACE_MS = 2_000;

/** Said when Ctrl+C stopped a command, by what it had done: a change already sent may have run; anything else changed nothing. */
function stoppedText(reply: ChatReply, render: (message: ChatReply['message']) => string): string {
  const outcome = reply.kind === 'message' ? reply.outcome : undefined;
  if (outcome && !outcome.ok && outcomeUnknown(outcome.operation, outcome.error)) {
    return `Stopped (Ctrl+C). ${outcome.operation.name} had already been sent, so it may have run:\n${render(reply.message)}`;
  }
  return 'Stopped (Ctrl+C); nothing was changed.\n';
}

/**
 * Shows one reply and, for a call that needs approval, asks and runs it when the answer is yes. Returns whether the line did
 * what was asked (declined, refused and failed calls did not).
 */
async function settle(
  reply: ChatReply,
  options: TerminalChatOptions,
  ask: Ask,
  oneShot = true,
  run?: CommandRun,
): Promise<boolean> {
  const render = (message: ChatReply['message']) =>
    renderMessage(message, { operations: options.operations, color: options.color });
  if (run?.abandoned) return false;
  // Stopped: what finished anyway is shown as it is; anything else says what the stop left behind.
  if (run?.signal.aborted && !(reply.kind === 'message' && reply.ok)) {
    options.output.write(stoppedText(reply, render));
    return false;
  }
  if (reply.kind === 'approve') {
    const answer = await terminalApprover.ask(
      { operation: reply.operation.name, input: reply.input, prompt: reply.prompt, answers: reply.answers },
      {
        shown: render(reply.message),
        errors: options.errors,
        yes: options.yes,
        interactive: options.input.isTTY === true,
        read: ask,
      },
    );
    if (!answer.approved) {
      options.errors.write(answer.reason);
      return false;
    }
    // Ctrl+C came while the question was being put: what was stopped is not started after all.
    if (run?.signal.aborted) {
      options.output.write(stoppedText(reply, render));
      return false;
    }
    const dispatcher = run ? options.dispatcher.stoppedBy(run.signal) : options.dispatcher;
    return settle(await dispatcher.approved(reply.operation, reply.input), options, ask, oneShot, run);
  }
  const out = reply.ok || !oneShot ? options.output : options.errors;
  if (options.json && reply.ok) {
    out.write(reply.outcome?.ok ? jsonOf(reply.outcome.result) : `${JSON.stringify(reply.message, null, 2)}\n`);
  } else {
    out.write(render(reply.message));
  }
  return reply.ok;
}

/** `forgeops chat "<command>"`: exit status 0 when it did what was asked, 1 otherwise. */
export async function runOneShot(line: string, options: TerminalChatOptions): Promise<number> {
  const ask: Ask = async (question) => {
    if (!options.input.isTTY) return undefined;
    const rl = createInterface({ input: options.input, output: options.errors, terminal: true });
    try {
      return await new Promise<string | undefined>((resolve) => {
        rl.once('close', () => resolve(undefined));
        rl.question(question, resolve);
      });
    } finally {
      rl.close();
    }
  };
  // `forgeops chat "watch acme/web"` follows until Ctrl+C (or SIGINT), then exits 0, as a long-running command does.
  if (options.follow) {
    const stop = new AbortController();
    const stopListening = options.interrupts?.(() => stop.abort());
    try {
      if (await options.follow(line, { signal: stop.signal, write: (chunk) => options.output.write(chunk) })) return 0;
    } finally {
      stopListening?.();
    }
  }
  return (await settle(await options.dispatcher.dispatch(line), options, ask)) ? 0 : 1;
}

/** How long Tab waits for the service to name users before it completes nothing. */
const USERNAME_LOOKUP_MS = 1500;

/**
 * readline's completer: candidates for the word being typed, and that word. A username (`@er`, `user_id=er`) is
 * looked up on the service, briefly: Tab never hangs on a slow service.
 */
function completer(operations: readonly Operation[], usernames?: (prefix: string) => Promise<string[]>) {
  return (line: string, callback: (error: null, result: [string[], string]) => void): void => {
    let word = '';
    if (line !== '' && !/\s$/.test(line)) {
      try {
        const last = tokenize(line).at(-1);
        word = last ? line.slice(last.start) : '';
      } catch {
        callback(null, [[], '']);
        return;
      }
    }
    const person = usernames ? usernameBeingTyped(line, { operations }) : undefined;
    if (!person || !usernames) {
      callback(null, [complete(line, { operations }), word]);
      return;
    }
    const timeout = new Promise<string[]>((resolve) => setTimeout(() => resolve([]), USERNAME_LOOKUP_MS).unref());
    Promise.race([usernames(person.prefix).catch(() => []), timeout]).then((names) =>
      callback(null, [names.map((name) => person.candidate(name)), word]),
    );
  };
}

/** Shown while a ``` block is open: the command goes on until the fence closes. */
const CONTINUATION_PROMPT = '... ';

/** Whether the text so far opens a ``` block it has not closed yet (Enter then adds a line to the block). */
export function opensBlock(text: string): boolean {
  try {
    tokenize(text);
    return false;
  } catch (error) {
    return error instanceof Error && error.message.startsWith('Unclosed ``` block');
  }
}

/** What a read of the prompt gives when Ctrl+C abandons it (a question, or a ``` block being typed). */
const INTERRUPTED = Symbol('interrupted');

/** Shown at an empty prompt after the first Ctrl+C, as readline-based prompts (node, python) do. */
export const LEAVE_HINT = '(To leave, press Ctrl+C again, or Ctrl+D, or type exit.)';

/**
 * Resolves true when `work` ends; once `signal` aborts, false if `work` has not ended within `graceMs` (it is left
 * to end on its own, its failure ignored).
 */
function endsOrGivesUp(work: Promise<unknown>, signal: AbortSignal, graceMs: number): Promise<boolean> {
  return new Promise<boolean>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const giveUp = () => {
      timer = setTimeout(() => {
        work.catch(() => undefined);
        resolve(false);
      }, graceMs);
    };
    if (signal.aborted) giveUp();
    else signal.addEventListener('abort', giveUp, { once: true });
    work
      .then(() => resolve(true), reject)
      .finally(() => {
        clearTimeout(timer);
        signal.removeEventListener('abort', giveUp);
      });
  });
}

/**
 * `forgeops chat`: a prompt until Ctrl+D, `exit`, or Ctrl+C twice at an empty prompt. Ctrl+C while a command runs
 * stops it (its requests and waits are aborted) and comes back to the prompt; at a question it answers no; in a
 * ``` block it drops the command; with text typed it clears the line.
 */
export async function runInteractive(options: TerminalChatOptions): Promise<number> {
  const prompt = new InteractivePrompt(options);
  for (;;) {
    const line = await prompt.readCommand();
    if (line === undefined) break;
    const text = line.trim();
    if (text === '') continue;
    if (text === 'exit' || text === 'quit') break;
    await prompt.run(text);
  }
  prompt.close();
  return 0;
}

type Read = string | undefined | typeof INTERRUPTED;

/** The readline interface and what it is waiting for: the state Ctrl+C, typeahead and questions depend on. */
class InteractivePrompt {
  private readonly rl: Interface;
  /** Lines are queued as they come: piped input arrives all at once, and typeahead while a call runs is not lost. */
  private readonly queued: string[] = [];
  private closed = false;
  private waiting: ((line: Read) => void) | undefined;
  /** What is waiting for the person: a command to type, the rest of a ``` block, or the answer to a question. */
  private reading: 'command' | 'block' | 'answer' = 'command';
  /** The command running now (between its line and its answer, but for a question it asks). */
  private running: AbortController | undefined;
  /** A first Ctrl+C at an empty prompt arms the second to leave; anything typed disarms it. */
  private leaveArmed = false;
  private readonly stopListening: (() => void) | undefined;

  constructor(private readonly options: TerminalChatOptions) {
    this.rl = createInterface({
      input: options.input,
      output: options.output,
      completer: completer(options.operations, options.usernames),
      history: options.history?.load() ?? [],
      historySize: HISTORY_SIZE,
      removeHistoryDuplicates: true,
      terminal: options.input.isTTY === true,
    });
    this.rl.on('line', (line) => {
      this.leaveArmed = false;
      const take = this.waiting;
      this.waiting = undefined;
      if (take) take(line);
      else this.queued.push(line);
    });
    this.rl.on('close', () => {
      this.closed = true;
      this.waiting?.(undefined);
    });
    const interrupt = () => this.interrupt();
    this.rl.on('SIGINT', interrupt);
    this.stopListening = options.interrupts?.(interrupt);
    if (options.history) {
      const file = options.history;
      this.rl.on('history', (lines: string[]) => file.save(lines));
    }
  }

  /** Ctrl+C: stops the running command, answers no to a question, clears typed text, or (twice) leaves. */
  private interrupt(): void {
    if (this.closed) return;
    if (this.running && this.reading !== 'answer') {
      this.running.abort();
      return;
    }
    const clearTyped = () => (this.rl as unknown as { clearLine?: () => void }).clearLine?.call(this.rl);
    if (this.waiting && this.reading !== 'command') {
      const take = this.waiting;
      this.waiting = undefined;
      clearTyped();
      take(INTERRUPTED);
      return;
    }
    if (this.rl.line !== '') {
      this.leaveArmed = false;
      clearTyped();
    } else if (this.leaveArmed) {
      this.rl.close();
      return;
    } else {
      this.leaveArmed = true;
      this.options.output.write(`\n${LEAVE_HINT}\n`);
    }
    if (this.waiting) this.rl.prompt();
  }

  private next(question: string): Promise<Read> {
    return new Promise<Read>((resolve) => {
      if (this.queued.length > 0) return resolve(this.queued.shift());
      if (this.closed) return resolve(undefined);
      this.waiting = resolve;
      this.rl.setPrompt(question);
      this.rl.prompt();
    });
  }

  /**
   * A command's typeahead is kept; a question's is not. Lines that came before the question was on the screen (a
   * pasted "command, y" pair, a quick y⏎) are dropped and the human is told, and the answer never enters the history,
   * so ↑ after a question recalls the command, not "n".
   */
  private readonly askQuestion: Ask = async (question) => {
    await new Promise((resolve) => setTimeout(resolve, QUIET_BEFORE_QUESTION_MS));
    const early = this.queued.splice(0);
    // Half a line typed before the question (a "y" without its ⏎) would be completed into an answer: cleared too.
    if (this.rl.line !== '') {
      early.push(this.rl.line);
      this.rl.write(null, { ctrl: true, name: 'u' });
    }
    if (early.length > 0) {
      this.options.output.write(
        `Ignored ${early.length === 1 ? 'a line' : `${early.length} lines`} typed before this question was shown; ` +
          'answer it now.\n',
      );
    }
    this.reading = 'answer';
    const read = await this.next(question).finally(() => {
      this.reading = 'command';
    });
    // Ctrl+C at a question is no.
    const answer = read === INTERRUPTED ? undefined : read;
    const history = (this.rl as unknown as { history?: string[] }).history;
    if (answer !== undefined && history?.[0] === answer) {
      history.shift();
      this.options.history?.save(history);
    }
    return answer;
  };

  /** The next command, a ``` block read to its closing fence (as help promises); undefined when the person left. */
  async readCommand(): Promise<string | undefined> {
    let line = await this.next(this.options.prompt());
    if (line === undefined || line === INTERRUPTED) return undefined;
    this.reading = 'block';
    while (opensBlock(line)) {
      const more = await this.next(CONTINUATION_PROMPT);
      if (more === undefined || more === INTERRUPTED) {
        line = more === INTERRUPTED ? '' : line;
        break;
      }
      line = `${line}\n${more}`;
    }
    this.reading = 'command';
    return line;
  }

  /** Runs one command to its answer; Ctrl+C stops it, and one broken line does not end the session. */
  async run(text: string): Promise<void> {
    const { options } = this;
    const stop = new AbortController();
    const run: CommandRun = { signal: stop.signal, abandoned: false };
    this.running = stop;
    try {
      if (await options.follow?.(text, { signal: stop.signal, write: (chunk) => options.output.write(chunk) })) {
        options.output.write('\n');
        return;
      }
      const local = await options.local?.(text);
      if (local !== undefined) {
        options.output.write(`${local}\n\n`);
        return;
      }
      const session = { ...options, errors: options.output };
      const work = (async () =>
        settle(
          await options.dispatcher.stoppedBy(stop.signal).dispatch(text),
          session,
          this.askQuestion,
          false,
          run,
        ))();
      if (!(await endsOrGivesUp(work, stop.signal, STOP_GRACE_MS))) {
        run.abandoned = true;
        options.output.write(
          `Stopped (Ctrl+C) without waiting for the end: it did not end within ${STOP_GRACE_MS / 1000} s. ` +
            'A change it had sent may still be applied.\n',
        );
      }
      // A blank line between one answer and the next prompt keeps a long session readable.
      options.output.write('\n');
    } catch (error) {
      options.output.write(`forgeops error: ${error instanceof Error ? error.message : String(error)}\n`);
    } finally {
      this.running = undefined;
    }
  }

  close(): void {
    this.stopListening?.();
    this.rl.close();
    this.options.output.write('\n');
  }
}
