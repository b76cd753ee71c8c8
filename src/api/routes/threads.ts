// Thread memory routes: append messages, read the context (memory prefix + raw tail), status and an SSE stream
// of memory events, list and clear memory, working memory and remember, thread and bank thread settings.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { streamSSE } from 'hono/streaming';
import type { ThreadMemory } from '../../threads/memory.ts';
import { MAX_MESSAGES_PER_APPEND } from '../../threads/memory.ts';
import { MESSAGE_ROLES, type MemoryEvent, type MemoryStatus, type MessageInput } from '../../threads/types.ts';
import { describeIssues, errorBody } from '../errors.ts';
import { BankIdParam, ErrorSchema, isoTimestamp, json } from '../schemas.ts';

export interface ThreadRouteDeps {
  memory: ThreadMemory;
  /** Seconds between SSE keep-alive comments (default 15). */
  heartbeatSeconds?: number;
}

const errors = { 400: json(ErrorSchema, 'Invalid request'), 404: json(ErrorSchema, 'No such bank or thread') };
const body = <T extends z.ZodType>(schema: T) => ({ content: { 'application/json': { schema } }, required: true });

const ThreadParams = BankIdParam.extend({
  thread: z.string().min(1).max(256).openapi({ param: { name: 'thread', in: 'path' }, example: 'chat-1' }),
});

const ToolCallSchema = z.object({ id: z.string().max(200).optional(), name: z.string().min(1).max(200), arguments: z.unknown().optional() }).strict();

const MessageInputSchema = z
  .object({
    role: z.enum(MESSAGE_ROLES as [string, ...string[]]).openapi({ example: 'user' }),
    content: z.string().max(1_000_000, 'content must be at most 1,000,000 characters'),
    name: z.string().min(1).max(200).optional(),
    timestamp: isoTimestamp('timestamp').optional(),
    toolCalls: z.array(ToolCallSchema).max(100).optional(),
  })
  .strict()
  .refine((m) => m.content.trim() !== '' || (m.toolCalls?.length ?? 0) > 0, { message: 'content must not be empty (unless the message carries toolCalls)', path: ['content'] })
  .openapi('ThreadMessageInput');

const MessageList = z.array(MessageInputSchema).min(1, 'send at least one message').max(MAX_MESSAGES_PER_APPEND);
const AppendEnvelope = z
  .object({ messages: MessageList, resourceId: z.string().min(1).max(256).optional() })
  .strict()
  .openapi('ThreadAppend');
const AppendSchema = z.union([AppendEnvelope, MessageList, MessageInputSchema]);

const MessageSchema = z
  .object({
    seq: z.number(), id: z.string(), bankId: z.string(), threadId: z.string(), role: z.string(), name: z.string().nullable(), content: z.string(),
    toolCalls: z.array(z.object({ id: z.string().optional(), name: z.string(), arguments: z.unknown().optional() })).nullable(),
    timestamp: z.string(), tokens: z.number(), createdAt: z.string(),
  })
  .openapi('ThreadMessage');

const AppendResponse = z
  .object({ threadId: z.string(), resourceId: z.string().nullable(), recordId: z.string(), messages: z.array(MessageSchema), warnings: z.array(z.string()) })
  .openapi('ThreadAppendResult');

const ThreadSchema = z
  .object({ bankId: z.string(), id: z.string(), resourceId: z.string().nullable(), settings: z.record(z.string(), z.unknown()), createdAt: z.string(), updatedAt: z.string() })
  .openapi('Thread');

const Settings = z.record(z.string(), z.unknown()).openapi({
  description:
    'Thread memory settings: scope, messageTokens, observationTokens, reflectionConsolidationThreshold, maxObservationsInContext, maxReflectionsInContext, ' +
    'memoryTokenBudget, messageTokenBudget, bufferTokens, bufferActivation, blockAfter, reflectionBufferActivation, reflectionBlockAfter, observer, ' +
    'observerInstructions, reflectorInstructions, workingMemory {enabled, scope, template, autoUpdate, maxTokens}, bridge',
});
const SettingsResponse = z.object({ settings: Settings, effective: z.record(z.string(), z.unknown()) }).openapi('ThreadSettings');

