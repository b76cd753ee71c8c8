// `cairn memory list|status|clear --bank <bank> --thread <id>`: thread memory from the command line.
import { compose } from '../../compose.ts';
import type { Config } from '../../config/index.ts';
import { MEMORY_COMMANDS, runMemoryCommand, type MemoryCommand } from './thread-memory-report.ts';

export async function memoryCommand(config: Config, action: string, o: { bank: string; thread: string; json?: boolean }): Promise<void> {
  if (!MEMORY_COMMANDS.includes(action as MemoryCommand)) {
    process.stderr.write(`unknown action '${action}': use one of ${MEMORY_COMMANDS.join(', ')}\n`);
    process.exitCode = 2;
    return;
  }
  const { threads, shutdown } = await compose(config, { startWorker: false });
  try {
    process.stdout.write(await runMemoryCommand(threads, action as MemoryCommand, o));
  } finally {
    await shutdown();
  }
}
