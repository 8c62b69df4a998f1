// The chat grammar's public face, shared by the Slack bot and the terminal chat: parse a line, complete one, show help.
export { parse, errorText } from './grammar.js';
export type { ParsedCommand, ParseOptions } from './grammar.js';
export { complete } from './complete.js';
export type { CompleteOptions } from './complete.js';
export { tokenize } from './tokens.js';
export type { Token } from './tokens.js';
export { commandHelp, examples, helpTopic, topHelp, usageLine } from './help.js';
export type { HelpOptions } from './help.js';
export { META_COMMANDS } from './commands.js';
export type { MetaName } from './commands.js';
export { readServiceUrl } from './urls.js';
export type { LinkTarget } from './urls.js';
export { chatMessage, CHAT_STATUSES } from './message.js';
export type { ChatMessage, ChatSection, ChatStatus, FollowUp } from './message.js';
export { presentConfirmation, presentFailure, presentOutcome } from './present.js';
export type { PresentOptions } from './present.js';
