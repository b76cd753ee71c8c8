// MCP over streamable HTTP, mounted on the API app: POST /mcp (the bank named per call, or by the x-cairn-bank
// header) and /mcp/banks/{bank} (bound to that bank). Stateless: each request gets its own server and transport,
// answers in JSON, and calls the app in process with the caller's own Authorization header, so the API key guards
// MCP exactly as it guards the REST routes (the app's auth middleware runs before this).
import type { OpenAPIHono } from '@hono/zod-openapi';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Context } from 'hono';
import { errorBody } from '../api/index.ts';
import { BANK_ID_RULE, isBankId } from '../core/index.ts';
import { createMcpServer } from './server.ts';

export interface McpRouteOptions {
  /** Largest MCP request body, in bytes (default 16 MB, the REST API's). */
  maxBodyBytes?: number;
}

export function mcpRoutes(options: McpRouteOptions = {}): (app: OpenAPIHono) => void {
  return (app) => {
    const handle = async (c: Context, bank: string | undefined): Promise<Response> => {
      if (bank !== undefined && !isBankId(bank))
        return c.json(errorBody('bad_request', `bank '${bank.slice(0, 140)}': ${BANK_ID_RULE}`), 400);
      const server = createMcpServer({
        fetch: (request) => app.request(request),
        authorization: c.req.header('authorization'),
        bank,
      });
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
        maxRequestBodySize: options.maxBodyBytes ?? 16 * 1024 * 1024,
      });
      await server.connect(transport);
      try {
        return await transport.handleRequest(c.req.raw);
      } finally {
        await server.close();
      }
    };
    app.all('/mcp', (c) => handle(c, c.req.header('x-cairn-bank')));
    app.all('/mcp/banks/:bank', (c) => handle(c, c.req.param('bank')));
  };
}
