// A minimal leveled logger on stderr. Its level comes from the configuration (CAIRN_LOG_LEVEL, config/log.ts),
// set at start by configureLog (the CLI and compose do it); until then it logs from info up.
import type { LogConfig, LogLevel } from './config/index.ts';

const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

let threshold = LEVELS.info;

/** Logs from `config.level` up in this thread from now on. */
export function configureLog(config: LogConfig): void {
  threshold = LEVELS[config.level];
}

function write(level: Exclude<LogLevel, 'silent'>, message: string): void {
  if (LEVELS[level] < threshold) return;
  process.stderr.write(`${new Date().toISOString()} ${level.padEnd(5)} ${message}\n`);
}

export const log = {
  debug: (m: string): void => write('debug', m),
  info: (m: string): void => write('info', m),
  warn: (m: string): void => write('warn', m),
  error: (m: string): void => write('error', m),
};
