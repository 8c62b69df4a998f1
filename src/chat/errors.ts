// The one error the chat grammar raises while reading a line; parse() turns it into an error result, never a throw.

export class ChatError extends Error {
  constructor(
    message: string,
    readonly suggestions: string[] = [],
  ) {
    super(message);
    this.name = 'ChatError';
  }
}
