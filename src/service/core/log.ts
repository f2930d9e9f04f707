// Structured logs: one JSON object per line on stdout. Callers never pass a key; only key ids.

export type LogLevel = 'info' | 'warn' | 'error' | 'silent';
const ORDER: Record<LogLevel, number> = { info: 0, warn: 1, error: 2, silent: 3 };

export interface Logger {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export function createLogger(
  level: LogLevel,
  write: (line: string) => void = (l) => process.stdout.write(l),
): Logger {
  const emit = (at: Exclude<LogLevel, 'silent'>, msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[at] < ORDER[level]) return;
    write(`${JSON.stringify({ time: new Date().toISOString(), level: at, msg, ...fields })}\n`);
  };
  return {
    info: (msg, fields) => emit('info', msg, fields),
    warn: (msg, fields) => emit('warn', msg, fields),
    error: (msg, fields) => emit('error', msg, fields),
  };
}
