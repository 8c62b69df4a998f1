// The interactive terminal chat on a pipe, for unit tests: lines written to its input, everything it prints kept,
// Ctrl+C sent through the handler it registers. Plain text (no colour, no JSON), no auto-yes, the usual prompt.
import { PassThrough } from 'node:stream';
import type { ChatDispatcher } from '../../src/chat/dispatch.js';
import type { Operation } from '../../src/operations/engine/define.js';
import { runInteractive, type TerminalChatOptions } from '../../src/terminal/chat.js';

export interface PipeChatOptions {
  dispatcher: ChatDispatcher;
  operations: readonly Operation[];
  /** The terminal watch, when the test follows a project. */
  follow?: TerminalChatOptions['follow'];
}

/** Starts the chat; `ended` is its exit code once its input ends (or `exit` is typed). */
export function startPipeChat(options: PipeChatOptions) {
  const input = new PassThrough();
  const output = new PassThrough();
  let printed = '';
  output.on('data', (chunk: Buffer) => {
    printed += chunk.toString('utf8');
  });
  let interrupt: (() => void) | undefined;
  const ended = runInteractive({
    ...options,
    input,
    output,
    errors: output,
    color: false,
    json: false,
    yes: false,
    prompt: () => 'forgeops> ',
    interrupts: (handler) => {
      interrupt = handler;
      return () => {
        interrupt = undefined;
      };
    },
  });
  return {
    input,
    ended,
    printed: () => printed,
    /** Ctrl+C: calls the handler the chat registered, if it is listening now. */
    interrupt: () => interrupt?.(),
    /** Whether the chat listens for Ctrl+C now (it does while a call runs). */
    listening: () => interrupt !== undefined,
  };
}
