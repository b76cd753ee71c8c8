// Configuration from the environment, read once at start-up. Every setting has a working offline default.
export interface Config {
  /** Embedded store's data directory. */
  dataDir: string;
  host: string;
  port: number;
  apiKey: string | undefined;
  /** Run the consolidation worker inside the API process (embedded default). */
  embeddedWorker: boolean;
  env: NodeJS.ProcessEnv;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = Number(env.CAIRN_PORT ?? env.PORT ?? 8787);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`CAIRN_PORT '${env.CAIRN_PORT ?? env.PORT}' is not a port number`);
  return {
    dataDir: env.CAIRN_DATA_DIR ?? 'data',
    host: env.CAIRN_HOST ?? '127.0.0.1',
    port,
    apiKey: env.CAIRN_API_KEY || undefined,
    embeddedWorker: env.CAIRN_WORKER !== 'off',
    env,
  };
}
