// A progress bar on stderr for long CLI work (silent when stderr is not a terminal, except a final line).
import cliProgress from 'cli-progress';

export interface ProgressBar {
  update(done: number, total: number): void;
  /** Ends the bar; `completed: false` (work failed) leaves no final line, so the error stays the only one. */
  stop(completed?: boolean): void;
}

export function progressBar(label: string): ProgressBar {
  if (!process.stderr.isTTY) {
    let last = { done: 0, total: 0 };
    return {
      update: (done, total) => (last = { done, total }),
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
