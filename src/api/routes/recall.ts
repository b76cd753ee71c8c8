// Recall: the fused four-arm search over a bank's memory.
import { createRoute, z } from '@hono/zod-openapi';
import type { Engine } from '../../engine.ts';
import type { Routes } from './index.ts';
import { BankIdParam, ErrorSchema, FactKindSchema, json, RecallRequestSchema, SourceLocationSchema, SourceSpanSchema } from '../schemas.ts';

const SourceSchema = SourceLocationSchema.extend({ metadata: z.record(z.string(), z.string()) }).openapi('RecallSource');

const SourceFactSchema = z
  .object({
    id: z.string(),
    kind: FactKindSchema,
    text: z.string(),
    role: z.enum(['supports', 'contradicts']),
    occurredStart: z.string().nullable(),
    mentionedAt: z.string(),
    status: z.enum(['active', 'superseded']),
    source: SourceSpanSchema.nullable(),
  })
  .openapi('RecallSourceFact');

const RecallResultSchema = z
  .object({
    id: z.string(),
    text: z.string(),
    kind: FactKindSchema,
    score: z.number(),
    scores: z
      .object({
        semantic: z.number().optional(),
        keyword: z.number().optional(),
        graph: z.number().optional(),
        temporal: z.number().optional(),
        passage: z.number().optional(),
        fused: z.number(),
        rerank: z.number().optional(),
      })
      .openapi({ description: 'Score per arm that found it (semantic, keyword, graph, temporal, passage), fusion and rerank' }),
    occurredStart: z.string().nullable(),
    occurredEnd: z.string().nullable(),
    mentionedAt: z.string(),
    entities: z.array(z.string()),
    speaker: z.string().nullable(),
    tags: z.array(z.string()),
    source: SourceSchema.nullable(),
    session: z
      .object({ id: z.string(), ordinal: z.number().int() })
      .nullable()
      .openapi({
        description:
          "The session (conversation) the fact came from: its id (the item's `session`, else its documentId) and its ordinal in the bank " +
          '(1: the earliest, by the time of its first item); null for facts of no session and for observations',
      }),
    tokens: z.number().int().openapi({ description: 'Tokens of text (counted against maxTokens)' }),
    change: z
      .object({ kind: z.enum(['update', 'contradiction']), role: z.enum(['earlier', 'later']), with: z.string() })
      .optional()
      .openapi({
        description:
          'Another result says the same with a different value (update) or the opposite (contradiction): whether this is the earlier or ' +
          'the later statement, and the other one\'s id. Present-tense questions get the later first; "what changed" questions get both',
      }),
    stale: z.boolean().optional().openapi({ description: 'Observations: facts about its entities still wait to be consolidated' }),
    proofCount: z.number().int().optional().openapi({ description: 'Observations: supporting facts' }),
    sourceFacts: z.array(SourceFactSchema).optional().openapi({ description: 'Observations, with include.sourceFacts: evidence facts' }),
  })
  .openapi('RecallResult');

const RecallPassageSchema = z
  .object({
    chunkId: z.string(),
    documentId: z.string(),
    itemId: z.string(),
    text: z.string().openapi({ description: "The passage's whole text" }),
    speaker: z.string().nullable(),
    timestamp: z.string().nullable(),
    session: z.object({ id: z.string(), ordinal: z.number().int() }).nullable(),
    score: z.number().openapi({ description: "Its best result's score (passages come in that order)" }),
    tokens: z.number().int(),
    results: z
      .array(z.object({ id: z.string(), start: z.number().int(), end: z.number().int() }))
      .openapi({ description: "Its results, best first, with the span of each one's sentence in text" }),
  })
  .openapi('RecallPassage');

export const RecallResponseSchema = z
  .object({
    results: z.array(RecallResultSchema),
    passages: z.array(RecallPassageSchema).optional().openapi({ description: "With group: 'source': the passages the results came from" }),
    tokens: z.number().int().openapi({ description: 'Tokens of all returned texts' }),
    trace: z.record(z.string(), z.unknown()).optional().openapi({ description: "Each arm's findings and timings (with trace: true)" }),
  })
  .openapi('RecallResponse');

export function recallRoutes(engine: Engine): Routes {
  return (app) => {
    app.openapi(
      createRoute({
        method: 'post',
        path: '/v1/banks/{bank}/recall',
        tags: ['recall'],
        request: { params: BankIdParam, body: { content: { 'application/json': { schema: RecallRequestSchema } }, required: true } },
        responses: {
          200: json(RecallResponseSchema, 'Ranked memories'),
          400: json(ErrorSchema, 'Invalid request'),
          404: json(ErrorSchema, 'No such bank'),
        },
      }),
      async (c) => {
        const response = await engine.recall(c.req.valid('param').bank, c.req.valid('json'));
        return c.json(response, 200);
      },
    );
  };
}
