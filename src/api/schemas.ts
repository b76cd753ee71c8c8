// Request and response schemas of the HTTP API: one source for validation and for the OpenAPI document.
import { z } from '@hono/zod-openapi';
import { BANK_ID_PATTERN, BANK_ID_RULE, isBankId, ISO_HINT, isoInstant, LONE_SURROGATE, ONLY_DOTS } from '../core/index.ts';
import { MAX_MESSAGES_PER_APPEND, MESSAGE_ROLES } from '../threads/index.ts';
import { bankConfigProblems } from './bank-config.ts';

/** A refinement for an id field: a lone surrogate is not text, and such an id could not be put in a URL. */
const wholeText = (field: string): [(id: string) => boolean, { message: string }] => [
  (id) => !LONE_SURROGATE.test(id),
  { message: `${field} holds a lone surrogate, which is not valid text` },
];

/** A thread's resource (the user or entity its memory is pooled for): an id, so valid text. */
export const ResourceId = z
  .string()
  .min(1)
  .max(256)
  .refine(...wholeText('resourceId'));

/** An OpenAPI response: a JSON body of this schema. */
export const json = <T extends z.ZodType>(schema: T, description: string) => ({ content: { 'application/json': { schema } }, description });

export const MAX_ITEM_CHARS = 1_000_000;
export const MAX_ITEMS = 10_000;

/** Most tags a recall may require (a fact carries at most as many); more would only deepen the SQL past its limit. */
export const MAX_TAGS = 50;

/**
 * A time field: ISO 8601 (a date, or a date-time whose missing offset means UTC), handed on in the canonical form
 * (`2024-06-01T12:00:00.000Z`) so stored times compare as text. Anything else is a 400 naming the field.
 */
export const isoTimestamp = (field: string, description?: string) =>
  z
    .string()
    .transform((v, ctx) => {
      const at = isoInstant(v);
      if (at !== null) return at;
      ctx.addIssue({ code: 'custom', message: `${field} must be an ISO 8601 date or date-time, ${ISO_HINT}` });
      return z.NEVER;
    })
    .openapi({ type: 'string', format: 'date-time', example: '2024-06-01T12:00:00Z', ...(description ? { description } : {}) });

interface IntegerBounds {
  min: number;
  /** Default: the largest integer a number holds exactly, z.int()'s bound (a larger offset would fail in SQLite: a 500). */
  max?: number;
}

/**
 * A whole-number query parameter (`?limit=20`) within bounds; absent, it is the default or else undefined. The edge
 * hands a query value over as a string, or as an array of them when the parameter is repeated; z.coerce.number()
 * read '' as 0 and ['5', '7'] as NaN and answered "too small" or "received NaN" (and let a blank offset pass as 0).
 * This reads the text itself: a 400 says the parameter was given more than once, or states the rule and what it got
 * (empty, not a whole number, outside the bounds). The OpenAPI document describes an integer with its bounds and
 * default (given here, since the document takes nothing but the type from a schema whose type is declared).
 */
export function queryInteger(field: string, bounds: IntegerBounds & { default: number }): z.ZodDefault<QueryInteger>;
export function queryInteger(field: string, bounds: IntegerBounds): z.ZodOptional<QueryInteger>;
export function queryInteger(
  field: string,
  { min, max = Number.MAX_SAFE_INTEGER, default: fallback }: IntegerBounds & { default?: number },
) {
  const rule = `${field} must be a whole number between ${min} and ${max}`;
  const schema = z
    .union([z.string(), z.array(z.string())])
    .transform((v, ctx) => {
      if (Array.isArray(v)) {
        ctx.addIssue({ code: 'custom', message: `${field} was given more than once` });
        return z.NEVER;
      }
      const text = v.trim();
      const n = /^-?\d+$/.test(text) ? Number(text) : Number.NaN;
      if (n >= min && n <= max) return n;
      ctx.addIssue({ code: 'custom', message: `${rule} (got ${text === '' ? 'an empty value' : JSON.stringify(v)})` });
      return z.NEVER;
    })
    .openapi({ type: 'integer', minimum: min, maximum: max, default: fallback });
  return fallback === undefined ? schema.optional() : schema.default(fallback);
}
type QueryInteger = z.ZodPipe<z.ZodUnion<[z.ZodString, z.ZodArray<z.ZodString>]>, z.ZodTransform<number, string | string[]>>;

