// MCP over streamable HTTP, mounted on the API app: POST /mcp (the bank named per call, or by the x-cairn-bank
// header) and /mcp/banks/{bank} (bound to that bank). Stateless: each request gets its own server and transport,
// answers in JSON, and calls the app in process with the caller's own Authorization header, so the API key guards
// MCP exactly as it guards the REST routes (the app's auth middleware runs before this).
import type { OpenAPIHono } from '@hono/zod-openapi';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { errorBody, jsonDepthLimit } from '../api/index.ts';
import { BANK_ID_RULE, isBankId, shortened } from '../core/index.ts';
import { connectMcp, createMcpServer } from './server.ts';

export interface McpRouteOptions {
  /** Largest MCP request body, in bytes (default 16 MB, the REST API's). */
  maxBodyBytes?: number;
}

export function mcpRoutes(options: McpRouteOptions = {}): (app: OpenAPIHono) => void {
  const maxSize = options.maxBodyBytes ?? 16 * 1024 * 1024;
  return (app) => {
    const handle = async (c: Context, bank: string | undefined): Promise<Response> => {
      if (bank !== undefined && !isBankId(bank))
        return c.json(errorBody('bad_request', `bank '${shortened(bank, 140)}': ${BANK_ID_RULE}`), 400);
      const server = createMcpServer({
        fetch: (request) => app.request(request),
        authorization: c.req.header('authorization'),
        bank,
      });
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
        maxRequestBodySize: maxSize,
      });
      await connectMcp(server, transport);
      try {
        // The depth check read the body already (Hono keeps its text): the transport gets a request made from it.
        const request = new Request(c.req.url, { method: 'POST', headers: c.req.raw.headers, body: await c.req.text() });
        return await transport.handleRequest(request);
      } finally {
        await server.close();
      }
    };
    // Stateless: no stream to open with GET, no session to end with DELETE (a client then stops asking).
    const post = (c: Context, bank: string | undefined): Response | Promise<Response> =>
      c.req.method === 'POST'
        ? handle(c, bank)
        : c.json(errorBody('method_not_allowed', 'this MCP endpoint is stateless: send JSON-RPC messages with POST'), 405, {
            allow: 'POST',
          });
    const tooLarge = bodyLimit({
      maxSize,
      onError: (c) => c.json(errorBody('payload_too_large', `an MCP request may hold at most ${maxSize} bytes`), 413),
    });
    for (const path of ['/mcp', '/mcp/banks/:bank']) app.use(path, tooLarge, jsonDepthLimit());
    app.all('/mcp', (c) => post(c, c.req.header('x-cairn-bank')));
    app.all('/mcp/banks/:bank', (c) => post(c, c.req.param('bank')));
  };
}
