// The stderr logger: stdout belongs to the MCP stdio channel, and known secrets are masked in every line. Text for
// a terminal by default; one JSON record a line (pino) for a log pipeline with FORGEOPS_LOG_FORMAT=json.
import { withoutCredentials } from './text/shown-url.js';

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';

const ORDER: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

export interface Logger {
  error(message: string): void;
  warn(message: string): void;
  info(message: string): void;
  debug(message: string): void;
}

/** Replaces every known secret (4 characters or more) in a message, and the user name and password of any URL. */
function masker(secrets: Array<string | undefined>): (message: string) => string {
  const masks = secrets.filter((s): s is string => typeof s === 'string' && s.length >= 4);
  return (message) => {
    let line = withoutCredentials(message);
    for (const secret of masks) line = line.split(secret).join('[redacted]');
    return line;
  };
}

export function createLogger(
  level: LogLevel = 'info',
  secrets: Array<string | undefined> = [],
  write = (line: string) => process.stderr.write(line),
): Logger {
  const mask = masker(secrets);
  const emit = (at: LogLevel) => (message: string) => {
    if (ORDER[at] > ORDER[level]) return;
    write(`${new Date().toISOString()} ${at} ${mask(message)}\n`);
  };
  return { error: emit('error'), warn: emit('warn'), info: emit('info'), debug: emit('debug') };
}

/** The pino module as loaded (its default export, or the module itself through a bundle's CommonJS interop). */
type Pino = typeof import('pino').default;

/**
 * One JSON record a line on stderr: {"level":"info","time":"…","replica":"r1","msg":"…"}. Secrets are masked in
 * the message before pino sees it, as in the text format. `destination` is stderr unless a test gives a stream.
 */
export async function createJsonLogger(
  level: LogLevel,
  secrets: Array<string | undefined>,
  options: { replica?: string; destination?: NodeJS.WritableStream } = {},
): Promise<Logger> {
  const loaded = await import('pino');
  const pino: Pino = typeof loaded.default === 'function' ? loaded.default : (loaded as unknown as Pino);
  const mask = masker(secrets);
  const logger = pino(
    {
      level,
      base: options.replica ? { replica: options.replica } : null,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    options.destination ?? pino.destination({ fd: 2, sync: true }),
  );
  return {
    error: (message) => logger.error(mask(message)),
    warn: (message) => logger.warn(mask(message)),
    info: (message) => logger.info(mask(message)),
    debug: (message) => logger.debug(mask(message)),
  };
}

export const silentLogger: Logger = { error() {}, warn() {}, info() {}, debug() {} };

/**
 * A logger whose every line says whom it is about first (a signed-in person, `as codehost-user:7: …`): the audit trail
 * of a call names the person it ran as, not the token it came with.
 */
export function attributedLogger(log: Logger, who: string): Logger {
  const line = (message: string) => `as ${who}: ${message}`;
  return {
    error: (message) => log.error(line(message)),
    warn: (message) => log.warn(line(message)),
    info: (message) => log.info(line(message)),
    debug: (message) => log.debug(line(message)),
  };
}
