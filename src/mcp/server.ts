// Cairn as an MCP server: the tools of tools.ts and two resources (a bank's mission, a thread's context), each
// answered by one request to the REST API through `fetch` (the app in process, or a Cairn elsewhere). A connection
// may be bound to a bank: its tools then act on that bank and refuse another.
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { z } from '@hono/zod-openapi';
import { BankIdSchema, jsonValueProblem } from '../api/index.ts';
import { type RestRequest, TOOLS, ToolInputError, type ToolRecipe } from './tools.ts';

/** Answers a REST request: the Hono app's `request` in process, or fetch against a running Cairn. */
export type RestFetch = (request: Request) => Response | Promise<Response>;

export interface McpServerOptions {
  fetch: RestFetch;
  /** Sent as the Authorization header of every REST request (the connection's own, or the configured key). */
  authorization?: string;
  /** The bank this connection is bound to. */
  bank?: string;
  version?: string;
}

const INSTRUCTIONS =
  'Cairn is long-term memory. Before answering something that may depend on earlier conversations or documents, call recall ' +
  '(or reflect for a cited answer). Store what is worth remembering with retain, with a timestamp when known. For a long ' +
  'conversation, send its turns to thread_append and put thread_context at the start of the prompt. Use why to check the ' +
  'evidence behind a memory, and forget_fact or forget_document only when asked to forget.';

const failure = (text: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text }] });

/** A REST error answer as one line: its status, then Cairn's `code: message` (or the body as it came). */
function restError(response: Response, text: string): string {
  let message = text;
  try {
    const { error } = JSON.parse(text) as { error?: { code?: string; message?: string } };
    if (error?.message) message = `${error.code ?? response.status}: ${error.message}`;
  } catch {
    // not JSON: the text as it came
  }
  return `${response.status} ${message}`.trim();
}

/** A REST answer as a tool result: the JSON body as text (reshaped when the tool says so), or an error naming what
 * to fix. */
async function toolResult(response: Response, reshape?: (body: unknown) => unknown): Promise<CallToolResult> {
  const text = await response.text();
  if (response.ok) return { content: [{ type: 'text', text: reshape ? JSON.stringify(reshape(JSON.parse(text))) : text || '{}' }] };
  return failure(restError(response, text));
}

/** A resource's URI variable: percent-decoded (the URI carries it encoded), as given when it does not decode. */
function decoded(value: string | string[]): string {
  const text = String(value);
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Connects the server to the transport, refusing (as a tool error, like every bad argument) a tool call whose arguments
 * hold, at any depth, what JSON can spell but no schema keeps: the SDK reads `arguments` as a record and zod's records
 * (metadata, bank config, settings) build theirs by assignment, both skipping an own "__proto__" key, so
 * `{"id": "x", "__proto__": {...}}` ran as if the key were not there. The REST edge refuses the same values with the
 * same words, before validation too (api/json-values.ts).
 */
export async function connectMcp(server: McpServer, transport: Transport): Promise<void> {
  await server.connect(transport);
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const problem = toolArgumentsProblem(message);
    const id = 'id' in message ? message.id : undefined;
    if (problem === null || id === undefined) return deliver?.(message, extra);
    const refusal: CallToolResult = { content: [{ type: 'text', text: problem }], isError: true };
    void transport.send({ jsonrpc: '2.0', id, result: refusal }).catch(() => undefined);
  };
}

/** What a tools/call message's arguments hold that jsonValueProblem names, or null. */
function toolArgumentsProblem(message: JSONRPCMessage): string | null {
  if (!('method' in message) || message.method !== 'tools/call') return null;
  const args = (message.params as { arguments?: unknown } | undefined)?.arguments;
  return args !== null && typeof args === 'object' ? jsonValueProblem(args) : null;
}

