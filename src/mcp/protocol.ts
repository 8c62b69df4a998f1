// The MCP features beside tools — prompts, resources, completions and logging — and the capabilities announcing them.
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Logger } from '../log.js';
import { COMPLETION_TIMEOUT_MS, registerCompletions, type CompletionLookup } from './completions.js';
import { sessionLogging, type SessionLogging } from './logging.js';
import { promptArgumentKind, registerPrompts } from './prompts.js';
import { FILE_TEMPLATE_VARIABLES, FILE_URI_TEMPLATE, registerResources } from './resources.js';
import { serviceReader, type ServiceReadOptions } from './service-reads.js';
import { ownEntry } from '../text/own-key.js';
import {
  STATUS_TEMPLATE_VARIABLES,
  STATUS_URI_TEMPLATE,
  StatusSubscriptions,
  type StatusWatches,
} from './status-resource.js';

/** Without resource subscriptions: protocolCapabilities() adds them where a watch hub backs them. */
const PROTOCOL_CAPABILITIES = {
  prompts: { listChanged: false },
  resources: { listChanged: false },
  completions: {},
  logging: {},
} as const;

/** The capabilities of a server: subscribe only with a watch hub, the one source of a status's changes. */
export function protocolCapabilities(subscribe: boolean) {
  return subscribe
    ? { ...PROTOCOL_CAPABILITIES, resources: { ...PROTOCOL_CAPABILITIES.resources, subscribe: true } }
    : PROTOCOL_CAPABILITIES;
}

interface ProtocolFeatureOptions extends ServiceReadOptions {
  /** Deadline of one prompt or resource read, as of a tool call. */
  callTimeoutMs: number;
  log: Logger;
  /** Values never to appear in log notifications (the configured tokens; the session's own is added). */
  secrets?: ReadonlyArray<string | undefined>;
  /** The watch hub a status subscription listens to; without it, subscriptions are not offered. */
  watches?: () => Promise<StatusWatches>;
  /** The triage view's resource is served (default) or not (FORGEOPS_APPS=off), and listed to clients with views. */
  apps?: boolean;
  rendersViews?: () => boolean;
}

interface ProtocolFeatures {
  logging: SessionLogging;
  /** The session ended: its subscriptions stop listening. */
  close(): Promise<void>;
}

const completionKind: CompletionLookup = (ref, argument) => {
  if (ref.type === 'ref/prompt') return promptArgumentKind(ref.name, argument);
  if (ref.uri === FILE_URI_TEMPLATE) return ownEntry(FILE_TEMPLATE_VARIABLES, argument);
  return ref.uri === STATUS_URI_TEMPLATE ? ownEntry(STATUS_TEMPLATE_VARIABLES, argument) : undefined;
};

/** Registers the handlers on a server made with protocolCapabilities(options.watches !== undefined). */
export function registerProtocolFeatures(server: Server, options: ProtocolFeatureOptions): ProtocolFeatures {
  const logging = sessionLogging(server, options.log, [options.token, ...(options.secrets ?? [])]);
  const read = serviceReader(options);
  const subscriptions =
    options.watches &&
    new StatusSubscriptions({
      watches: options.watches,
      read,
      timeoutMs: options.callTimeoutMs,
      log: options.log,
      notify: (uri) => server.sendResourceUpdated({ uri }),
    });
  registerPrompts(server, { read, timeoutMs: options.callTimeoutMs });
  registerResources(server, {
    read,
    timeoutMs: options.callTimeoutMs,
    subscriptions,
    view: options.apps !== false,
    rendersViews: options.rendersViews,
  });
  registerCompletions(server, {
    lookup: completionKind,
    read,
    timeoutMs: Math.min(COMPLETION_TIMEOUT_MS, options.callTimeoutMs),
    log: logging.logger,
  });
  return {
    logging,
    close: async () => {
      await subscriptions?.close();
    },
  };
}
