// Thread memory routes: append messages, read the context (memory prefix + raw tail), status and an SSE stream
// of memory events, list and clear memory, working memory and remember, thread and bank thread settings.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { streamSSE } from 'hono/streaming';
import type { ThreadMemory, MemoryEvent, MemoryStatus, MessageInput } from '../../threads/index.ts';
import { describeIssues, errorBody } from '../errors.ts';
import {
  AppendEnvelope,
  AppendResponse,
  AppendSchema,
  BankIdParam,
  ContextSchema,
  ErrorSchema,
  json,
  DeleteQuery,
  deleteReason,
  MemoryItemSchema,
  MessageInputSchema,
  MessageList,
  MessageSchema,
  queryInteger,
  ResourceId,
  Settings,
  SettingsResponse,
  StatusSchema,
  ThreadParams,
  ThreadSchema,
  WorkingMemorySchema,
} from '../schemas.ts';

export interface ThreadRouteDeps {
  memory: ThreadMemory;
  /** Seconds between SSE keep-alive comments (default 15). */
  heartbeatSeconds?: number;
}

const errors = { 400: json(ErrorSchema, 'Invalid request'), 404: json(ErrorSchema, 'No such bank or thread') };
const body = <T extends z.ZodType>(schema: T) => ({ content: { 'application/json': { schema } }, required: true });

const STATUSES = ['running', 'buffered', 'active', 'archived'] as const;

/** Which shape a failed append body was meant to be, so the error names that shape's problems. */
function appendProblem(value: unknown): string {
  const schema = Array.isArray(value)
    ? MessageList
    : value && typeof value === 'object' && 'messages' in value
      ? AppendEnvelope
      : MessageInputSchema;
  const parsed = schema.safeParse(value);
  return parsed.success ? 'invalid body' : describeIssues(parsed.error.issues);
}

