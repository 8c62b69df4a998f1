// The stderr logger: stdout belongs to the MCP stdio channel, and known secrets are masked in every line.
export type LogLevel = 'error' | 'warn' | 'info' | 'debug';

const ORDER: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

export interface Logger {
  error(message: string): void;
  warn(message: string): void;
  info(message: string): void;
  debug(message: string): void;
}

export function createLogger(level: LogLevel = 'info', secrets: Array<string | undefined> = [], write = (line: string) => process.stderr.write(line)): Logger {
  const masks = secrets.filter((s): s is string => typeof s === 'string' && s.length >= 4);
  const emit = (at: LogLevel) => (message: string) => {
    if (ORDER[at] > ORDER[level]) return;
    let line = message;
    for (const secret of masks) line = line.split(secret).join('[redacted]');
    write(`${new Date().toISOString()} ${at} ${line}\n`);
  };
  return { error: emit('error'), warn: emit('warn'), info: emit('info'), debug: emit('debug') };
}

export const silentLogger: Logger = { error() {}, warn() {}, info() {}, debug() {} };
