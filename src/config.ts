// Configuration from the environment, read once at start-up. Every setting has a working offline default.
export interface Config {
  /** Embedded store's data directory. */
  dataDir: string;
  host: string;
  port: number;
  apiKey: string | undefined;
  /** Run the consolidation worker inside the API process (embedded default). */
  embeddedWorker: boolean;
  /** Run that worker on a thread of its own (default) rather than on the API's event loop (CAIRN_WORKER=main). */
  workerThread: boolean;
  /** How far the worker thread lowers its scheduling priority (nice 0-19, Linux; default 10). */
  workerNice: number;
  env: NodeJS.ProcessEnv;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = Number(env.CAIRN_PORT ?? env.PORT ?? 8787);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`CAIRN_PORT '${env.CAIRN_PORT ?? env.PORT}' is not a port number`);
  const worker = env.CAIRN_WORKER?.trim() || 'on';
  if (!['on', 'off', 'main'].includes(worker)) throw new Error(`CAIRN_WORKER '${worker}' must be on, off or main`);
  const nice = Number(env.CAIRN_WORKER_NICE?.trim() || 10);
  if (!Number.isInteger(nice) || nice < 0 || nice > 19) throw new Error(`CAIRN_WORKER_NICE '${env.CAIRN_WORKER_NICE}' must be an integer from 0 to 19`);
  return {
    dataDir: env.CAIRN_DATA_DIR ?? 'data',
    host: env.CAIRN_HOST ?? '127.0.0.1',
    port,
    apiKey: env.CAIRN_API_KEY || undefined,
    embeddedWorker: worker !== 'off',
    workerThread: worker !== 'main',
    workerNice: nice,
    env,
  };
}
