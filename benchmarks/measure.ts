// What the benchmarks report beside their figures: percentiles of timings and the machine's load averages.
import { loadavg } from 'node:os';

/** The p-th percentile (0-100) of the values, nearest rank; NaN for none. */
export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN;
}

/** The 1, 5 and 15 minute load averages (now, or as read earlier), for reading timings on a shared machine. */
export const formatLoad = (l: number[] = loadavg()): string => l.map((x) => x.toFixed(2)).join(' / ');
