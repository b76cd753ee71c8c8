// Retain's settings.
//   CAIRN_EXTRACT_THREADS   worker threads the offline extractor runs on (default: the machine's cores, at most 3,
//                           none on one core; 0 extracts on the main thread only)
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { integer, section } from './variables.ts';

export interface RetainConfig {
  extractThreads: number;
}

/** A thread per core up to three: once they run, the main thread extracts nothing, and on a 2-core machine the
 * extraction of long conversations then keeps both cores busy beside the writes (main thread). One core has no room. */
export const defaultExtractThreads = (cores = availableParallelism()): number => (cores < 2 ? 0 : Math.min(3, cores));

export const RETAIN = section(
  z.object({ CAIRN_EXTRACT_THREADS: integer(0) }),
  (v): RetainConfig => ({ extractThreads: v.CAIRN_EXTRACT_THREADS ?? defaultExtractThreads() }),
);
