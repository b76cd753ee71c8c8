// How much the process logs.
//   CAIRN_LOG_LEVEL   debug | info (default) | warn | error | silent
import { z } from 'zod';
import { oneOf, section } from './variables.ts';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface LogConfig {
  level: LogLevel;
}

export const LOG = section(z.object({ CAIRN_LOG_LEVEL: oneOf(LOG_LEVELS) }), (v): LogConfig => ({ level: v.CAIRN_LOG_LEVEL ?? 'info' }));