/** Filters on when facts happened and when they held, taken by recall and by the facts list (README "Time"). */
export const TimeFilterFields = {
  occurredFrom: isoTimestamp(
    'occurredFrom',
    'Only facts that happened at or after this instant: their occurred span (occurredStart to occurredEnd, or the start alone) reaches it. Facts with no occurred time are left out.',
  ).optional(),
  occurredTo: isoTimestamp(
    'occurredTo',
    'Only facts that happened at or before this instant: their occurredStart is not after it. Facts with no occurred time are left out.',
  ).optional(),
  validAt: isoTimestamp(
    'validAt',
    'Only facts that held at this instant (valid time): validFrom at or before it (none: from the beginning) and validTo, if any, after it.',
  ).optional(),
};

/** A schema holding TimeFilterFields, refined so the occurred range does not run backwards (canonical times compare as text). */
export const forwardOccurredRange = <T extends z.ZodType<{ occurredFrom?: string; occurredTo?: string }>>(schema: T): T =>
  schema.refine((q) => !q.occurredFrom || !q.occurredTo || q.occurredFrom <= q.occurredTo, {
    message: 'occurredFrom must not be after occurredTo',
    path: ['occurredFrom'],
  });

/** Text that must hold more than whitespace. */
const nonBlank = (field: string, max: number, tooLong: string) =>
  z
    .string()
    .max(max, tooLong)
    .refine((v) => v.trim() !== '', { message: `${field} must not be empty or blank` });

export const ErrorSchema = z.object({ error: z.object({ code: z.string(), message: z.string() }) }).openapi('Error');

/** A bank id under the one rule every entry point applies (core/ids.ts). */
export const BankIdSchema = z
  .string()
  .refine(isBankId, { message: BANK_ID_RULE })
  .openapi({ example: 'alice', pattern: BANK_ID_PATTERN.source });

/** Why something is deleted: kept in its tombstone. Blank is as good as not given. */
export const DeleteQuery = z
  .object({ reason: z.string().max(500).optional().openapi({ description: "Kept in the tombstone (default 'deleted through the API')" }) })
  .strict();
export const deleteReason = (q: z.infer<typeof DeleteQuery>): string => q.reason?.trim() || 'deleted through the API';

export const BankIdParam = z.object({
  bank: BankIdSchema.openapi({ param: { name: 'bank', in: 'path' }, example: 'alice' }),
});

const Config = z
  .record(z.string(), z.unknown())
  .superRefine((config, ctx) => {
    for (const message of bankConfigProblems(config)) ctx.addIssue({ code: 'custom', message });
  })
  .openapi({
    description:
      'Bank settings (retainMission, retainMode, disposition, threads, llm, and free-form keys of your own). An update merges: the keys it names replace the stored ones, and a key set to null is removed.',
  });

export const BankSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    mission: z.string(),
    config: Config,
    embedder: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Bank');

export const CreateBankSchema = z
  .object({
    id: BankIdSchema.optional(),
    name: z.string().min(1).max(200).optional(),
    mission: z.string().max(4000).optional(),
    config: Config.optional(),
  })
  .strict()
  .openapi('CreateBank');

export const UpdateBankSchema = CreateBankSchema.omit({ id: true }).openapi('UpdateBank');

