// The `cairn` command: serve the API, retain files, recall, re-embed a bank. Each command's module is loaded
// when it runs, so mistakes in arguments and files are reported before (and without) loading a store or models.
// Every error is one line on stderr and a non-zero exit (CAIRN_LOG_LEVEL=debug adds the stack).
import { Argument, Command, InvalidArgumentError } from 'commander';
import { loadConfig, type Config } from '../config/index.ts';
import { isoInstant, ISO_HINT } from '../core/index.ts';
import { configureLog, log } from '../log.ts';
import { MEMORY_COMMANDS } from './commands/thread-memory-report.ts';

/** A commander parser for a whole number in [min, max], refusing anything else with a message naming the option. */
const wholeNumber =
  (name: string, min: number, max: number) =>
  (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || n < min || n > max)
      throw new InvalidArgumentError(`${name} must be a whole number from ${min} to ${max}.`);
    return n;
  };

const instant = (value: string): string => {
  const at = isoInstant(value);
  if (at === null) throw new InvalidArgumentError(`query-time must be an ISO 8601 date or date-time, ${ISO_HINT}.`);
  return at;
};

/** The configuration, read once when a command runs (after its arguments were checked); logging follows it. */
function configuration(): Config {
  const config = loadConfig();
  configureLog(config.log);
  return config;
}

function program(): Command {
  const cli = new Command('cairn').description('Cairn: a memory engine for AI agents');
  cli
    .command('serve')
    .description('start the HTTP API on the embedded store (data directory: CAIRN_DATA_DIR, default ./data)')
    .option('-p, --port <port>', 'port (default CAIRN_PORT or 8787)', wholeNumber('port', 0, 65535))
    .action(async (opts: { port?: number }) => {
      const config = configuration();
      const { serveCommand } = await import('./commands/serve.ts');
      await serveCommand(opts.port === undefined ? config : { ...config, http: { ...config.http, port: opts.port } });
    });
  cli
    .command('mcp')
    .description('serve MCP over stdio (for desktop agents): the store of this machine, or a running Cairn with --url')
    .option('-b, --bank <bank>', 'bind the connection to one bank (its tools then need no bank argument)')
    .option('--url <url>', 'a running Cairn to talk to (its key: CAIRN_API_KEY) instead of opening the store here')
    .action(async (opts: { bank?: string; url?: string }) => {
      const config = configuration();
      const { mcpCommand } = await import('./commands/mcp.ts');
      await mcpCommand(config, opts);
    });
  cli
    .command('retain <file>')
    .description('retain a file into a bank: JSON (array of items or {items}), JSONL (one item per line) or plain text')
    .requiredOption('-b, --bank <bank>', 'bank id (created if missing)')
    .option('--document <id>', 'document id for plain text')
    .action(async (file: string, opts: { bank: string; document?: string }) => {
      const { readItems } = await import('./items.ts');
      const items = readItems(file, opts.document);
      const { retainCommand } = await import('./commands/memory-commands.ts');
      await retainCommand(configuration(), file, opts, undefined, items);
    });
  cli
    .command('recall <query>')
    .description('recall memories of a bank for a query')
    .requiredOption('-b, --bank <bank>', 'bank id')
    .option('-l, --limit <n>', 'results (1 to 500)', wholeNumber('limit', 1, 500), 10)
    .option('--query-time <iso>', 'read relative dates in the query from this instant (ISO 8601)', instant)
    .option(
      '--per-source <n>',
      'most results from one source passage (0 to 500; 0 lifts the cap; default 2)',
      wholeNumber('per-source', 0, 500),
    )
    .option('--passages', 'also print the whole passages the results came from (group: source)')
    .option('--json', 'print JSON')
    .action(
      async (
        query: string,
        opts: { bank: string; limit: number; queryTime?: string; perSource?: number; passages?: boolean; json?: boolean },
      ) => {
        const { RecallRequestSchema, describeIssues } = await import('../api/index.ts');
        const request = RecallRequestSchema.safeParse({
          query,
          limit: opts.limit,
          queryTime: opts.queryTime,
          perSource: opts.perSource,
          ...(opts.passages ? { group: 'source' } : {}),
        });
        if (!request.success) throw new Error(describeIssues(request.error.issues));
        const { recallCommand } = await import('./commands/memory-commands.ts');
        await recallCommand(configuration(), opts.bank, request.data, opts);
      },
    );
  cli
    .command('reembed <bank>')
    .description('re-embed every fact of a bank with the active embedder (after changing CAIRN_EMBEDDER)')
    .action(async (bank: string) => {
      const { reembedCommand } = await import('./commands/reembed.ts');
      await reembedCommand(configuration(), bank);
    });
  cli
    .command('worker')
    .description('run the consolidation worker as its own process (on the same store as the API)')
    .action(async () => {
      const config = configuration();
      const { runWorker } = await import('./commands/worker.ts');
      await runWorker(config);
    });
  cli
    .command('export <bank>')
    .description('write a bank as a versioned JSONL archive (backup, or moving to server mode)')
    .option('-o, --out <file>', 'archive file (default stdout)')
    .option('--embeddings', 'include vectors')
    .action(async (bank: string, o: { out?: string; embeddings?: boolean }) => {
      const { exportCommand } = await import('./commands/portability.ts');
      await exportCommand(configuration(), bank, o);
    });
  cli
    .command('import <file>')
    .description('read an archive made by `cairn export` into the configured store (re-embedding when needed)')
    .option('-b, --bank <id>', 'import under another bank id (a copy: its records get new ids, so it can sit beside the original)')
    .action(async (file: string, o: { bank?: string }) => {
      const { importCommand } = await import('./commands/portability.ts');
      await importCommand(configuration(), file, o);
    });
  cli
    .command('reconcile')
    .description('server mode: find and repair drift between Neo4j and Qdrant')
    .option('--older-than <minutes>', 'complete or roll back writes older than this', '10')
    .option('--dry-run', 'only report')
    .action(async (o: { olderThan: string; dryRun?: boolean }) => {
      const { reconcileCommand } = await import('./commands/portability.ts');
      await reconcileCommand(configuration(), { olderThan: o.olderThan, dryRun: o.dryRun });
    });
  cli
    .command('memory')
    .description('thread memory: list | status | clear')
    .addArgument(new Argument('<action>').choices(MEMORY_COMMANDS))
    .requiredOption('-b, --bank <bank>', 'bank id')
    .requiredOption('-t, --thread <id>', 'thread id')
    .option('--json', 'print JSON')
    .action(async (action: string, o: { bank: string; thread: string; json?: boolean }) => {
      const { memoryCommand } = await import('./commands/thread-memory.ts');
      await memoryCommand(configuration(), action, o);
    });
  return cli;
}

export async function main(argv: string[]): Promise<void> {
  try {
    await program().parseAsync(argv, { from: 'user' });
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    log.debug(e instanceof Error && e.stack ? e.stack : message);
    process.stderr.write(`cairn: ${message.trim().replace(/\s*\n\s*/g, '; ')}\n`);
    process.exitCode = 1;
  }
}