const MemoryItemSchema = z
  .object({
    id: z.string(), bankId: z.string(), recordId: z.string(), threadId: z.string().nullable(), kind: z.enum(['observation', 'reflection']),
    generation: z.number(), status: z.enum(['running', 'buffered', 'active', 'archived']), text: z.string(), tokens: z.number(),
    fromSeq: z.number().nullable(), toSeq: z.number().nullable(), messageCount: z.number(), inputTokens: z.number(), covers: z.array(z.string()),
    currentTask: z.string().nullable(), suggestedResponse: z.string().nullable(), firstAt: z.string().nullable(), lastAt: z.string().nullable(),
    createdAt: z.string(), activatedAt: z.string().nullable(), archivedAt: z.string().nullable(),
  })
  .openapi('MemoryItem');

const ContextSchema = z
  .object({
    threadId: z.string(), recordId: z.string(), maxTokens: z.number().nullable(),
    prefix: z.string().openapi({ description: 'Memory prefix; byte-identical between calls until memory changes' }),
    prefixHash: z.string().openapi({ description: 'sha256 of the prefix' }),
    prefixTokens: z.number(), messages: z.array(MessageSchema), messageTokens: z.number(), totalTokens: z.number(), omittedMessages: z.number(),
    reflectionIds: z.array(z.string()), observationIds: z.array(z.string()), omittedReflections: z.number(), omittedObservations: z.number(),
    currentTask: z.string().nullable(), workingMemory: z.boolean(),
  })
  .openapi('ThreadContext');

const window = z.object({ count: z.number(), tokens: z.number(), threshold: z.number(), blockAfter: z.number() });
const StatusSchema = z
  .object({
    bankId: z.string(), threadId: z.string(), resourceId: z.string().nullable(), scope: z.enum(['thread', 'resource']), recordId: z.string(),
    observer: z.string(), reflector: z.string(), messages: z.object({ count: z.number(), tokens: z.number() }),
    windows: z.object({
      active: z.object({
        messages: window, observations: window,
        reflections: z.object({ count: z.number(), tokens: z.number(), byGeneration: z.record(z.string(), z.number()) }),
      }),
      buffered: z.object({
        observations: z.object({
          chunks: z.number(), messageTokens: z.number(), projectedMessageRemoval: z.number(), observationTokens: z.number(),
          status: z.enum(['idle', 'running', 'complete']),
          items: z.array(z.object({ id: z.string(), status: z.enum(['running', 'complete']), messages: z.number(), messageTokens: z.number(), observationTokens: z.number() })),
        }),
        reflection: z.object({ status: z.enum(['idle', 'running', 'complete']), inputObservationTokens: z.number(), observationTokens: z.number(), generation: z.number().nullable() }),
      }),
    }),
    archived: z.object({ observations: z.number(), reflections: z.number() }),
    generationCount: z.number(),
    workingMemory: z.object({ key: z.string(), tokens: z.number() }).nullable(),
  })
  .openapi('ThreadMemoryStatus');

const WorkingMemorySchema = z.object({ bankId: z.string(), key: z.string(), content: z.string(), updatedAt: z.string() }).openapi('WorkingMemory');

const STATUSES = ['running', 'buffered', 'active', 'archived'] as const;

/** Which shape a failed append body was meant to be, so the error names that shape's problems. */
function appendProblem(value: unknown): string {
  const schema = Array.isArray(value) ? MessageList : value && typeof value === 'object' && 'messages' in value ? AppendEnvelope : MessageInputSchema;
  const parsed = schema.safeParse(value);
  return parsed.success ? 'invalid body' : describeIssues(parsed.error.issues);
}