export const RetainItemSchema = z
  .object({
    content: nonBlank(
      'content',
      MAX_ITEM_CHARS,
      `content must be at most ${MAX_ITEM_CHARS} characters; split the document into several items`,
    ),
    timestamp: isoTimestamp('timestamp').optional(),
    context: z.string().max(2000).optional(),
    speaker: z.string().max(200).optional(),
    role: z.enum(['user', 'assistant', 'agent', 'system']).optional(),
    documentId: z
      .string()
      .min(1)
      .max(256)
      .refine((id) => !ONLY_DOTS.test(id), { message: 'documentId must not be only dots (it could not be named in a URL)' })
      .refine(...wholeText('documentId'))
      .optional(),
    session: z
      .string()
      .min(1)
      .max(256)
      .refine(...wholeText('session'))
      .nullable()
      .optional()
      .openapi({
        description:
          'The session (conversation) the item belongs to. Default: its documentId (an item without one belongs to no session); ' +
          'null: none. Sessions are numbered in the bank by time (their earliest item), and recall understands "our first session", ' +
          '"last time", "sessions 2 through 4", "two sessions ago"',
      }),
    metadata: z.record(z.string(), z.string()).optional(),
    tags: z.array(z.string().min(1).max(100)).max(MAX_TAGS).optional(),
  })
  .strict()
  .openapi('RetainItem');

export const RetainRequestSchema = z
  .object({
    items: z.array(RetainItemSchema).min(1, 'items must hold at least one item').max(MAX_ITEMS),
    async: z.boolean().optional(),
    operationId: z
      .string()
      .min(1)
      .max(200)
      .refine(...wholeText('operationId'))
      .optional(),
    documentMode: z.enum(['replace', 'append']).optional(),
  })
  .strict()
  .openapi('RetainRequest');

export const OperationSchema = z
  .object({
    id: z.string(),
    bankId: z.string(),
    kind: z.string(),
    status: z.enum(['queued', 'running', 'succeeded', 'failed']),
    progress: z
      .object({
        done: z.number(),
        total: z.number(),
        chunks: z
          .object({ done: z.number(), total: z.number() })
          .optional()
          .openapi({ description: "A retain's chunks of new text written and in all: progress within a long item" }),
        waiting: z.string().optional().openapi({
          description:
            "While the operation cannot go on, what it waits for (a retain: its bank's write lease, which an earlier retain into the bank holds)",
        }),
      })
      .openapi({ description: 'Items done and in all; updated as the work goes' }),
    input: z.unknown().optional().openapi({ description: 'The request, only with ?include=input' }),
    result: z.unknown().openapi({ description: 'The result; while an async (or keyed) retain runs, its result so far' }),
    error: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    owner: z
      .string()
      .nullable()
      .optional()
      .openapi({ description: 'The process running it (its heartbeat id); another takes it over if that one dies' }),
  })
  .openapi('Operation');

export const RetainResponseSchema = z
  .object({
    operationId: z.string(),
    status: z.enum(['queued', 'running', 'succeeded', 'failed']),
    result: z
      .object({
        documents: z.number(),
        documentsUnchanged: z.number(),
        chunksProcessed: z.number(),
        chunksRemoved: z.number(),
        facts: z.number(),
        factIds: z.array(z.string()),
        entities: z.number(),
      })
      .nullable(),
  })
  .openapi('RetainResponse');

export const FactKindSchema = z.enum(['world', 'experience', 'observation']);

/** Recall's fields, before the check that the occurred range runs forwards (the MCP tools pick from them). */
export const RecallFields = z
  .object({
    query: nonBlank('query', 4000, 'query must be at most 4000 characters'),
    types: z.array(FactKindSchema).min(1).max(FactKindSchema.options.length).optional(),
    budget: z.enum(['low', 'mid', 'high']).optional(),
    maxTokens: z.number().int().min(1).max(200_000).optional(),
    limit: z.number().int().min(1).max(500).optional(),
    queryTime: isoTimestamp('queryTime').optional(),
    asOf: isoTimestamp('asOf').optional(),
    ...TimeFilterFields,
    // Empty tags are refused as at retain, where no fact can carry one (a filter on it could only match nothing).
    tags: z.array(z.string().min(1).max(100)).max(MAX_TAGS, `tags may hold at most ${MAX_TAGS} tags`).optional(),
    trace: z.boolean().optional(),
    mmr: z.number().min(0).max(1).optional().openapi({ description: 'MMR diversity lambda (0 = off)' }),
    include: z.object({ sourceFacts: z.boolean().optional() }).strict().optional(),
    perSource: z.number().int().min(0).max(500).optional().openapi({
      description: 'Most results read from one source passage (an item, or a section of a long one); default 2, 0 lifts the cap',
    }),
    group: z
      .enum(['source'])
      .optional()
      .openapi({
        description:
          "'source': also return the passages (whole messages, or sections of long ones) the results came from, each once with its " +
          "results' spans; maxTokens then counts the passages' texts",
      }),
  })
  .strict();

