// A progress bar on stderr for long CLI work; when stderr is not a terminal (a log, CI), a plain line now and then
// and a final one.
import cliProgress from 'cli-progress';

/** Least time between two plain progress lines. */
const LINE_EVERY_MS = 5000;

export interface ProgressBar {
  update(done: number, total: number): void;
  /** Ends the bar; `completed: false` (work failed) leaves no final line, so the error stays the only one. */
  stop(completed?: boolean): void;
}

export function progressBar(label: string): ProgressBar {
  if (!process.stderr.isTTY) {
    let last = { done: 0, total: 0 };
    let lineAt = Date.now();
    return {
      update: (done, total) => {
        last = { done, total };
        if (Date.now() - lineAt < LINE_EVERY_MS || done >= total) return;
        lineAt = Date.now();
        process.stderr.write(`${label}: ${done}/${total}\n`);
      },
      stop: (completed = true) => {
        if (completed) process.stderr.write(`${label}: ${last.done}/${last.total}\n`);
      },
    };
  }
  const bar = new cliProgress.SingleBar(
    { format: `${label} [{bar}] {percentage}% | {value}/{total} | eta {eta}s`, stream: process.stderr },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update(done, total) {
      if (!started) {
        bar.start(total, done);
        started = true;
      } else {
        bar.setTotal(total);
        bar.update(done);
      }
    },
    stop: () => bar.stop(),
  };
}
