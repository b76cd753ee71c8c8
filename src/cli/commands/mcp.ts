// `cairn mcp`: Cairn as an MCP server over stdio, for desktop agents that start their tools as processes. It opens
// the store itself (the embedded default, or the servers in server mode), or with --url talks to a running Cairn.
// stdout carries the protocol only: the log goes to stderr.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createApp } from '../../api/index.ts';
import { compose } from '../../compose.ts';
import type { Config } from '../../config/index.ts';
import { CairnError, checkBankId } from '../../core/index.ts';
import { log } from '../../log.ts';
import { connectMcp, createMcpServer, type RestFetch } from '../../mcp/index.ts';

export interface McpCommandOptions {
  bank?: string;
  url?: string;
}

/** The running Cairn's URL: http or https, without credentials (the key goes in CAIRN_API_KEY). */
function remoteBase(text: string): URL {
  if (!URL.canParse(text)) throw new CairnError('bad_request', `--url '${text}' is not a URL; give one such as http://127.0.0.1:8787`);
  const url = new URL(text);
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new CairnError('bad_request', `--url must be an http or https URL, not ${url.protocol}`);
  if (url.username || url.password)
    throw new CairnError('bad_request', '--url must not carry credentials; set the API key in CAIRN_API_KEY');
  return url;
}

export async function mcpCommand(config: Config, opts: McpCommandOptions): Promise<void> {
  const bank = opts.bank === undefined ? undefined : checkBankId(opts.bank);
  const { apiKey } = config.http;
  const authorization = apiKey ? `Bearer ${apiKey}` : undefined;
  let fetch: RestFetch;
  let shutdown = async (): Promise<void> => {};
  if (opts.url) {
    const base = remoteBase(opts.url);
    fetch = async (request) => {
      const url = new URL(request.url);
      const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.text();
      const target = new URL(`${base.pathname.replace(/\/+$/, '')}${url.pathname}${url.search}`, base);
      try {
        return await globalThis.fetch(target, { method: request.method, headers: request.headers, body });
      } catch (e) {
        // fetch says only "fetch failed"; the cause names what (a refused connection, an unknown host).
        const cause = (e as { cause?: { message?: string } }).cause?.message;
        throw new Error(`cannot reach Cairn at ${base.origin}: ${cause ?? (e as Error).message}`);
      }
    };
  } else {
    const composed = await compose(config);
    const app = createApp(composed.engine, { apiKey, routes: composed.routes, middleware: composed.middleware });
    const resumed = await composed.engine.operations.resume();
    if (resumed) log.info(`resumed ${resumed} unfinished operation(s)`);
    fetch = (request) => app.request(request);
    shutdown = composed.shutdown;
  }
  const server = createMcpServer({ fetch, authorization, bank });
  const transport = new StdioServerTransport();
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    void server
      .close()
      .catch(() => undefined)
      .then(shutdown)
      .finally(() => process.exit(0));
  };
  transport.onclose = stop;
  process.stdin.once('end', stop);
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await connectMcp(server, transport);
  log.info(`cairn mcp on stdio${bank ? ` (bank ${bank})` : ''}${opts.url ? ` against ${opts.url}` : ''}`);
}