export function createMcpServer(options: McpServerOptions): McpServer {
  const server = new McpServer(
    { name: 'cairn', title: 'Cairn memory', version: options.version ?? '0.1.0' },
    { instructions: INSTRUCTIONS },
  );
  const send = (r: RestRequest): Promise<Response> => {
    const url = new URL(`http://cairn${r.path}`);
    for (const [k, v] of Object.entries(r.query ?? {})) if (v !== undefined) url.searchParams.set(k, v);
    const headers = new Headers({ accept: 'application/json' });
    if (r.body !== undefined) headers.set('content-type', 'application/json');
    if (options.authorization) headers.set('authorization', options.authorization);
    return Promise.resolve(
      options.fetch(new Request(url, { method: r.method, headers, body: r.body === undefined ? undefined : JSON.stringify(r.body) })),
    );
  };
  const bound = options.bank;
  /** Why a bound connection may not use this bank, or null when it may. */
  const refusal = (bank: string): string | null =>
    bound && bank !== bound ? `this connection is bound to bank "${bound}"; it cannot use "${bank}"` : null;
  const bankField = bound
    ? BankIdSchema.optional().describe(
        `The bank to use; this connection is bound to "${bound}", which is the default and the only one allowed`,
      )
    : BankIdSchema.describe('The memory bank to use (list_banks shows them)');

  const register = (tool: ToolRecipe): void => {
    // Strict, as the REST bodies are: an argument the tool does not take (a typo, an option it lacks) is a tool error
    // naming it, not silently dropped.
    const inputSchema = z.object(tool.onBank ? { bank: bankField, ...tool.fields } : tool.fields).strict();
    server.registerTool(
      tool.name,
      { title: tool.title, description: tool.description, inputSchema, annotations: tool.annotations },
      async (args: Record<string, unknown>): Promise<CallToolResult> => {
        const asked = args.bank as string | undefined;
        const refused = tool.onBank && asked !== undefined ? refusal(asked) : null;
        if (refused) return failure(refused);
        const bank = tool.onBank ? (asked ?? bound ?? '') : '';
        let request: RestRequest;
        try {
          request = tool.request(args, bank, bound);
        } catch (e) {
          if (e instanceof ToolInputError) return failure(e.message);
          throw e;
        }
        // What JSON.stringify would silently change (Infinity to null) is refused as the REST edge refuses it.
        const problem = request.body === undefined ? null : jsonValueProblem(request.body);
        if (problem) return failure(problem);
        return toolResult(await send(request), request.reshape);
      },
    );
  };
  for (const tool of TOOLS) register(tool);

  /** A resource read through a tool's REST request (so both name the same route), or an MCP error carrying the
   * REST one. The URI's variables come percent-encoded. */
  const read = async (toolName: string, variables: Record<string, string | string[]>): Promise<unknown> => {
    const args = Object.fromEntries(Object.entries(variables).map(([k, v]) => [k, decoded(v)]));
    const bank = String(args.bank);
    const refused = refusal(bank);
    if (refused) throw new Error(refused);
    const tool = TOOLS.find((t) => t.name === toolName)!;
    const response = await send(tool.request(args, bank, bound));
    const text = await response.text();
    if (!response.ok) throw new Error(restError(response, text));
    return JSON.parse(text);
  };
  server.registerResource(
    'bank-mission',
    new ResourceTemplate('cairn://banks/{bank}/mission', { list: undefined }),
    { title: "A bank's mission", description: 'What the bank remembers for (it steers consolidation)', mimeType: 'text/plain' },
    async (uri, { bank }) => {
      const found = (await read('get_bank', { bank })) as { mission: string };
      return { contents: [{ uri: uri.href, mimeType: 'text/plain', text: found.mission }] };
    },
  );
  server.registerResource(
    'thread-context',
    new ResourceTemplate('cairn://banks/{bank}/threads/{thread}/context', { list: undefined }),
    {
      title: "A thread's context",
      description: 'Compressed memory of a conversation thread plus its recent messages',
      mimeType: 'application/json',
    },
    async (uri, { bank, thread }) => {
      const context = await read('thread_context', { bank, thread });
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(context) }] };
    },
  );
  return server;
}
