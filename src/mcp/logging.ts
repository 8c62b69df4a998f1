// MCP logging: this session's log lines also go to its client as notifications/message, at or above the level the
// client chose with logging/setLevel (and none before it chose), with secrets masked.
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { z } from 'zod';
import {
  ErrorCode,
  LoggingLevelSchema,
  McpError,
  type LoggingLevel,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger, LogLevel } from '../log.js';
import { REDACTED } from '../operations/engine/secrets.js';

/** The protocol's levels, least severe first (RFC 5424 order). */
const SEVERITY: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];
const MCP_LEVEL: Record<LogLevel, LoggingLevel> = { error: 'error', warn: 'warning', info: 'info', debug: 'debug' };
/** Names our lines in the client's log view. */
const LOGGER_NAME = 'forgeops';
/** Shorter values are not masked: masking "abc" everywhere would garble lines and hide nothing worth hiding. */
const MIN_SECRET_LENGTH = 4;

/** logging/setLevel with the level unchecked, so that a bad one is answered in words naming it (not a schema dump). */
const SetLevelRequest = z.object({ method: z.literal('logging/setLevel'), params: z.object({ level: z.unknown() }) });

export interface SessionLogging {
  /** A logger writing to the operator's log and to this client; lines about a request travel on that request's stream. */
  logger(relatedRequestId?: RequestId): Logger;
  /** The level the client set, if it set one. */
  level(): LoggingLevel | undefined;
}

function maskSecrets(line: string, secrets: readonly string[]): string {
  let masked = line;
  for (const secret of secrets) masked = masked.split(secret).join(REDACTED);
  return masked;
}

/**
 * The spec lets a server choose what to send before the client sets a level; we send nothing: a client that never
 * asked for our log should not pay for it in its context or its stream.
 */
export function sessionLogging(
  server: Server,
  base: Logger,
  secrets: ReadonlyArray<string | undefined>,
): SessionLogging {
  const masks = secrets.filter((s): s is string => typeof s === 'string' && s.length >= MIN_SECRET_LENGTH);
  let clientLevel: LoggingLevel | undefined;
  // Replaces the SDK's own handler, which keeps levels per transport session id and sends everything until set.
  server.setRequestHandler(SetLevelRequest, async (request) => {
    const level = LoggingLevelSchema.safeParse(request.params.level);
    if (!level.success) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `level must be one of ${SEVERITY.join(', ')}; got ${JSON.stringify(request.params.level)}`,
      );
    }
    clientLevel = level.data;
    return {};
  });

  function toClient(at: LogLevel, message: string, relatedRequestId: RequestId | undefined): void {
    const level = MCP_LEVEL[at];
    if (clientLevel === undefined || SEVERITY.indexOf(level) < SEVERITY.indexOf(clientLevel)) return;
    const notification = {
      method: 'notifications/message' as const,
      params: { level, logger: LOGGER_NAME, data: maskSecrets(message, masks) },
    };
    // A client gone away is no reason to fail the work being logged.
    server
      .notification(notification, relatedRequestId === undefined ? undefined : { relatedRequestId })
      .catch(() => undefined);
  }

  return {
    logger(relatedRequestId) {
      const emit = (at: LogLevel) => (message: string) => {
        base[at](message);
        toClient(at, message, relatedRequestId);
      };
      return { error: emit('error'), warn: emit('warn'), info: emit('info'), debug: emit('debug') };
    },
    level: () => clientLevel,
  };
}
