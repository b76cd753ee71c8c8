// What the benchmarks share: their command-line arguments, percentiles of timings and the machine's load averages.
import { loadavg } from 'node:os';

/** The p-th percentile (0-100) of the values, nearest rank; NaN for none. */
export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN;
}

/** The 1, 5 and 15 minute load averages (now, or as read earlier), for reading timings on a shared machine. */
export const formatLoad = (l: number[] = loadavg()): string => l.map((x) => x.toFixed(2)).join(' / ');

/** A benchmark's arguments: `--name value` flags, on/off switches, and one positional path (or its default). */
export function benchArgs(
  defaultPath: string,
  switches: string[] = ['--no-record'],
): {
  args: string[];
  flag(name: string): string | undefined;
  has(name: string): boolean;
  path: string;
} {
  const args = process.argv.slice(2);
  const flag = (name: string): string | undefined => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const isSwitch = new Set(switches);
  const path =
    args.find((a, i) => !a.startsWith('--') && !(i > 0 && args[i - 1].startsWith('--') && !isSwitch.has(args[i - 1]))) ?? defaultPath;
  return { args, flag, has: (name) => args.includes(`--${name}`), path };
}
