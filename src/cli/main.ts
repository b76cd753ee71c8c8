// The `cairn` command: serve the API, retain files, recall, re-embed a bank.
import { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { serveCommand } from './serve.ts';
import { recallCommand, retainCommand } from './memory-commands.ts';
import { reembedCommand } from './reembed.ts';

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
  await program.parseAsync(argv, { from: 'user' });
}
