// The MCP features beside tools — prompts, resources, completions and logging — and the capabilities announcing them.
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Logger } from '../log.js';
import { COMPLETION_TIMEOUT_MS, registerCompletions, type CompletionLookup } from './completions.js';
import { sessionLogging, type SessionLogging } from './logging.js';
import { promptArgumentKind, registerPrompts } from './prompts.js';
import { FILE_TEMPLATE_VARIABLES, FILE_URI_TEMPLATE, registerResources } from './resources.js';
import { serviceReader, type ServiceReadOptions } from './service-reads.js';

/** Resource subscriptions are not offered: the service has no change feed to base them on. */
export const PROTOCOL_CAPABILITIES = {
  prompts: { listChanged: false },
  resources: { listChanged: false },
  completions: {},
  logging: {},
} as const;

export interface ProtocolFeatureOptions extends ServiceReadOptions {
  /** Deadline of one prompt or resource read, as of a tool call. */
  callTimeoutMs: number;
  log: Logger;
  /** Values never to appear in log notifications (the configured tokens; the session's own is added). */
  secrets?: ReadonlyArray<string | undefined>;
}

const completionKind: CompletionLookup = (ref, argument) => {
  if (ref.type === 'ref/prompt') return promptArgumentKind(ref.name, argument);
  return ref.uri === FILE_URI_TEMPLATE ? FILE_TEMPLATE_VARIABLES[argument] : undefined;
};

/** Registers the handlers on a server made with PROTOCOL_CAPABILITIES; returns the session's logging. */
export function registerProtocolFeatures(server: Server, options: ProtocolFeatureOptions): SessionLogging {
  const logging = sessionLogging(server, options.log, [options.token, ...(options.secrets ?? [])]);
  const read = serviceReader(options);
  registerPrompts(server, { read, timeoutMs: options.callTimeoutMs });
  registerResources(server, { read, timeoutMs: options.callTimeoutMs });
  registerCompletions(server, {
    lookup: completionKind, read, timeoutMs: Math.min(COMPLETION_TIMEOUT_MS, options.callTimeoutMs), log: logging.logger,
  });
  return logging;
}
