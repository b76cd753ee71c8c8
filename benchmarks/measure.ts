// What the benchmarks share: their command-line arguments, percentiles of timings, the machine's load averages and the
// CPU time other guests of a virtual machine's host took from it.
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';

/** The p-th percentile (0-100) of the values, nearest rank; NaN for none. */
export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN;
}

/** The 1, 5 and 15 minute load averages (now, or as read earlier), for reading timings on a shared machine. */
export const formatLoad = (l: number[] = loadavg()): string => l.map((x) => x.toFixed(2)).join(' / ');

/** The machine's CPU time so far (all cores, in clock ticks) and the part of it the hypervisor gave other guests. */
export interface CpuTicks {
  total: number;
  steal: number;
}

/** Linux's /proc/stat totals, or null elsewhere. */
export function cpuTicks(): CpuTicks | null {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal (guest time is counted in user already)
    const ticks = fields.slice(0, 8);
    if (ticks.length < 8 || ticks.some((t) => !Number.isFinite(t))) return null;
    return { total: ticks.reduce((a, b) => a + b, 0), steal: ticks[7] };
  } catch {
    return null;
  }
}

/** ", x.x % of the CPU time since `before` stolen by other guests of the host" (a load average cannot show that work:
 * it is not this machine's), or an empty string where it cannot be read. */
export function stolen(before: CpuTicks | null, after: CpuTicks | null = cpuTicks()): string {
  if (!before || !after || after.total <= before.total) return '';
  const share = (100 * (after.steal - before.steal)) / (after.total - before.total);
  return `, ${share.toFixed(1)} % of the CPU time meanwhile stolen by other guests of the host`;
}

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

/**
 * The speed of a CPU second here, as the median time of a fixed single-threaded workload (hashing, sorting, a Map of
 * strings: the kinds of work a retain and a recall do), in ms. The same code's figures move by a third from hour to
 * hour on these machines with no other guest taking CPU time (steal 0 %): a probe run before and after a benchmark
 * tells a slower machine from slower code.
 */
export function cpuProbe(rounds = 7): number {
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t = performance.now();
    let seed = 12345;
    const next = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    const values = new Float64Array(100_000);
    for (let i = 0; i < values.length; i++) values[i] = next() / 2 ** 32;
    values.sort();
    const counts = new Map<string, number>();
    for (let i = 0; i < 100_000; i++) {
      const key = `k${next() % 5000}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    let h = 0;
    for (let i = 0; i < 2_000_000; i++) h = Math.imul(h ^ i, 16777619) >>> 0;
    if (h === 42 && counts.size === 0) times.push(-1); // keeps the work from being optimised away
    times.push(performance.now() - t);
  }
  return percentile(times, 50);
}

/** "; CPU probe x ms before, y ms after (...)": cpuProbe's medians around a benchmark. */
export const probed = (before: number, after: number = cpuProbe()): string =>
  `; CPU probe ${before.toFixed(1)} ms before, ${after.toFixed(1)} ms after (a fixed single-threaded workload, lower is faster)`;
