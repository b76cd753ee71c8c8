// Worker threads that run Cairn's TypeScript sources through tsx: Node options for pools that load a JavaScript
// worker first (piscina), and a thread whose own entry is TypeScript.
import { Worker, type WorkerOptions } from 'node:worker_threads';

export function tsxExecArgv(): string[] {
  return ['--import', import.meta.resolve('tsx')];
}

/** A module beside `from` named `name` (without extension), with the extension of `from`: the sources run as
 * TypeScript, or transpiled to JavaScript (as the crash tests run them), and a thread's entry must follow. */
export function sibling(name: string, from: string): URL {
  return new URL(`./${name}${from.endsWith('.ts') ? '.ts' : '.js'}`, from);
}

/** A thread running a TypeScript module: a thread's first module is loaded before --import hooks apply to it, so a
 * line of JavaScript registers tsx there and then imports the entry (a JavaScript entry is imported as it is). */
export function typescriptThread(entry: URL, options: Omit<WorkerOptions, 'eval'> = {}): Worker {
  const target = JSON.stringify(entry.href);
  const code = entry.pathname.endsWith('.ts')
    ? `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${target}); })`
    : `import(${target})`;
  return new Worker(code, { ...options, eval: true });
}
