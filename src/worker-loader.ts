// Node options for a worker thread that loads Cairn's TypeScript sources: the tsx loader, resolved from here.
export function tsxExecArgv(): string[] {
  return ['--import', import.meta.resolve('tsx')];
}
