// `cairn serve`: the API (on the embedded store by default), with the consolidation worker in the same
// process unless CAIRN_WORKER=off.
import { serve } from '@hono/node-server';
import { createApp } from '../../api/index.ts';
import { compose } from '../../compose.ts';
import type { Config } from '../../config/index.ts';
import { log } from '../../log.ts';

export async function serveCommand(config: Config): Promise<void> {
  const { engine, routes, middleware, shutdown } = await compose(config);
  const { host, port, apiKey } = config.http;
  const app = createApp(engine, { apiKey, routes, middleware });
  const resumed = await engine.operations.resume();
  if (resumed) log.info(`resumed ${resumed} unfinished operation(s)`);
  const server = serve({ fetch: app.fetch, hostname: host, port }, (info) => {
    log.info(`cairn listening on http://${host}:${info.port} (auth: ${apiKey ? 'bearer key' : 'off'})`);
  });
  server.once('error', (e: Error) => {
    // A port in use or not ours to bind: one line and a non-zero exit, like every CLI error.
    process.stderr.write(`cairn: cannot listen on ${host}:${port}: ${e.message}\n`);
    void shutdown().finally(() => process.exit(1));
  });
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    log.info('shutting down');
    server.close();
    void shutdown().then(
      () => process.exit(0),
      (e: Error) => {
        process.stderr.write(`cairn: shutdown failed: ${e.message}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