export function threadRoutes(deps: ThreadRouteDeps): (app: OpenAPIHono) => void {
  const { memory } = deps;
  const heartbeatMs = (deps.heartbeatSeconds ?? 15) * 1000;
  return (app) => {
    app.openapi(
      createRoute({
        method: 'post',
        path: '/v1/banks/{bank}/threads/{thread}/messages',
        tags: ['threads'],
        summary: 'Append one or many messages (stored before any processing)',
        request: { params: ThreadParams, body: body(AppendSchema) },
        responses: {
          200: json(AppendResponse, 'Stored, with the synchronous memory step done'),
          ...errors,
          409: json(ErrorSchema, 'resourceId conflict'),
        },
      }),
      async (c) => {
        const { bank, thread } = c.req.valid('param');
        const input = c.req.valid('json');
        const envelope = Array.isArray(input) ? { messages: input } : 'messages' in input ? input : { messages: [input] };
        const result = await memory.append(bank, thread, {
          messages: envelope.messages as MessageInput[],
          resourceId: 'resourceId' in envelope ? envelope.resourceId : undefined,
        });
        return c.json(result, 200);
      },
      (result, c) => {
        if (result.success) return;
        const fallback = describeIssues(result.error.issues);
        return (async () => {
          const message = result.target === 'json' ? appendProblem(await c.req.json().catch(() => undefined)) : fallback;
          return c.json(errorBody('bad_request', message), 400);
        })();
      },
    );

    app.openapi(
      createRoute({
        method: 'get',
        path: '/v1/banks/{bank}/threads/{thread}/messages',
        tags: ['threads'],
        request: {
          params: ThreadParams,
          query: z
            .object({
              limit: queryInteger('limit', { min: 1, max: 1000, default: 100 }),
              offset: queryInteger('offset', { min: 0, default: 0 }),
            })
            .strict(),
        },
        responses: { 200: json(z.object({ messages: z.array(MessageSchema) }), 'Messages in order'), ...errors },
      }),
      async (c) => {
        const { bank, thread } = c.req.valid('param');
        return c.json({ messages: await memory.listMessages(bank, thread, c.req.valid('query')) }, 200);
      },
    );

    app.openapi(
      createRoute({
        method: 'get',
        path: '/v1/banks/{bank}/threads',
        tags: ['threads'],
        request: {
          params: BankIdParam,
          query: z
            .object({
              resourceId: z.string().optional(),
              limit: queryInteger('limit', { min: 1, max: 1000, default: 100 }),
              offset: queryInteger('offset', { min: 0, default: 0 }),
            })
            .strict(),
        },
        responses: { 200: json(z.object({ threads: z.array(ThreadSchema) }), 'Threads of the bank'), ...errors },
      }),
      async (c) => c.json({ threads: await memory.listThreads(c.req.valid('param').bank, c.req.valid('query')) }, 200),
    );

    app.openapi(
      createRoute({
        method: 'get',
        path: '/v1/banks/{bank}/threads/{thread}',
        tags: ['threads'],
        request: { params: ThreadParams },
        responses: { 200: json(ThreadSchema, 'The thread'), ...errors },
      }),
      async (c) => {
        const { bank, thread } = c.req.valid('param');
        return c.json(await memory.getThread(bank, thread), 200);
      },
    );

    app.openapi(
      createRoute({
        method: 'put',
        path: '/v1/banks/{bank}/threads/{thread}',
        tags: ['threads'],
        summary: 'Create or update a thread: resourceId (before its first message) and per-thread setting overrides',
        request: {
          params: ThreadParams,
          body: body(z.object({ resourceId: ResourceId.nullable().optional(), settings: Settings.optional() }).strict()),
        },
        responses: {
          200: json(ThreadSchema, 'The thread'),
          ...errors,
          409: json(ErrorSchema, 'The change conflicts with existing messages or memory'),
        },
      }),
      async (c) => {
        const { bank, thread } = c.req.valid('param');
        return c.json(await memory.putThread(bank, thread, c.req.valid('json')), 200);
      },
    );

    app.openapi(
      createRoute({
        method: 'delete',
        path: '/v1/banks/{bank}/threads/{thread}',
        tags: ['threads'],
        request: { params: ThreadParams, query: DeleteQuery },
        responses: {
          200: json(z.object({ deleted: z.string() }), 'Deleted with its messages and memory (its tombstone keeps when and why)'),
          ...errors,
        },
      }),
      async (c) => {
        const { bank, thread } = c.req.valid('param');
        await memory.deleteThread(bank, thread, deleteReason(c.req.valid('query')));
        return c.json({ deleted: thread }, 200);
      },
    );

    app.openapi(
      createRoute({
        method: 'get',
        path: '/v1/banks/{bank}/threads/{thread}/context',
        tags: ['threads'],
        summary: 'Memory prefix (stable between turns until memory changes) and the raw unobserved tail',
        request: {
          params: ThreadParams,
          query: z.object({ maxTokens: queryInteger('maxTokens', { min: 1, max: 2_000_000 }) }).strict(),
        },
        responses: { 200: json(ContextSchema, 'The context'), ...errors },
      }),
      async (c) => {
        const { bank, thread } = c.req.valid('param');
        return c.json(await memory.context(bank, thread, { maxTokens: c.req.valid('query').maxTokens }), 200);
      },
    );

    app.openapi(
      createRoute({
        method: 'get',
        path: '/v1/banks/{bank}/threads/{thread}/memory',
        tags: ['threads'],
        summary: 'Memory status: windows, thresholds, buffers, generations',
        request: { params: ThreadParams },
        responses: { 200: json(StatusSchema, 'Status'), ...errors },
      }),
      async (c) => {
        const { bank, thread } = c.req.valid('param');
        return c.json(await memory.status(bank, thread), 200);
      },
    );

    app.openapi(
      createRoute({
        method: 'delete',
        path: '/v1/banks/{bank}/threads/{thread}/memory',
        tags: ['threads'],
        summary: "Clear the thread's memory record (observations, reflections, buffers, working memory); messages stay",
        request: { params: ThreadParams },
        responses: { 200: json(z.object({ recordId: z.string(), items: z.number(), workingMemory: z.boolean() }), 'Cleared'), ...errors },
      }),
      async (c) => {
        const { bank, thread } = c.req.valid('param');
        return c.json(await memory.clear(bank, thread), 200);
      },
    );

    app.openapi(
      createRoute({
        method: 'get',
        path: '/v1/banks/{bank}/threads/{thread}/observations',
        tags: ['threads'],
        summary: 'Observations and reflections of the thread’s record',
        request: {
          params: ThreadParams,
          query: z
            .object({ status: z.string().optional().openapi({ description: 'Comma-separated: running, buffered, active, archived' }) })
            .strict(),
        },
        responses: { 200: json(z.object({ items: z.array(MemoryItemSchema) }), 'Memory items in creation order'), ...errors },
      }),
      async (c) => {
        const { bank, thread } = c.req.valid('param');
        const wanted = (c.req.valid('query').status ?? '')
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
        const unknown = wanted.filter((s) => !(STATUSES as readonly string[]).includes(s));
        if (unknown.length)
          return c.json(errorBody('bad_request', `status must be among ${STATUSES.join(', ')}; got ${unknown.join(', ')}`), 400);
        return c.json({ items: await memory.items(bank, thread, wanted as MemoryStatus[]) }, 200);
      },
    );

    app.openapi(
      createRoute({
        method: 'get',
        path: '/v1/banks/{bank}/threads/{thread}/events',
        tags: ['threads'],
        summary: 'Server-Sent Events: observation, reflection, buffering (start/end/failed), activation, working-memory.updated',
        request: {
          params: ThreadParams,
          query: z
            .object({
              since: queryInteger('since', { min: 0 }).openapi({
                description: 'Replay kept events after this id (also: Last-Event-ID header)',
              }),
            })
            .strict(),
        },
        responses: {
          200: {
            content: { 'text/event-stream': { schema: z.string() } },
            description: 'Event stream; each event has id, event (type) and JSON data',
          },
          ...errors,
        },
      }),
      async (c) => {
        const { bank, thread } = c.req.valid('param');
        const recordId = await memory.recordOf(bank, thread);
        const header = c.req.header('Last-Event-ID');
        const since = header !== undefined && /^\d+$/.test(header) ? Number(header) : c.req.valid('query').since;
        return streamSSE(c, async (stream) => {
          const pending: MemoryEvent[] = [];
          let wake: (() => void) | null = null;
          let closed = false;
          const unsubscribe = memory.events.subscribe(bank, recordId, (e) => {
            pending.push(e);
            wake?.();
          });
          stream.onAbort(() => {
            closed = true;
            wake?.();
          });
          let last = 0;
          const send = async (e: MemoryEvent): Promise<void> => {
            if (e.id <= last) return;
            last = e.id;
            await stream.writeSSE({ id: String(e.id), event: e.type, data: JSON.stringify(e) });
          };
          try {
            if (since !== undefined) for (const e of memory.events.history(bank, recordId, since)) await send(e);
            while (!closed) {
              while (pending.length) await send(pending.shift() as MemoryEvent);
              const timedOut = await new Promise<boolean>((resolve) => {
                const timer = setTimeout(() => resolve(true), heartbeatMs);
                wake = () => {
                  clearTimeout(timer);
                  resolve(false);
                };
              });
              wake = null;
              if (timedOut && !closed) await stream.write(': keep-alive\n\n');
            }
          } finally {
            unsubscribe();
          }
        });
      },
    );

    app.openapi(
      createRoute({
        method: 'get',
        path: '/v1/banks/{bank}/threads/{thread}/working-memory',
        tags: ['threads'],
        request: { params: ThreadParams },
        responses: { 200: json(WorkingMemorySchema, 'The working-memory document (the template when none yet)'), ...errors },
      }),
      async (c) => {
        const { bank, thread } = c.req.valid('param');
        return c.json(await memory.workingMemory(bank, thread), 200);
      },
    );

    app.openapi(
      createRoute({
        method: 'put',
        path: '/v1/banks/{bank}/threads/{thread}/working-memory',
        tags: ['threads'],
        request: { params: ThreadParams, body: body(z.object({ content: z.string().max(200_000) }).strict()) },
        responses: { 200: json(WorkingMemorySchema, 'Replaced'), ...errors },
      }),
      async (c) => {
        const { bank, thread } = c.req.valid('param');
        return c.json(await memory.putWorkingMemory(bank, thread, c.req.valid('json').content), 200);
      },
    );

    app.openapi(
      createRoute({
        method: 'post',
        path: '/v1/banks/{bank}/threads/{thread}/remember',
        tags: ['threads'],
        summary: 'Append a note to working memory',
        request: {
          params: ThreadParams,
          body: body(z.object({ note: z.string().trim().min(1, 'note must not be empty').max(4000) }).strict()),
        },
        responses: { 200: json(WorkingMemorySchema, 'The updated document'), ...errors },
      }),
      async (c) => {
        const { bank, thread } = c.req.valid('param');
        return c.json(await memory.remember(bank, thread, c.req.valid('json').note), 200);
      },
    );

    app.openapi(
      createRoute({
        method: 'get',
        path: '/v1/banks/{bank}/thread-settings',
        tags: ['threads'],
        request: { params: BankIdParam },
        responses: { 200: json(SettingsResponse, "The bank's thread settings and the values in effect"), ...errors },
      }),
      async (c) => c.json(await memory.bankSettings(c.req.valid('param').bank), 200),
    );

    for (const method of ['patch', 'put'] as const) {
      app.openapi(
        createRoute({
          method,
          path: '/v1/banks/{bank}/thread-settings',
          tags: ['threads'],
          summary:
            method === 'patch'
              ? 'Merge into the bank’s thread settings (checked before saving)'
              : 'Replace the bank’s thread settings (checked before saving)',
          request: { params: BankIdParam, body: body(Settings) },
          responses: { 200: json(SettingsResponse, 'Saved'), ...errors },
        }),
        async (c) => c.json(await memory.updateBankSettings(c.req.valid('param').bank, c.req.valid('json'), method === 'put'), 200),
      );
    }
  };
}