export const RecallRequestSchema = forwardOccurredRange(RecallFields).openapi('RecallRequest');

/** Where a fact was read: its document, chunk and item, and the character span in the chunk. */
export const SourceLocationSchema = z
  .object({
    documentId: z.string(),
    chunkId: z.string(),
    itemId: z.string(),
    start: z.number(),
    end: z.number(),
    session: z
      .string()
      .nullable()
      .optional()
      .openapi({ description: 'The session of the item (its `session`, else its documentId); null: none' }),
  })
  .openapi('SourceLocation');

/** A source location with the exact text it spans and what is known of the item and document it came from. */
export const SourceSpanSchema = SourceLocationSchema.extend({
  sentence: z.string().openapi({ description: 'The exact source text: the chunk text between start and end' }),
  speaker: z.string().nullable(),
  timestamp: z.string().nullable(),
  context: z.string().nullable(),
  document: z
    .object({
      id: z.string(),
      metadata: z.record(z.string(), z.string()),
      tags: z.array(z.string()),
      createdAt: z.string(),
      updatedAt: z.string(),
    })
    .nullable(),
}).openapi('SourceSpan');

export const FactSchema = z
  .object({
    id: z.string(),
    bankId: z.string(),
    kind: FactKindSchema,
    text: z.string(),
    occurredStart: z.string().nullable(),
    occurredEnd: z.string().nullable(),
    mentionedAt: z.string(),
    entities: z.array(z.string()),
    source: SourceLocationSchema.nullable(),
    speaker: z.string().nullable(),
    metadata: z.record(z.string(), z.string()),
    tags: z.array(z.string()),
    stance: z.enum(['instruction', 'preference']).nullable().openapi({
      description:
        'A standing instruction or preference the fact states (read at retain); recall adds these to the questions they bear on.',
    }),
    context: z.string().nullable().openapi({
      description:
        "What the fact's keyword index reads beside its text: its heading, its passage's names and identifiers, the sentence before it.",
    }),
    status: z.enum(['active', 'superseded']),
    validFrom: z.string().nullable(),
    validTo: z.string().nullable(),
    supersededBy: z.string().nullable(),
    supersededAt: z.string().nullable(),
    consolidatedAt: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Fact');

/** A retained document: one item, or the items that share a documentId. */
export const DocumentSchema = z
  .object({
    id: z.string(),
    bankId: z.string(),
    contentHash: z.string(),
    metadata: z.record(z.string(), z.string()),
    tags: z.array(z.string()),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Document');

/** A chunk of a document: the source text that facts' character spans point into. */
export const ChunkSchema = z
  .object({
    id: z.string(),
    documentId: z.string(),
    index: z.number().int(),
    itemId: z.string(),
    text: z.string(),
    speaker: z.string().nullable(),
    timestamp: z.string().nullable(),
    context: z.string().nullable(),
    session: z
      .string()
      .nullable()
      .optional()
      .openapi({ description: 'The session of the item (its `session`, else its documentId); null: none' }),
  })
  .openapi('Chunk');

export const EntitySchema = z
  .object({
    id: z.string(),
    bankId: z.string(),
    name: z.string(),
    aliases: z.array(z.string()),
    type: z.string().nullable(),
    mentionCount: z.number(),
    firstSeen: z.string(),
    lastSeen: z.string(),
  })
  .openapi('Entity');

/** A session of a bank: the items retained with one `session` (or one documentId), numbered by time. */
export const SessionSchema = z
  .object({
    id: z.string(),
    ordinal: z.number().int().openapi({ description: '1 for the earliest session of the bank (by its earliest item timestamp)' }),
    start: z.string().nullable().openapi({ description: 'Earliest timestamp of its items (null when none carries one)' }),
    end: z.string().nullable().openapi({ description: 'Latest timestamp of its items (null when none carries one)' }),
  })
  .openapi('Session');

/** Two entities that facts mention together. */
export const EntityEdgeSchema = z
  .object({
    source: z.string().openapi({ description: 'The entity id that sorts first' }),
    target: z.string(),
    weight: z.number().int().openapi({ description: 'Active facts (not superseded or deleted) that mention both' }),
  })
  .openapi('EntityEdge');

export const PageQuery = z
  .object({
    limit: queryInteger('limit', { min: 1, max: 1000, default: 100 }),
    offset: queryInteger('offset', { min: 0, default: 0 }),
  })
  .strict();

// ---- thread memory (routes/threads.ts)

export const ThreadParams = BankIdParam.extend({
  thread: z
    .string()
    .min(1)
    .max(256)
    .openapi({ param: { name: 'thread', in: 'path' }, example: 'chat-1' }),
});

export const ToolCallSchema = z
  .object({ id: z.string().max(200).optional(), name: z.string().min(1).max(200), arguments: z.unknown().optional() })
  .strict();

export const MessageInputSchema = z
  .object({
    role: z.enum(MESSAGE_ROLES as [string, ...string[]]).openapi({ example: 'user' }),
    content: z.string().max(1_000_000, 'content must be at most 1,000,000 characters'),
    name: z.string().min(1).max(200).optional(),
    timestamp: isoTimestamp('timestamp').optional(),
    toolCalls: z.array(ToolCallSchema).max(100).optional(),
  })
  .strict()
  .refine((m) => m.content.trim() !== '' || (m.toolCalls?.length ?? 0) > 0, {
    message: 'content must not be empty (unless the message carries toolCalls)',
    path: ['content'],
  })
  .openapi('ThreadMessageInput');

export const MessageList = z.array(MessageInputSchema).min(1, 'send at least one message').max(MAX_MESSAGES_PER_APPEND);
export const AppendEnvelope = z.object({ messages: MessageList, resourceId: ResourceId.optional() }).strict().openapi('ThreadAppend');
export const AppendSchema = z.union([AppendEnvelope, MessageList, MessageInputSchema]);

export const MessageSchema = z
  .object({
    seq: z.number(),
    id: z.string(),
    bankId: z.string(),
    threadId: z.string(),
    role: z.string(),
    name: z.string().nullable(),
    content: z.string(),
    toolCalls: z.array(z.object({ id: z.string().optional(), name: z.string(), arguments: z.unknown().optional() })).nullable(),
    timestamp: z.string(),
    tokens: z.number(),
    createdAt: z.string(),
  })
  .openapi('ThreadMessage');

export const AppendResponse = z
  .object({
    threadId: z.string(),
    resourceId: z.string().nullable(),
    recordId: z.string(),
    messages: z.array(MessageSchema),
    warnings: z.array(z.string()),
  })
  .openapi('ThreadAppendResult');

export const ThreadSchema = z
  .object({
    bankId: z.string(),
    id: z.string(),
    resourceId: z.string().nullable(),
    settings: z.record(z.string(), z.unknown()),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Thread');

export const Settings = z.record(z.string(), z.unknown()).openapi({
  description:
    'Thread memory settings: scope, messageTokens, observationTokens, reflectionConsolidationThreshold, maxObservationsInContext, maxReflectionsInContext, ' +
    'memoryTokenBudget, messageTokenBudget, bufferTokens, bufferActivation, blockAfter, reflectionBufferActivation, reflectionBlockAfter, observer, ' +
    'observerInstructions, reflectorInstructions, workingMemory {enabled, scope, template, autoUpdate, maxTokens}, bridge',
});
export const SettingsResponse = z
  .object({
    settings: Settings,
    effective: z.record(z.string(), z.unknown()).openapi({
      description:
        'Every setting as in effect (defaults filled in; bufferTokens and messageTokenBudget as token counts), plus the derived keepTokens, ' +
        'blockAfterTokens, reflectionBufferTokens and reflectionBlockAfterTokens. It can be sent back as is with PUT or PATCH: the derived ' +
        'values are read-only, accepted when equal to what the other settings derive.',
    }),
  })
  .openapi('ThreadSettings');

export const MemoryItemSchema = z
  .object({
    id: z.string(),
    bankId: z.string(),
    recordId: z.string(),
    threadId: z.string().nullable(),
    kind: z.enum(['observation', 'reflection']),
    generation: z.number(),
    status: z.enum(['running', 'buffered', 'active', 'archived']),
    text: z.string(),
    tokens: z.number(),
    fromSeq: z.number().nullable(),
    toSeq: z.number().nullable(),
    messageCount: z.number(),
    inputTokens: z.number(),
    covers: z.array(z.string()),
    currentTask: z.string().nullable(),
    suggestedResponse: z.string().nullable(),
    firstAt: z.string().nullable(),
    lastAt: z.string().nullable(),
    createdAt: z.string(),
    activatedAt: z.string().nullable(),
    archivedAt: z.string().nullable(),
  })
  .openapi('MemoryItem');

export const ContextSchema = z
  .object({
    threadId: z.string(),
    recordId: z.string(),
    maxTokens: z.number().nullable(),
    prefix: z.string().openapi({ description: 'Memory prefix; byte-identical between calls until memory changes' }),
    prefixHash: z.string().openapi({ description: 'sha256 of the prefix' }),
    prefixTokens: z.number(),
    messages: z.array(MessageSchema),
    messageTokens: z.number(),
    totalTokens: z.number(),
    omittedMessages: z.number(),
    reflectionIds: z.array(z.string()),
    observationIds: z.array(z.string()),
    omittedReflections: z.number(),
    omittedObservations: z.number(),
    currentTask: z.string().nullable(),
    workingMemory: z.boolean(),
  })
  .openapi('ThreadContext');

export const ThreadWindowSchema = z.object({ count: z.number(), tokens: z.number(), threshold: z.number(), blockAfter: z.number() });
export const StatusSchema = z
  .object({
    bankId: z.string(),
    threadId: z.string(),
    resourceId: z.string().nullable(),
    scope: z.enum(['thread', 'resource']),
    recordId: z.string(),
    observer: z.string(),
    reflector: z.string(),
    messages: z.object({ count: z.number(), tokens: z.number() }),
    windows: z.object({
      active: z.object({
        messages: ThreadWindowSchema,
        observations: ThreadWindowSchema,
        reflections: z.object({ count: z.number(), tokens: z.number(), byGeneration: z.record(z.string(), z.number()) }),
      }),
      buffered: z.object({
        observations: z.object({
          chunks: z.number(),
          messageTokens: z.number(),
          projectedMessageRemoval: z.number(),
          observationTokens: z.number(),
          status: z.enum(['idle', 'running', 'complete']),
          items: z.array(
            z.object({
              id: z.string(),
              status: z.enum(['running', 'complete']),
              messages: z.number(),
              messageTokens: z.number(),
              observationTokens: z.number(),
            }),
          ),
        }),
        reflection: z.object({
          status: z.enum(['idle', 'running', 'complete']),
          inputObservationTokens: z.number(),
          observationTokens: z.number(),
          generation: z.number().nullable(),
        }),
      }),
    }),
    archived: z.object({ observations: z.number(), reflections: z.number() }),
    generationCount: z.number(),
    workingMemory: z.object({ key: z.string(), tokens: z.number() }).nullable(),
  })
  .openapi('ThreadMemoryStatus');

export const WorkingMemorySchema = z
  .object({ bankId: z.string(), key: z.string(), content: z.string(), updatedAt: z.string() })
  .openapi('WorkingMemory');
