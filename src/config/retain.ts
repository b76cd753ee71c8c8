// Retain's settings.
//   CAIRN_EXTRACT_THREADS   worker threads the offline extractor adds beside the main thread (default 0)
import { z } from 'zod';
import { integer, section } from './variables.ts';

export interface RetainConfig {
  extractThreads: number;
}

export const RETAIN = section(
  z.object({ CAIRN_EXTRACT_THREADS: integer(0) }),
  (v): RetainConfig => ({ extractThreads: v.CAIRN_EXTRACT_THREADS ?? 0 }),
);
