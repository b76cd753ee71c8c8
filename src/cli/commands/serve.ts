// `cairn serve`: the API (on the embedded store by default), with the consolidation worker in the same
// process unless CAIRN_WORKER=off. The port is bound first: a second server started on a port in use exits at once,
// before it opens the data directory, resumes its operations or starts a worker on it.
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createApp } from '../../api/index.ts';
import { compose } from '../../compose.ts';
import type { Config } from '../../config/index.ts';
import { log } from '../../log.ts';

/** The app's fetch, with what the Node adapter passes beside the request (its incoming and outgoing messages). */
type Fetch = ReturnType<typeof createApp>['fetch'];

export async function serveCommand(config: Config): Promise<void> {
  const { host, port, apiKey } = config.http;
  // Requests that arrive while the store opens wait for the app.
  let ready!: (fetch: Fetch) => void;
  const app = new Promise<Fetch>((resolve) => (ready = resolve));
  const server = serve({ fetch: async (request, env) => (await app)(request, env), hostname: host, port });
  const bound = await new Promise<number | Error>((resolve) => {
    server.once('listening', () => resolve((server.address() as AddressInfo).port));
    server.once('error', (e: Error) => resolve(e));
  });
  if (bound instanceof Error) {
    // A port in use or not ours to bind: one line and a non-zero exit, like every CLI error.
    process.stderr.write(`cairn: cannot listen on ${host}:${port}: ${bound.message}\n`);
    process.exit(1);
  }
  // Signals are heard from here on, every one of them: a stop while the store opens waits for it, then shuts it down
  // (Node's default, for a signal before this or a second one, ended the process at once: `npm start` and a terminal's
  // Ctrl-C deliver SIGINT twice, and a test's stop could land between the "listening" line and the handlers).
  let stopping = false;
  let opened: (() => Promise<void>) | null = null;
  const finish = (shutdown: () => Promise<void>): void => {
    void shutdown().then(
      () => process.exit(0),
      (e: Error) => {
        process.stderr.write(`cairn: shutdown failed: ${e.message}\n`);
        process.exit(1);
      },
    );
  };
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    log.info('shutting down');
    server.close();
    if (opened) finish(opened);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  const { engine, routes, middleware, shutdown } = await compose(config);
  opened = shutdown;
  if (stopping) return finish(shutdown);
  ready(createApp(engine, { apiKey, routes, middleware }).fetch);
  const resumed = await engine.operations.resume();
  if (resumed) log.info(`resumed ${resumed} unfinished operation(s)`);
  log.info(`cairn listening on http://${host}:${bound} (auth: ${apiKey ? 'bearer key' : 'off'})`);
}