export function threadRoutes(deps: ThreadRouteDeps): (app: OpenAPIHono) => void {
  const { memory } = deps;
  const heartbeatMs = (deps.heartbeatSeconds ?? 15) * 1000;
  return (app) => {
    app.openapi(
      createRoute({
        method: 'post', path: '/v1/banks/{bank}/threads/{thread}/messages', tags: ['threads'],
        summary: 'Append one or many messages (stored before any processing)',
        request: { params: ThreadParams, body: body(AppendSchema) },
        responses: { 200: json(AppendResponse, 'Stored, with the synchronous memory step done'), ...errors, 409: json(ErrorSchema, 'resourceId conflict') },
      }),
      async (c) => {
        const { bank, thread } = c.req.valid('param');
        const input = c.req.valid('json');
        const envelope = Array.isArray(input) ? { messages: input } : 'messages' in input ? input : { messages: [input] };
        const result = await memory.append(bank, thread, { messages: envelope.messages as MessageInput[], resourceId: 'resourceId' in envelope ? envelope.resourceId : undefined });
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
        method: 'get', path: '/v1/banks/{bank}/threads/{thread}/messages', tags: ['threads'],
        request: { params: ThreadParams, query: z.object({ limit: z.coerce.number().int().min(1).max(1000).default(100), offset: z.coerce.number().int().min(0).default(0) }).strict() },
        responses: { 200: json(z.object({ messages: z.array(MessageSchema) }), 'Messages in order'), ...errors },
      }),
      async (c) => {
        const { bank, thread } = c.req.valid('param');
        return c.json({ messages: await memory.listMessages(bank, thread, c.req.valid('query')) }, 200);
      },
    );

    app.openapi(
      createRoute({
        method: 'get', path: '/v1/banks/{bank}/threads', tags: ['threads'],
        request: {
          params: BankIdParam,
          query: z.object({ resourceId: z.string().optional(), limit: z.coerce.number().int().min(1).max(1000).default(100), offset: z.coerce.number().int().min(0).default(0) }).strict(),
        },
        responses: { 200: json(z.object({ threads: z.array(ThreadSchema) }), 'Threads of the bank'), ...errors },
      }),
      async (c) => c.json({ threads: await memory.listThreads(c.req.valid('param').bank, c.req.valid('query')) }, 200),
    );

    app.openapi(
      createRoute({ method: 'get', path: '/v1/banks/{bank}/threads/{thread}', tags: ['threads'], request: { params: ThreadParams }, responses: { 200: json(ThreadSchema, 'The thread'), ...errors } }),
      async (c) => {
        const { bank, thread } = c.req.valid('param');
        return c.json(await memory.getThread(bank, thread), 200);
      },
    );

    app.openapi(
      createRoute({
        method: 'put', path: '/v1/banks/{bank}/threads/{thread}', tags: ['threads'],
        summary: 'Create or update a thread: resourceId (before its first message) and per-thread setting overrides',
        request: { params: ThreadParams, body: body(z.object({ resourceId: z.string().min(1).max(256).nullable().optional(), settings: Settings.optional() }).strict()) },
        responses: { 200: json(ThreadSchema, 'The thread'), ...errors, 409: json(ErrorSchema, 'The change conflicts with existing messages or memory') },
      }),
      async (c) => {
        const { bank, thread } = c.req.valid('param');
        return c.json(await memory.putThread(bank, thread, c.req.valid('json')), 200);
      },
    );

    app.openapi(
      createRoute({
        method: 'delete', path: '/v1/banks/{bank}/threads/{thread}', tags: ['threads'], request: { params: ThreadParams },
        responses: { 200: json(z.object({ deleted: z.string() }), 'Deleted with its messages and memory'), ...errors },
      }),
      async (c) => {
        const { bank, thread } = c.req.valid('param');
        await memory.deleteThread(bank, thread);
        return c.json({ deleted: thread }, 200);
      },
    );

    app.openapi(
      createRoute({
        method: 'get', path: '/v1/banks/{bank}/threads/{thread}/context', tags: ['threads'],
        summary: 'Memory prefix (stable between turns until memory changes) and the raw unobserved tail',
        request: { params: ThreadParams, query: z.object({ maxTokens: z.coerce.number().int().min(1).max(2_000_000).optional() }).strict() },
        responses: { 200: json(ContextSchema, 'The context'), ...errors },
      }),
      async (c) => {
        const { bank, thread } = c.req.valid('param');
        return c.json(await memory.context(bank, thread, { maxTokens: c.req.valid('query').maxTokens }), 200);
      },
    );

    app.openapi(
      createRoute({
        method: 'get', path: '/v1/banks/{bank}/threads/{thread}/memory', tags: ['threads'], summary: 'Memory status: windows, thresholds, buffers, generations',
        request: { params: ThreadParams }, responses: { 200: json(StatusSchema, 'Status'), ...errors },
      }),
      async (c) => {
        const { bank, thread } = c.req.valid('param');
        return c.json(await memory.status(bank, thread), 200);
      },
    );

    app.openapi(
      createRoute({
        method: 'delete', path: '/v1/banks/{bank}/threads/{thread}/memory', tags: ['threads'],
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
        method: 'get', path: '/v1/banks/{bank}/threads/{thread}/observations', tags: ['threads'], summary: 'Observations and reflections of the thread’s record',
        request: { params: ThreadParams, query: z.object({ status: z.string().optional().openapi({ description: 'Comma-separated: running, buffered, active, archived' }) }).strict() },
        responses: { 200: json(z.object({ items: z.array(MemoryItemSchema) }), 'Memory items in creation order'), ...errors },
      }),
      async (c) => {
        const { bank, thread } = c.req.valid('param');
        const wanted = (c.req.valid('query').status ?? '').split(',').map((s) => s.trim()).filter(Boolean);
        const unknown = wanted.filter((s) => !(STATUSES as readonly string[]).includes(s));
        if (unknown.length) return c.json(errorBody('bad_request', `status must be among ${STATUSES.join(', ')}; got ${unknown.join(', ')}`), 400);
        return c.json({ items: await memory.items(bank, thread, wanted as MemoryStatus[]) }, 200);
      },
    );

    app.openapi(
      createRoute({
        method: 'get', path: '/v1/banks/{bank}/threads/{thread}/events', tags: ['threads'],
        summary: 'Server-Sent Events: observation, reflection, buffering (start/end/failed), activation, working-memory.updated',
        request: {
          params: ThreadParams,
          query: z.object({ since: z.coerce.number().int().min(0).optional().openapi({ description: 'Replay kept events after this id (also: Last-Event-ID header)' }) }).strict(),
        },
        responses: { 200: { content: { 'text/event-stream': { schema: z.string() } }, description: 'Event stream; each event has id, event (type) and JSON data' }, ...errors },
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
        method: 'get', path: '/v1/banks/{bank}/threads/{thread}/working-memory', tags: ['threads'], request: { params: ThreadParams },
        responses: { 200: json(WorkingMemorySchema, 'The working-memory document (the template when none yet)'), ...errors },
      }),
      async (c) => {
        const { bank, thread } = c.req.valid('param');
        return c.json(await memory.workingMemory(bank, thread), 200);
      },
    );

    app.openapi(
      createRoute({
        method: 'put', path: '/v1/banks/{bank}/threads/{thread}/working-memory', tags: ['threads'],
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
        method: 'post', path: '/v1/banks/{bank}/threads/{thread}/remember', tags: ['threads'], summary: 'Append a note to working memory',
        request: { params: ThreadParams, body: body(z.object({ note: z.string().trim().min(1, 'note must not be empty').max(4000) }).strict()) },
        responses: { 200: json(WorkingMemorySchema, 'The updated document'), ...errors },
      }),
      async (c) => {
        const { bank, thread } = c.req.valid('param');
        return c.json(await memory.remember(bank, thread, c.req.valid('json').note), 200);
      },
    );

    app.openapi(
      createRoute({
        method: 'get', path: '/v1/banks/{bank}/thread-settings', tags: ['threads'], request: { params: BankIdParam },
        responses: { 200: json(SettingsResponse, "The bank's thread settings and the values in effect"), ...errors },
      }),
      async (c) => c.json(await memory.bankSettings(c.req.valid('param').bank), 200),
    );

    for (const method of ['patch', 'put'] as const) {
      app.openapi(
        createRoute({
          method, path: '/v1/banks/{bank}/thread-settings', tags: ['threads'],
          summary: method === 'patch' ? 'Merge into the bank’s thread settings (checked before saving)' : 'Replace the bank’s thread settings (checked before saving)',
          request: { params: BankIdParam, body: body(Settings) },
          responses: { 200: json(SettingsResponse, 'Saved'), ...errors },
        }),
        async (c) => c.json(await memory.updateBankSettings(c.req.valid('param').bank, c.req.valid('json'), method === 'put'), 200),
      );
    }
  };
}
