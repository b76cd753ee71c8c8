// The `cairn` command: serve the API, retain files, recall, re-embed a bank.
import { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { log } from '../log.ts';
import { serveCommand } from './serve.ts';
import { recallCommand, retainCommand } from './memory-commands.ts';
import { reembedCommand } from './reembed.ts';
import { memoryCommand } from './thread-memory.ts';
import { runWorker } from '../consolidate/run-worker.ts';
import { exportCommand, importCommand, reconcileCommand } from '../portability/cli.ts';

export async function main(argv: string[]): Promise<void> {
  const program = new Command('cairn').description('Cairn: a memory engine for AI agents').showHelpAfterError();
  program
    .command('serve')
    .description('start the HTTP API on the embedded store (data directory: CAIRN_DATA_DIR, default ./data)')
    .option('-p, --port <port>', 'port (default CAIRN_PORT or 8787)')
    .action(async (opts: { port?: string }) => serveCommand(loadConfig(opts.port ? { ...process.env, CAIRN_PORT: opts.port } : process.env)));
  program
    .command('retain <file>')
    .description('retain a file into a bank: JSON (array of items or {items}), JSONL (one item per line) or plain text')
    .requiredOption('-b, --bank <bank>', 'bank id (created if missing)')
    .option('--document <id>', 'document id for plain text')
    .action(async (file: string, opts: { bank: string; document?: string }) => retainCommand(loadConfig(), file, opts));
  program
    .command('recall <query>')
    .description('recall memories of a bank for a query')
    .requiredOption('-b, --bank <bank>', 'bank id')
    .option('-l, --limit <n>', 'results', '10')
    .option('--query-time <iso>', 'read relative dates in the query from this instant')
    .option('--json', 'print JSON')
    .action(async (query: string, opts: { bank: string; limit: string; queryTime?: string; json?: boolean }) => recallCommand(loadConfig(), query, opts));
  program
    .command('reembed <bank>')
    .description("re-embed every fact of a bank with the active embedder (after changing CAIRN_EMBEDDER)")
    .action(async (bank: string) => reembedCommand(loadConfig(), bank));
  program
    .command('worker')
    .description('run the consolidation worker as its own process (on the same store as the API)')
    .action(async () => {
      await runWorker(loadConfig());
    });
  program
    .command('export <bank>')
    .description('write a bank as a versioned JSONL archive (backup, or moving to server mode)')
    .option('-o, --out <file>', 'archive file (default stdout)')
    .option('--embeddings', 'include vectors')
    .action(async (bank: string, o: { out?: string; embeddings?: boolean }) => exportCommand(loadConfig(), bank, o));
  program
    .command('import <file>')
    .description('read an archive made by `cairn export` into the configured store (re-embedding when needed)')
    .option('-b, --bank <id>', 'import under another bank id')
    .action(async (file: string, o: { bank?: string }) => importCommand(loadConfig(), file, o));
  program
    .command('reconcile')
    .description('server mode: find and repair drift between Neo4j and Qdrant')
    .option('--older-than <minutes>', 'complete or roll back writes older than this', '10')
    .option('--dry-run', 'only report')
    .action(async (o: { olderThan: string; dryRun?: boolean }) => reconcileCommand(loadConfig(), { olderThan: o.olderThan, dryRun: o.dryRun }));
  program
    .command('memory <action>')
    .description('thread memory: list | status | clear')
    .requiredOption('-b, --bank <bank>', 'bank id')
    .requiredOption('-t, --thread <id>', 'thread id')
    .option('--json', 'print JSON')
    .action(async (action: string, o: { bank: string; thread: string; json?: boolean }) => memoryCommand(loadConfig(), action, o));
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (e) {
    // One line saying what went wrong; where it went wrong only for debugging.
    process.stderr.write(`cairn: ${e instanceof Error ? e.message : String(e)}\n`);
    if (e instanceof Error && e.stack) log.debug(e.stack);
    process.exitCode = 1;
  }
}
