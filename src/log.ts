// A minimal leveled logger on stderr (CAIRN_LOG_LEVEL = debug | info | warn | error | silent).
const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
type Level = keyof typeof LEVELS;

function threshold(): number {
  const v = (process.env.CAIRN_LOG_LEVEL ?? 'info') as Level;
  return LEVELS[v] ?? LEVELS.info;
}

function write(level: Exclude<Level, 'silent'>, message: string): void {
  if (LEVELS[level] < threshold()) return;
  process.stderr.write(`${new Date().toISOString()} ${level.padEnd(5)} ${message}\n`);
}

export const log = {
  debug: (m: string): void => write('debug', m),
  info: (m: string): void => write('info', m),
  warn: (m: string): void => write('warn', m),
  error: (m: string): void => write('error', m),
};
